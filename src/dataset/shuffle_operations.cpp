// The operations of order_by, distinct and join: records routed to buckets (a few on each rank)
// by key range or by hash (counted first, so that each destination's buffer has exactly its
// size), then sorted, deduplicated or joined in each bucket.

#include <algorithm>
#include <cstring>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "key_index.hpp"
#include "key_slices.hpp"
#include "operation_args.hpp"
#include "strata/base/error.hpp"
#include "strata/cluster/program.hpp"

namespace strata::dataset::detail {
namespace {

using cluster::OperationContext;

const RecordFunction& order_key(const std::string& name) {
  const RecordFunction& key = FunctionTable::instance().find(name);
  if (key.kind != RecordFunction::Kind::select || !key.order) {
    throw Error("order_by: key function '" + name + "' (" + key.signature +
                ") does not give integers or arrays of bytes");
  }
  return key;
}

// The order bytes of the keys of `in`'s records, key.out_bytes each.
std::vector<std::byte> order_of(const RecordFunction& key, std::span<const std::byte> in) {
  const std::uint64_t n = in.size() / key.in_bytes;
  std::vector<std::byte> results(n * key.out_bytes);
  key.block(in, results, {});
  std::vector<std::byte> order(results.size());
  key.order(results, order);
  return order;
}

std::uint64_t hash_of(const std::byte* record, std::uint32_t bytes) {
  std::uint64_t h = 0x243f6a8885a308d3ull ^ bytes;
  for (std::uint32_t at = 0; at < bytes; at += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, record + at, std::min<std::uint32_t>(8, bytes - at));
    h = (h ^ word) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  return h;
}

// Calls f(i, bucket) for each record i of `in`, a slice at a time.
template <typename F>
void each_destination(const RouteArgs& args, std::span<const std::byte> in, F&& f) {
  const std::uint64_t n = in.size() / args.record_bytes;
  if (args.key.empty()) {
    for (std::uint64_t i = 0; i < n; ++i)
      f(i,
        bucket_of_key(hash_of(in.data() + i * args.record_bytes, args.record_bytes), args.buckets));
    return;
  }
  const RecordFunction& key =
      args.hash_key ? FunctionTable::instance().find(args.key) : order_key(args.key);
  if (args.hash_key) {
    KeySlices slices(key);
    slices.each(in, [&](std::size_t first, std::span<const std::byte>,
                        std::span<const std::uint64_t> keys) {
      for (std::size_t i = 0; i < keys.size(); ++i)
        f(first + i, bucket_of_key(keys[i], args.buckets));
    });
    return;
  }
  constexpr std::uint64_t slice = KeySlices::slice_records;
  for (std::uint64_t first = 0; first < n; first += slice) {
    const std::uint64_t count = std::min(slice, n - first);
    const std::vector<std::byte> order =
        order_of(key, in.subspan(first * args.record_bytes, count * args.record_bytes));
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::string_view bytes(reinterpret_cast<const char*>(order.data()) + i * key.out_bytes,
                                   key.out_bytes);
      f(first + i, static_cast<std::uint32_t>(
                       std::upper_bound(args.splitters.begin(), args.splitters.end(), bytes,
                                        [](std::string_view a, const std::string& b) {
                                          return std::memcmp(a.data(), b.data(), a.size()) < 0;
                                        }) -
                       args.splitters.begin()));
    }
  }
}

void sample_keys(OperationContext& context) {
  const auto args = context.args<SampleArgs>();
  const RecordFunction& key = order_key(args.key);
  std::vector<std::byte> all;
  for (std::uint32_t b = 0; b < args.blocks; ++b) {
    const std::vector<std::byte> order = order_of(key, context.chunk(b));
    all.insert(all.end(), order.begin(), order.end());
  }
  const std::uint64_t n = all.size() / key.out_bytes;
  const std::uint64_t taken = std::min<std::uint64_t>(n, args.samples);
  std::byte* out = context.chunk(args.blocks).data();
  for (std::uint64_t s = 0; s < taken; ++s) {
    const std::uint64_t i = (2 * s + 1) * n / (2 * taken);
    std::memcpy(out + s * key.out_bytes, all.data() + i * key.out_bytes, key.out_bytes);
  }
  context.set_size(args.blocks, taken * key.out_bytes);
}

void route_count(OperationContext& context) {
  const auto args = context.args<RouteArgs>();
  std::vector<std::uint64_t> counts(args.buckets, 0);
  for (std::uint32_t b = 0; b < args.blocks; ++b)
    each_destination(args, context.chunk(b),
                     [&](std::uint64_t, std::uint32_t to) { ++counts[to]; });
  std::memcpy(context.chunk(args.blocks).data(), counts.data(), counts.size() * 8);
}

void route(OperationContext& context) {
  const auto args = context.args<RouteArgs>();
  std::vector<std::uint64_t> filled(args.buckets, 0);
  std::vector<std::span<std::byte>> outs;
  for (std::uint32_t to = 0; to < args.buckets; ++to)
    outs.push_back(context.chunk(args.blocks + to));
  for (std::uint32_t b = 0; b < args.blocks; ++b) {
    const std::span<std::byte> in = context.chunk(b);
    each_destination(args, in, [&](std::uint64_t i, std::uint32_t to) {
      if ((filled[to] + 1) * args.record_bytes > outs[to].size())
        throw Error("order_by/distinct/join: a bucket's records outgrew their count");
      std::memcpy(outs[to].data() + filled[to]++ * args.record_bytes,
                  in.data() + i * args.record_bytes, args.record_bytes);
    });
  }
  for (std::uint32_t r = 0; r < args.buckets; ++r)
    context.set_size(args.blocks + r, filled[r] * args.record_bytes);
}

std::vector<std::byte> concatenated(const OperationContext& context, std::uint32_t parts) {
  std::vector<std::byte> all;
  for (std::uint32_t p = 0; p < parts; ++p) {
    const std::span<std::byte> part = context.chunk(p);
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

void merge_sorted(OperationContext& context) {
  const auto args = context.args<MergeArgs>();
  const RecordFunction& key = order_key(args.key);
  const std::vector<std::byte> all = concatenated(context, args.parts);
  const std::vector<std::byte> order = order_of(key, all);
  std::vector<std::uint32_t> index(all.size() / args.record_bytes);
  std::iota(index.begin(), index.end(), 0u);
  const std::uint32_t kb = key.out_bytes;
  std::stable_sort(index.begin(), index.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::memcmp(order.data() + std::size_t{a} * kb, order.data() + std::size_t{b} * kb, kb) <
           0;
  });
  const std::span<std::byte> out = context.chunk(args.parts);
  if (out.size() < all.size()) throw Error("order_by: a bucket's records outgrew their count");
  for (std::size_t i = 0; i < index.size(); ++i)
    std::memcpy(out.data() + i * args.record_bytes,
                all.data() + std::size_t{index[i]} * args.record_bytes, args.record_bytes);
  context.set_size(args.parts, all.size());
}

// A set of records compared by their bytes, grouped by hash; it points at records that stay
// where they are while it lives.
class RecordSet {
 public:
  explicit RecordSet(std::uint32_t record_bytes) : bytes_(record_bytes) {}
  // Adds `record`; false when an equal one is in the set.
  bool insert(const std::byte* record) {
    const auto [h, added] = hashes_.insert(hash_of(record, bytes_));
    if (added) records_of_hash_.emplace_back();
    if (!added && holds(records_of_hash_[h], record)) return false;
    records_of_hash_[h].push_back(record);
    return true;
  }
  bool contains(const std::byte* record) const {
    const std::int64_t h = hashes_.find(hash_of(record, bytes_));
    return h >= 0 && holds(records_of_hash_[static_cast<std::size_t>(h)], record);
  }

 private:
  std::uint32_t bytes_;
  KeyIndex hashes_;
  std::vector<std::vector<const std::byte*>> records_of_hash_;

  bool holds(const std::vector<const std::byte*>& same, const std::byte* record) const {
    return std::any_of(same.begin(), same.end(), [&](const std::byte* kept) {
      return std::memcmp(kept, record, bytes_) == 0;
    });
  }
};

// Calls f(record) for each record of inputs [first, first + count).
template <typename F>
void each_record(const OperationContext& context, std::uint32_t first, std::uint32_t count,
                 std::uint32_t bytes, F&& f) {
  for (std::uint32_t p = first; p < first + count; ++p) {
    const std::span<std::byte> part = context.chunk(p);
    for (std::size_t at = 0; at + bytes <= part.size(); at += bytes)
      f(part.data() + at);
  }
}

// Copies `record` to the next free place of `out`, failing when it is full.
void append(std::span<std::byte> out, std::uint64_t& kept, const std::byte* record,
            std::uint32_t bytes) {
  if ((kept + 1) * bytes > out.size()) throw Error("distinct/intersect: more records than routed");
  std::memcpy(out.data() + kept++ * bytes, record, bytes);
}

void merge_distinct(OperationContext& context) {
  const auto args = context.args<MergeArgs>();
  RecordSet seen(args.record_bytes);
  const std::span<std::byte> out = context.chunk(args.parts);
  std::uint64_t kept = 0;
  each_record(context, 0, args.parts, args.record_bytes, [&](const std::byte* record) {
    if (seen.insert(record)) append(out, kept, record, args.record_bytes);
  });
  context.set_size(args.parts, kept * args.record_bytes);
}

// The first of each set of equal records of the first inputs that the other inputs hold too.
void merge_intersect(OperationContext& context) {
  const auto args = context.args<MergeArgs>();
  RecordSet other(args.record_bytes);
  each_record(context, args.parts, args.other_parts, args.record_bytes,
              [&](const std::byte* record) { other.insert(record); });
  RecordSet seen(args.record_bytes);
  const std::size_t out_index = std::size_t{args.parts} + args.other_parts;
  const std::span<std::byte> out = context.chunk(out_index);
  std::uint64_t kept = 0;
  each_record(context, 0, args.parts, args.record_bytes, [&](const std::byte* record) {
    if (other.contains(record) && seen.insert(record)) append(out, kept, record, args.record_bytes);
  });
  context.set_size(out_index, kept * args.record_bytes);
}

// One side of a join: the inputs [first, first + count) of the operation.
struct JoinSide {
  std::vector<std::span<const std::byte>> parts;
  const RecordFunction* key = nullptr;
  std::uint64_t records = 0;

  JoinSide(const OperationContext& context, std::uint32_t first, std::uint32_t count,
           const std::string& key_name)
      : key(&FunctionTable::instance().find(key_name)) {
    for (std::uint32_t p = first; p < first + count; ++p) {
      parts.push_back(context.chunk(p));
      records += parts.back().size() / key->in_bytes;
    }
  }
};

// The hash table of a join's smaller side: each distinct key with the records of that key
// listed together (CSR), and the records copied in one array.
class JoinTable {
 public:
  JoinTable(JoinSide& side, bool with_records) : record_bytes_(side.key->in_bytes) {
    std::vector<std::uint32_t> key_of;
    key_of.reserve(side.records);
    if (with_records) records_.reserve(side.records * record_bytes_);
    KeySlices slices(*side.key);
    for (const std::span<const std::byte> part : side.parts) {
      slices.each(part, [&](std::size_t, std::span<const std::byte> records,
                            std::span<const std::uint64_t> keys) {
        for (const std::uint64_t k : keys)
          key_of.push_back(index_.insert(k).first);
        if (with_records) records_.insert(records_.end(), records.begin(), records.end());
      });
    }
    starts_.assign(index_.size() + 1, 0);
    for (const std::uint32_t k : key_of)
      ++starts_[k + 1];
    for (std::size_t k = 0; k < index_.size(); ++k)
      starts_[k + 1] += starts_[k];
    if (!with_records) return;
    listed_.resize(key_of.size());
    std::vector<std::uint32_t> filled(starts_.begin(), starts_.end() - 1);
    for (std::uint32_t r = 0; r < key_of.size(); ++r)
      listed_[filled[key_of[r]]++] = r;
  }

  void prefetch(std::uint64_t key) const { index_.prefetch(key); }
  // How many records have `key`.
  std::uint32_t count(std::uint64_t key) const {
    const std::int64_t at = index_.find(key);
    return at < 0 ? 0 : starts_[at + 1] - starts_[at];
  }
  // Calls f(record) for each record with `key` (with_records tables only).
  template <typename F>
  void each(std::uint64_t key, F&& f) const {
    const std::int64_t at = index_.find(key);
    if (at < 0) return;
    for (std::uint32_t i = starts_[at]; i < starts_[at + 1]; ++i)
      f(records_.data() + std::size_t{listed_[i]} * record_bytes_);
  }

 private:
  std::uint32_t record_bytes_;
  KeyIndex index_;
  std::vector<std::uint32_t> starts_;
  std::vector<std::uint32_t> listed_;
  std::vector<std::byte> records_;
};

// Calls f(probe_record, key) for each record of the probe side, a slice at a time, prefetching
// the table's slots a few records ahead.
template <typename F>
void probe_each(JoinSide& probe, const JoinTable& table, F&& f) {
  constexpr std::size_t ahead = 16;
  KeySlices slices(*probe.key);
  const std::uint32_t bytes = probe.key->in_bytes;
  for (const std::span<const std::byte> part : probe.parts) {
    slices.each(part, [&](std::size_t, std::span<const std::byte> records,
                          std::span<const std::uint64_t> keys) {
      for (std::size_t i = 0; i < std::min(ahead, keys.size()); ++i)
        table.prefetch(keys[i]);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (i + ahead < keys.size()) table.prefetch(keys[i + ahead]);
        f(records.data() + i * bytes, keys[i]);
      }
    });
  }
}

void join_count(OperationContext& context) {
  const auto args = context.args<JoinArgs>();
  JoinSide left(context, 0, args.left_parts, args.left_key);
  JoinSide right(context, args.left_parts, args.right_parts, args.right_key);
  const bool left_builds = left.records <= right.records;
  const JoinTable table(left_builds ? left : right, false);
  std::uint64_t pairs = 0;
  probe_each(left_builds ? right : left, table,
             [&](const std::byte*, std::uint64_t key) { pairs += table.count(key); });
  std::memcpy(context.chunk(args.left_parts + args.right_parts).data(), &pairs, 8);
}

// The smaller side is the hash table's; the other probes it in record order.
void join(OperationContext& context) {
  const auto args = context.args<JoinArgs>();
  JoinSide left(context, 0, args.left_parts, args.left_key);
  JoinSide right(context, args.left_parts, args.right_parts, args.right_key);
  const bool left_builds = left.records <= right.records;
  const JoinTable table(left_builds ? left : right, true);
  const std::size_t out_index = std::size_t{args.left_parts} + args.right_parts;
  const std::span<std::byte> out = context.chunk(out_index);
  const std::uint32_t left_bytes = left.key->in_bytes;
  const std::uint32_t right_bytes = right.key->in_bytes;
  const std::uint32_t right_end = args.right_offset + right_bytes;
  std::uint64_t pairs = 0;
  const auto write = [&](const std::byte* l, const std::byte* r) {
    if ((pairs + 1) * args.pair_bytes > out.size()) throw Error("join: more pairs than counted");
    std::byte* pair = out.data() + pairs++ * args.pair_bytes;
    std::memcpy(pair, l, left_bytes);
    std::memset(pair + left_bytes, 0, args.right_offset - left_bytes);  // padding
    std::memcpy(pair + args.right_offset, r, right_bytes);
    std::memset(pair + right_end, 0, args.pair_bytes - right_end);
  };
  probe_each(left_builds ? right : left, table, [&](const std::byte* record, std::uint64_t key) {
    table.each(key, [&](const std::byte* built) {
      if (left_builds) {
        write(built, record);
      } else {
        write(record, built);
      }
    });
  });
  context.set_size(out_index, pairs * args.pair_bytes);
}

}  // namespace

void define_shuffle_operations(cluster::Program& program) {
  program.define(operations::sample_keys, sample_keys);
  program.define(operations::route_count, route_count);
  program.define(operations::route, route);
  program.define(operations::merge_sorted, merge_sorted);
  program.define(operations::merge_distinct, merge_distinct);
  program.define(operations::merge_intersect, merge_intersect);
  program.define(operations::join_count, join_count);
  program.define(operations::join, join);
}

}  // namespace strata::dataset::detail
