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

// Every step's copy on the host, in order, as one task.
void copy_boxes_kind(PlanContext& context, const PlanOp& op) {
  BoxCopies copies = box_copies_of(op);
  std::vector<runtime::DataHandle> data;
  runtime::TaskSpec spec(describe_box_copies(op, copies));
  for (const PlannedAccess& access : op.accesses) {
    data.push_back(context.chunk(access));
    spec.access(data.back(), access.mode);
  }
  runtime::ChunkStaging& staging = context.staging();
  context.submit(
      std::move(spec),
      [&staging, data, steps = std::move(copies.steps)](runtime::TaskContext& task) {
        std::vector<std::span<std::byte>> views;
        for (const runtime::DataHandle& handle : data)
          views.push_back(bytes_of(staging.view(task, handle)));
        for (const BoxCopies::Step& step : steps) {
          memory::copy_box(views[step.from], step.from_box, views[step.to], step.to_box,
                           step.element_bytes);
        }
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

BoxCopies box_copies_of(const PlanOp& op) {
  const auto args = std::as_bytes(std::span(op.args.data(), op.args.size()));
  BoxCopies copies;
  if (op.kind == "copy_box") {
    if (op.accesses.size() != 2) {
      throw Error("a box copy declares 2 chunks, not " + std::to_string(op.accesses.size()));
    }
    const auto copy = decode<BoxCopy>(args, "the arguments of a box copy");
    copies.steps.push_back({0, 1, copy.from, copy.to, copy.element_bytes});
    copies.device = copy.device;
  } else {
    copies = decode<BoxCopies>(args, "the arguments of box copies");
  }
  for (const BoxCopies::Step& step : copies.steps) {
    if (step.from >= op.accesses.size() || step.to >= op.accesses.size() || step.from == step.to) {
      throw Error("a box copy of operation '" + op.operation + "' names chunks " +
                  std::to_string(step.from) + " and " + std::to_string(step.to) + " of " +
                  std::to_string(op.accesses.size()));
    }
    const PlannedAccess& from = op.accesses[step.from];
    const PlannedAccess& to = op.accesses[step.to];
    step.from_box.check(step.element_bytes, from.bytes, "box copy from chunk '" + from.name + "'");
    step.to_box.check(step.element_bytes, to.bytes, "box copy into chunk '" + to.name + "'");
  }
  return copies;
}

std::string describe_box_copies(const PlanOp& op, const BoxCopies& copies) {
  if (copies.steps.size() == 1) {
    const BoxCopies::Step& step = copies.steps[0];
    return "copy " + step.from_box.describe() + " of " + op.accesses[step.from].name + " to " +
           step.to_box.describe() + " of " + op.accesses[step.to].name;
  }
  return "copy " + std::to_string(copies.steps.size()) + " boxes among " +
         std::to_string(op.accesses.size()) + " chunks (" + op.accesses.front().name + ", ...)";
}

void define_data_kinds(PlanKindTable& kinds) {
  kinds.define("copy_box", copy_boxes_kind);
  kinds.define("copy_boxes", copy_boxes_kind);
  kinds.define("combine", combine_kind);
}

}  // namespace strata::cluster
