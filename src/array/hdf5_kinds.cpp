#include "hdf5_kinds.hpp"

#include <cstddef>
#include <span>

#include "strata/base/error.hpp"
#include "strata/cluster/serialization.hpp"
#include "strata/store/hdf5_file.hpp"

namespace strata::array::detail {
namespace {

void submit_io(cluster::PlanContext& context, const cluster::PlanOp& op, bool read) {
  const auto box = cluster::decode<Hdf5Box>(
      std::as_bytes(std::span(op.args.data(), op.args.size())), "the arguments of an HDF5 box");
  if (op.accesses.empty()) throw Error("an HDF5 box operation declares its chunk");
  const cluster::PlannedAccess& access = op.accesses[0];
  const runtime::DataHandle data = context.chunk(access);
  runtime::TaskSpec spec(std::string(read ? "read " : "write ") + box.path + " " + box.dataset +
                         box.region().describe());
  spec.on(context.runtime().io()).access(data, access.mode);
  for (std::size_t i = 1; i < op.accesses.size(); ++i)
    spec.access(context.chunk(op.accesses[i]), op.accesses[i].mode);
  runtime::ChunkStaging& staging = context.staging();
  context.submit(
      std::move(spec),
      [&staging, data, box, read](runtime::TaskContext& task) {
        const memory::ChunkView view = staging.view(task, data);
        std::span<std::byte> bytes(static_cast<std::byte*>(view.host), view.bytes);
        if (read) {
          store::read_hdf5_box(box.path, box.dataset, box.region(), box.type, bytes);
        } else {
          store::write_hdf5_box_at(box.path, box.dataset, box.data_offset, box.shape, box.region(),
                                   box.type, bytes);
        }
      },
      op.accesses);
}

}  // namespace

void hdf5_read_kind(cluster::PlanContext& context, const cluster::PlanOp& op) {
  submit_io(context, op, true);
}

void hdf5_write_kind(cluster::PlanContext& context, const cluster::PlanOp& op) {
  submit_io(context, op, false);
}

}  // namespace strata::array::detail
