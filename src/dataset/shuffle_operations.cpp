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

// The bucket of each record of `in`.
std::vector<std::uint32_t> destinations(const RouteArgs& args, std::span<const std::byte> in) {
  const std::uint64_t n = in.size() / args.record_bytes;
  std::vector<std::uint32_t> to(n, 0);
  if (args.hash_key) {
    const RecordFunction& key = FunctionTable::instance().find(args.key);
    std::vector<std::byte> results(n * key.out_bytes);
    key.block(in, results, {});
    std::vector<std::uint64_t> keys(n);
    key.widen(results, keys);
    for (std::uint64_t i = 0; i < n; ++i)
      to[i] = bucket_of_key(keys[i], args.buckets);
    return to;
  }
  if (args.key.empty()) {
    for (std::uint64_t i = 0; i < n; ++i)
      to[i] = bucket_of_key(hash_of(in.data() + i * args.record_bytes, args.record_bytes),
                            args.buckets);
    return to;
  }
  const RecordFunction& key = order_key(args.key);
  const std::vector<std::byte> order = order_of(key, in);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::string_view bytes(reinterpret_cast<const char*>(order.data()) + i * key.out_bytes,
                                 key.out_bytes);
    to[i] = static_cast<std::uint32_t>(
        std::upper_bound(args.splitters.begin(), args.splitters.end(), bytes,
                         [](std::string_view a, const std::string& b) {
                           return std::memcmp(a.data(), b.data(), a.size()) < 0;
                         }) -
        args.splitters.begin());
  }
  return to;
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
  for (std::uint32_t b = 0; b < args.blocks; ++b) {
    for (std::uint32_t to : destinations(args, context.chunk(b)))
      ++counts[to];
  }
  std::memcpy(context.chunk(args.blocks).data(), counts.data(), counts.size() * 8);
}

