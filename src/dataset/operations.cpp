// The data-set operations every rank defines: each runs one task over the blocks of a
// partition (or one block), calling the user's functions once per block.

#include <cstring>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "group_table.hpp"
#include "key_slices.hpp"
#include "operation_args.hpp"
#include "strata/base/error.hpp"
#include "strata/cluster/program.hpp"

namespace strata::dataset::detail {
namespace {

using cluster::OperationContext;

// The context records of chunks [first, first + count), as one span (copied when several).
class ContextRecords {
 public:
  ContextRecords(const OperationContext& context, std::size_t first, std::size_t count) {
    if (count == 1) {
      view_ = context.chunk(first);
      return;
    }
    for (std::size_t c = first; c < first + count; ++c) {
      const std::span<std::byte> part = context.chunk(c);
      copy_.insert(copy_.end(), part.begin(), part.end());
    }
    view_ = copy_;
  }
  std::span<const std::byte> bytes() const { return view_; }

 private:
  std::vector<std::byte> copy_;
  std::span<const std::byte> view_;
};

const RecordFunction& function_of(const std::string& name, RecordFunction::Kind kind) {
  const RecordFunction& function = FunctionTable::instance().find(name);
  if (function.kind != kind) {
    throw Error("data-set function '" + name + "' is a " + function.signature +
                ", not the kind this operator takes");
  }
  return function;
}

// in.size() must be whole records of the function's input.
void check_records(const RecordFunction& function, std::span<const std::byte> in,
                   const std::string& block) {
  if (in.size() % function.in_bytes != 0) {
    throw Error("data-set function '" + function.name + "' (" + function.signature + ") reads " +
                block + " of " + std::to_string(in.size()) + " bytes: not whole records of " +
                std::to_string(function.in_bytes) + " bytes");
  }
}

void generate(OperationContext& context) {
  const auto args = context.args<GenerateArgs>();
  const RecordFunction& function = function_of(args.function, RecordFunction::Kind::select);
  for (std::size_t b = 0; b < args.first.size(); ++b) {
    const std::span<std::byte> out = context.chunk(b);
    std::vector<std::uint64_t> indexes(out.size() / function.out_bytes);
    std::iota(indexes.begin(), indexes.end(), args.first[b]);
    function.block(std::as_bytes(std::span(indexes)), out, {});
  }
}

// select, where and select_many: block i of in[0..k) into out[k + i].
void map_blocks(OperationContext& context, RecordFunction::Kind kind) {
  const auto args = context.args<BlockArgs>();
  const RecordFunction& function = function_of(args.function, kind);
  const ContextRecords records(context, 2 * std::size_t{args.blocks}, args.contexts);
  if (args.contexts == 0 && function.context_bytes != 0) {
    throw Error("data-set function '" + function.name + "' (" + function.signature +
                ") needs a context data set and was given none");
  }
  for (std::uint32_t b = 0; b < args.blocks; ++b) {
    const std::span<const std::byte> in = context.chunk(b);
    check_records(function, in, "block " + std::to_string(b) + " of its partition");
    const std::uint64_t n = function.block(in, context.chunk(args.blocks + b), records.bytes());
    if (args.late.at(b) != 0) context.set_size(args.blocks + b, n * function.out_bytes);
  }
}

void fold(OperationContext& context) {
  const auto args = context.args<FoldArgs>();
  const RecordFunction& function = function_of(args.combine, RecordFunction::Kind::combine);
  const std::size_t bytes = function.in_bytes;
  std::vector<std::byte> acc;
  std::vector<std::byte> values;
  for (std::uint32_t b = 0; b < args.blocks; ++b) {
    const std::span<const std::byte> in = context.chunk(b);
    check_records(function, in, "block " + std::to_string(b) + " of its partition");
    if (in.empty()) continue;
    std::span<const std::byte> rest = in;
    if (acc.empty()) {
      acc.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(bytes));
      rest = in.subspan(bytes);
    }
    const std::vector<std::uint32_t> into(rest.size() / bytes, 0);
    function.scatter(acc.data(), into, rest);
  }
  if (!acc.empty()) std::memcpy(context.chunk(args.blocks).data(), acc.data(), acc.size());
  context.set_size(args.blocks, acc.size());
}

void group_partial(OperationContext& context) {
  const auto args = context.args<GroupArgs>();
  const GroupShape& shape = args.shape;
  const RecordFunction& key = function_of(shape.key, RecordFunction::Kind::select);
  const RecordFunction* combine =
      shape.combine.empty() ? nullptr : &function_of(shape.combine, RecordFunction::Kind::combine);
  const RecordFunction* value =
      shape.value.empty() ? nullptr : &function_of(shape.value, RecordFunction::Kind::select);
  if (!key.widen) {
    throw Error("group_by: key function '" + key.name + "' (" + key.signature +
                ") does not give integers");
  }
  const ContextRecords records(context, std::size_t{args.blocks} + args.buckets, args.contexts);
  GroupTable table(shape, combine);
  KeySlices slices(key);
  const std::span<const std::byte> key_context =
      key.context_bytes != 0 ? records.bytes() : std::span<const std::byte>{};
  const std::span<const std::byte> value_context = value != nullptr && value->context_bytes != 0
                                                       ? records.bytes()
                                                       : std::span<const std::byte>{};
  std::vector<std::byte> values;
  for (std::uint32_t b = 0; b < args.blocks; ++b) {
    const std::span<const std::byte> in = context.chunk(b);
    check_records(key, in, "block " + std::to_string(b) + " of its partition");
    slices.each(
        in,
        [&](std::size_t, std::span<const std::byte> slice, std::span<const std::uint64_t> keys) {
          std::span<const std::byte> slice_values = slice;
          if (combine == nullptr) {
            slice_values = {};
          } else if (value != nullptr) {
            values.resize(keys.size() * value->out_bytes);
            value->block(slice, values, value_context);
            slice_values = values;
          }
          table.add(keys, slice_values);
        },
        key_context);
  }
  const std::vector<std::vector<std::uint32_t>> buckets = table.by_bucket(args.buckets);
  for (std::uint32_t b = 0; b < args.buckets; ++b) {
    const std::size_t out = std::size_t{args.blocks} + b;
    const std::uint64_t n =
        table.write(context.chunk(out), &buckets[b],
                    "group_by '" + shape.key + "' on rank " + std::to_string(context.rank()) +
                        ", the groups of one partition for bucket " + std::to_string(b),
                    false);
    context.set_size(out, n * shape.group_bytes);
  }
}

void group_merge(OperationContext& context) {
  const auto args = context.args<GroupArgs>();
  const RecordFunction* combine =
      args.shape.combine.empty() ? nullptr
                                 : &function_of(args.shape.combine, RecordFunction::Kind::combine);
  GroupTable table(args.shape, combine);
  for (std::uint32_t p = 0; p < args.blocks; ++p)
    table.add_groups(context.chunk(p));
  const std::uint64_t n =
      table.write(context.chunk(args.blocks), nullptr,
                  "group_by '" + args.shape.key + "', the groups of a bucket on rank " +
                      std::to_string(context.rank()),
                  true);
  context.set_size(args.blocks, n * args.shape.group_bytes);
}

void gather(OperationContext& context) {
  const auto args = context.args<GatherArgs>();
  const std::size_t out = context.chunk_count() - 1;
  std::byte* to = context.chunk(out).data();
  for (const GatherArgs::Piece& piece : args.pieces) {
    const std::span<std::byte> from = context.chunk(piece.use);
    const std::uint64_t begin = piece.first * args.record_bytes;
    const std::uint64_t bytes = piece.count * args.record_bytes;
    if (begin + bytes > from.size()) throw Error("rechunk: a piece lies outside its block");
    std::memcpy(to, from.data() + begin, bytes);
    to += bytes;
  }
}

}  // namespace

std::uint32_t bucket_of_key(std::uint64_t key, std::uint32_t buckets) {
  // splitmix64's finalizer: consecutive keys spread over the buckets.
  key ^= key >> 30;
  key *= 0xbf58476d1ce4e5b9ull;
  key ^= key >> 27;
  key *= 0x94d049bb133111ebull;
  key ^= key >> 31;
  return static_cast<std::uint32_t>(key % buckets);
}

void define_operations(cluster::Program& program) {
  program.define(operations::generate, generate);
  program.define(operations::select,
                 [](OperationContext& c) { map_blocks(c, RecordFunction::Kind::select); });
  program.define(operations::where,
                 [](OperationContext& c) { map_blocks(c, RecordFunction::Kind::where); });
  program.define(operations::select_many,
                 [](OperationContext& c) { map_blocks(c, RecordFunction::Kind::select_many); });
  program.define(operations::fold, fold);
  program.define(operations::group_partial, group_partial);
  program.define(operations::group_merge, group_merge);
  program.define(operations::gather, gather);
  define_shuffle_operations(program);
}

}  // namespace strata::dataset::detail
