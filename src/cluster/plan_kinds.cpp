#include "strata/cluster/plan_kinds.hpp"

#include <cstring>

#include "strata/base/error.hpp"
#include "strata/cluster/serialization.hpp"

namespace strata::cluster {

void PlanKindTable::define(std::string name, PlanKind kind) {
  if (name.empty()) throw Error("a plan operation kind needs a name");
  if (!kind) throw Error("plan operation kind '" + name + "' has no handler");
  if (!kinds_.emplace(name, std::move(kind)).second) {
    throw Error("plan operation kind '" + name + "' is defined twice");
  }
}

void PlanKindTable::extend(const std::string& name,
                           const std::function<PlanKind(PlanKind)>& extend) {
  auto it = kinds_.find(name);
  if (it == kinds_.end()) {
    throw Error("plan operation kind '" + name + "' is extended but not defined");
  }
  PlanKind extended = extend(it->second);
  if (!extended) throw Error("plan operation kind '" + name + "' is extended by no handler");
  it->second = std::move(extended);
}

const PlanKind& PlanKindTable::find(const std::string& name) const {
  auto it = kinds_.find(name);
  if (it != kinds_.end()) return it->second;
  std::string defined;
  for (const auto& [known, kind] : kinds_)
    defined += (defined.empty() ? "" : ", ") + known;
  throw Error("unknown plan operation kind '" + name +
              "' (defined: " + (defined.empty() ? std::string("none") : defined) + ")");
}

namespace {

std::span<std::byte> bytes_of(const memory::ChunkView& view) {
  return {static_cast<std::byte*>(view.host), view.bytes};
}

void copy_box_kind(PlanContext& context, const PlanOp& op) {
  const auto args = decode<BoxCopy>(std::as_bytes(std::span(op.args.data(), op.args.size())),
                                    "the arguments of a box copy");
  if (op.accesses.size() != 2) {
    throw Error("a box copy declares 2 chunks, not " + std::to_string(op.accesses.size()));
  }
  const PlannedAccess& from = op.accesses[0];
  const PlannedAccess& to = op.accesses[1];
  args.from.check(args.element_bytes, from.bytes, "box copy from chunk '" + from.name + "'");
  args.to.check(args.element_bytes, to.bytes, "box copy into chunk '" + to.name + "'");
  const runtime::DataHandle source = context.chunk(from);
  const runtime::DataHandle target = context.chunk(to);
  runtime::TaskSpec spec("copy " + args.from.describe() + " of " + from.name + " to " +
                         args.to.describe() + " of " + to.name);
  spec.reads(source).access(target, to.mode);
  runtime::ChunkStaging& staging = context.staging();
  context.submit(
      std::move(spec),
      [&staging, source, target, args](runtime::TaskContext& task) {
        memory::copy_box(bytes_of(staging.view(task, source)), args.from,
                         bytes_of(staging.view(task, target)), args.to, args.element_bytes);
      },
      op.accesses);
}

void combine_kind(PlanContext& context, const PlanOp& op) {
  const auto args = decode<Combine>(std::as_bytes(std::span(op.args.data(), op.args.size())),
                                    "the arguments of a combine step");
  if (op.accesses.size() < 2) throw Error("a combine step declares at least 2 chunks");
  std::vector<runtime::DataHandle> data;
  runtime::TaskSpec spec("combine " + std::string(memory::to_string(args.op)) + " into " +
                         op.accesses[0].name);
  for (std::size_t i = 0; i < op.accesses.size(); ++i) {
    const PlannedAccess& access = op.accesses[i];
    if (access.bytes != op.accesses[0].bytes) {
      throw Error("combining chunk '" + access.name + "' of " + std::to_string(access.bytes) +
                  " bytes into '" + op.accesses[0].name + "' of " +
                  std::to_string(op.accesses[0].bytes));
    }
    data.push_back(context.chunk(access));
    spec.access(data.back(), i == 0 ? access.mode : runtime::Access::read);
  }
  runtime::ChunkStaging& staging = context.staging();
  context.submit(
      std::move(spec),
      [&staging, data, args](runtime::TaskContext& task) {
        const std::span<std::byte> into = bytes_of(staging.view(task, data[0]));
        std::size_t next = 1;
        if (args.assign) {
          const std::span<std::byte> first = bytes_of(staging.view(task, data[1]));
          std::memcpy(into.data(), first.data(), into.size());
          next = 2;
        }
        for (; next < data.size(); ++next)
          memory::combine(args.op, args.type, into, bytes_of(staging.view(task, data[next])));
      },
      op.accesses);
}

}  // namespace

void define_data_kinds(PlanKindTable& kinds) {
  kinds.define("copy_box", copy_box_kind);
  kinds.define("combine", combine_kind);
}

}  // namespace strata::cluster
