#include "strata/cluster/stage.hpp"

#include <utility>

#include "strata/base/error.hpp"

namespace strata::cluster {

namespace {
bool stage_writes(runtime::Access mode) {
  return mode != runtime::Access::read;
}
}  // namespace

StageContext::StageContext(PlanContext& plan, const PlanOp& op, std::string stage,
                           const std::string& args)
    : plan_(plan), op_(op), stage_(std::move(stage)), args_(args) {
  for (std::size_t i = 0; i < op_.accesses.size(); ++i)
    chunk_of_handle_[plan_.chunk(op_.accesses[i]).id()] = i;
}

StageContext::~StageContext() {
  // A body that threw before finish(): its scratch goes once the tasks it submitted ended.
  if (!finished_ && !scratch_.empty()) {
    runtime::TaskSpec spec(label() + "/free scratch");
    spec.after(parts_);
    plan_.runtime().submit(std::move(spec),
                           [&staging = plan_.staging(), scratch = scratch_](runtime::TaskContext&) {
                             for (const runtime::ChunkData& data : scratch)
                               staging.destroy_data(data);
                           });
  }
}

runtime::DataHandle StageContext::chunk(std::size_t index) const {
  if (index >= op_.accesses.size()) {
    throw Error("stage '" + label() + "' has " + std::to_string(op_.accesses.size()) +
                " chunk(s); chunk " + std::to_string(index) + " asked for");
  }
  return plan_.chunk(op_.accesses[index]);
}

runtime::Access StageContext::mode(std::size_t index) const {
  chunk(index);  // checks the index
  return op_.accesses[index].mode;
}

std::uint64_t StageContext::bytes(std::size_t index) const {
  chunk(index);
  return op_.accesses[index].bytes;
}

runtime::DataHandle StageContext::scratch(std::string name, std::uint64_t bytes) {
  scratch_.push_back(plan_.staging().create_data(label() + "/" + name, bytes));
  return scratch_.back().data;
}

runtime::TaskHandle StageContext::submit(runtime::TaskSpec spec, runtime::TaskFunction body) {
  if (finished_) throw Error("stage '" + label() + "': a task submitted after it finished");
  spec.name = label() + "/" + spec.name;
  std::vector<PlannedAccess> accesses;
  for (const runtime::DataAccess& access : spec.accesses) {
    auto it = chunk_of_handle_.find(access.data.id());
    if (it != chunk_of_handle_.end()) {
      const PlannedAccess& declared = op_.accesses[it->second];
      if (stage_writes(access.mode) && !stage_writes(declared.mode)) {
        throw Error("stage '" + label() + "': task '" + spec.name + "' writes chunk '" +
                    declared.name + "', which the stage only reads");
      }
      accesses.push_back(declared);
      continue;
    }
    bool own = false;
    for (const runtime::ChunkData& data : scratch_)
      own = own || data.data.id() == access.data.id();
    if (!own) {
      throw Error("stage '" + label() + "': task '" + spec.name +
                  "' declares data that is neither the stage's chunks nor its scratch");
    }
  }
  runtime::TaskHandle task = plan_.submit_part(std::move(spec), std::move(body), accesses);
  parts_.push_back(task);
  return task;
}

void StageContext::finish() {
  if (finished_) return;
  finished_ = true;
  runtime::TaskSpec spec(label());
  spec.after(parts_);
  plan_.submit(
      std::move(spec),
      [&staging = plan_.staging(), scratch = std::exchange(scratch_, {})](runtime::TaskContext&) {
        for (const runtime::ChunkData& data : scratch)
          staging.destroy_data(data);
      },
      op_.accesses);
}

void StageTable::define(std::string name, Stage stage) {
  if (!stages_.emplace(name, std::move(stage)).second) {
    throw Error("stage '" + name + "' is defined already");
  }
}

const Stage& StageTable::find(const std::string& name) const {
  auto it = stages_.find(name);
  if (it != stages_.end()) return it->second;
  std::string defined;
  for (const auto& entry : stages_)
    defined += (defined.empty() ? "" : ", ") + entry.first;
  throw Error("unknown stage '" + name + "' (defined: " + (defined.empty() ? "none" : defined) +
              ")");
}

void define_stage_kind(PlanKindTable& kinds, const StageTable& stages) {
  kinds.define(stage_kind, [&stages](PlanContext& plan, const PlanOp& op) {
    const auto call = decode<StageCall>(std::as_bytes(std::span(op.args.data(), op.args.size())),
                                        "a stage operation");
    const Stage& stage = stages.find(call.stage);
    StageContext context(plan, op, call.stage, call.args);
    try {
      stage(context);
    } catch (const std::exception& error) {
      throw Error("stage '" + op.operation + "' on rank " + std::to_string(plan.rank()) +
                  " failed while building its tasks: " + error.what());
    }
    context.finish();
  });
}

std::uint64_t plan_stage(Driver& driver, int rank, const std::string& stage,
                         const std::vector<Use>& uses, std::string args, std::string label) {
  const std::vector<std::byte> call = encode(StageCall{stage, std::move(args)});
  return driver.plan_tracked(rank, stage_kind, uses,
                             std::string(reinterpret_cast<const char*>(call.data()), call.size()),
                             label.empty() ? stage : std::move(label));
}

}  // namespace strata::cluster