void route(OperationContext& context) {
  const auto args = context.args<RouteArgs>();
  std::vector<std::uint64_t> filled(args.buckets, 0);
  for (std::uint32_t b = 0; b < args.blocks; ++b) {
    const std::span<std::byte> in = context.chunk(b);
    const std::vector<std::uint32_t> to = destinations(args, in);
    for (std::size_t i = 0; i < to.size(); ++i) {
      const std::span<std::byte> out = context.chunk(args.blocks + to[i]);
      if ((filled[to[i]] + 1) * args.record_bytes > out.size())
        throw Error("order_by/distinct/join: a bucket's records outgrew their count");
      std::memcpy(out.data() + filled[to[i]]++ * args.record_bytes,
                  in.data() + i * args.record_bytes, args.record_bytes);
    }
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

void merge_distinct(OperationContext& context) {
  const auto args = context.args<MergeArgs>();
  const std::vector<std::byte> all = concatenated(context, args.parts);
  const std::size_t bytes = args.record_bytes;
  const std::size_t n = all.size() / bytes;
  // Records grouped by hash, each compared with the kept records of its hash.
  KeyIndex hashes;
  std::vector<std::vector<std::uint32_t>> kept_of_hash;
  std::byte* out = context.chunk(args.parts).data();
  std::uint64_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::byte* record = all.data() + i * bytes;
    const auto [h, added] = hashes.insert(hash_of(record, args.record_bytes));
    if (added) kept_of_hash.emplace_back();
    auto& same = kept_of_hash[h];
    const bool seen = std::any_of(same.begin(), same.end(), [&](std::uint32_t k) {
      return std::memcmp(out + std::size_t{k} * bytes, record, bytes) == 0;
    });
    if (seen) continue;
    std::memcpy(out + kept * bytes, record, bytes);
    same.push_back(static_cast<std::uint32_t>(kept++));
  }
  context.set_size(args.parts, kept * bytes);
}

// The keys of the records of inputs [first, first + count), widened, and the records.
struct Side {
  std::vector<std::byte> records;
  std::vector<std::uint64_t> keys;
  std::uint32_t record_bytes = 0;
};

Side side_of(const OperationContext& context, std::uint32_t first, std::uint32_t count,
             const std::string& key_name) {
  const RecordFunction& key = FunctionTable::instance().find(key_name);
  Side side;
  side.record_bytes = key.in_bytes;
  for (std::uint32_t p = first; p < first + count; ++p) {
    const std::span<std::byte> part = context.chunk(p);
    side.records.insert(side.records.end(), part.begin(), part.end());
  }
  const std::size_t n = side.records.size() / key.in_bytes;
  std::vector<std::byte> results(n * key.out_bytes);
  key.block(side.records, results, {});
  side.keys.resize(n);
  key.widen(results, side.keys);
  return side;
}

// Calls pair(l, r) for every match. The smaller side is the hash table's (its records listed
// per key, CSR), the other side probes it in record order.
template <typename F>
void for_each_match(const Side& left, const Side& right, F&& pair) {
  const bool left_builds = left.keys.size() <= right.keys.size();
  const Side& build = left_builds ? left : right;
  const Side& probe = left_builds ? right : left;
  KeyIndex index;
  std::vector<std::uint32_t> key_of(build.keys.size());
  for (std::uint32_t b = 0; b < build.keys.size(); ++b)
    key_of[b] = index.insert(build.keys[b]).first;
  std::vector<std::uint32_t> starts(index.size() + 1, 0);
  for (std::uint32_t k : key_of)
    ++starts[k + 1];
  for (std::size_t k = 0; k < index.size(); ++k)
    starts[k + 1] += starts[k];
  std::vector<std::uint32_t> records(build.keys.size());
  std::vector<std::uint32_t> filled(starts.begin(), starts.end() - 1);
  for (std::uint32_t b = 0; b < build.keys.size(); ++b)
    records[filled[key_of[b]]++] = b;
  for (std::uint32_t p = 0; p < probe.keys.size(); ++p) {
    const std::int64_t at = index.find(probe.keys[p]);
    if (at < 0) continue;
    const auto k = static_cast<std::size_t>(at);
    for (std::uint32_t i = starts[k]; i < starts[k + 1]; ++i) {
      if (left_builds) {
        pair(records[i], p);
      } else {
        pair(p, records[i]);
      }
    }
  }
}

void join_count(OperationContext& context) {
  const auto args = context.args<JoinArgs>();
  const Side left = side_of(context, 0, args.left_parts, args.left_key);
  const Side right = side_of(context, args.left_parts, args.right_parts, args.right_key);
  std::uint64_t pairs = 0;
  for_each_match(left, right, [&](std::uint32_t, std::uint32_t) { ++pairs; });
  std::memcpy(context.chunk(args.left_parts + args.right_parts).data(), &pairs, 8);
}

void join(OperationContext& context) {
  const auto args = context.args<JoinArgs>();
  const Side left = side_of(context, 0, args.left_parts, args.left_key);
  const Side right = side_of(context, args.left_parts, args.right_parts, args.right_key);
  const std::size_t out_index = std::size_t{args.left_parts} + args.right_parts;
  const std::span<std::byte> out = context.chunk(out_index);
  std::uint64_t pairs = 0;
  for_each_match(left, right, [&](std::uint32_t l, std::uint32_t r) {
    if ((pairs + 1) * args.pair_bytes > out.size()) throw Error("join: more pairs than counted");
    std::byte* pair = out.data() + pairs++ * args.pair_bytes;
    std::memset(pair, 0, args.pair_bytes);
    std::memcpy(pair, left.records.data() + std::size_t{l} * left.record_bytes, left.record_bytes);
    std::memcpy(pair + args.right_offset,
                right.records.data() + std::size_t{r} * right.record_bytes, right.record_bytes);
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
  program.define(operations::join_count, join_count);
  program.define(operations::join, join);
}

}  // namespace strata::dataset::detail
