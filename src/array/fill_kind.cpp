#include "fill_kind.hpp"

#include <algorithm>
#include <cstring>

#include "strata/base/error.hpp"
#include "strata/cluster/serialization.hpp"

namespace strata::array::detail {

void fill_kind(cluster::PlanContext& context, const cluster::PlanOp& op) {
  const auto args = cluster::decode<Fill>(std::as_bytes(std::span(op.args.data(), op.args.size())),
                                          "the arguments of an array fill");
  if (op.accesses.size() != 1 || args.element_bytes == 0 || args.element_bytes > 8) {
    throw Error("an array fill declares 1 chunk and an element of 1 to 8 bytes");
  }
  const cluster::PlannedAccess& access = op.accesses[0];
  const runtime::DataHandle data = context.chunk(access);
  runtime::TaskSpec spec("fill " + access.name);
  spec.access(data, access.mode);
  runtime::ChunkStaging& staging = context.staging();
  context.submit(
      std::move(spec),
      [&staging, data, args](runtime::TaskContext& task) {
        const memory::ChunkView view = staging.view(task, data);
        auto* bytes = static_cast<unsigned char*>(view.host);
        const bool zero = std::all_of(args.value.begin(), args.value.end(),
                                      [](unsigned char b) { return b == 0; });
        if (zero) {
          std::memset(bytes, 0, view.bytes);
          return;
        }
        for (std::uint64_t at = 0; at + args.element_bytes <= view.bytes; at += args.element_bytes)
          std::memcpy(bytes + at, args.value.data(), args.element_bytes);
      },
      op.accesses);
}

}  // namespace strata::array::detail
