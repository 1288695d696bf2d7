#pragma once
// Stages: a plan operation whose body builds a local graph of fine-grain tasks on the rank that
// runs it (the region-templates paper's hierarchical dataflow, §3.3). The operation ends when all
// of them have; the chunks it wrote are then what later operations on any rank read. Define a
// stage on every rank (Program::define_stage); plan an instance with plan_stage() or hand many
// out over the ranks with a StageGraph (stage_graph.hpp).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strata/cluster/driver.hpp"
#include "strata/cluster/plan_kinds.hpp"
#include "strata/cluster/serialization.hpp"
#include "strata/runtime/chunk_staging.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::cluster {

// What a stage's body reaches on the rank that runs the instance. The body runs on the rank's
// plan thread, in plan order: it submits tasks and never waits for them; data-dependent work
// goes inside the tasks. The context lives only while the body runs: tasks capture the handles
// and staging(), runtime(), memory() (which outlive them), not the context.
class StageContext {
 public:
  StageContext(PlanContext& plan, const PlanOp& op, std::string stage, const std::string& args);
  ~StageContext();
  StageContext(const StageContext&) = delete;
  StageContext& operator=(const StageContext&) = delete;

  int rank() const { return plan_.rank(); }
  // The stage's name (Program::define_stage) and this instance's label (traces, errors).
  const std::string& stage() const { return stage_; }
  const std::string& label() const { return op_.operation; }
  template <class T>
  T args() const {
    return decode<T>(std::as_bytes(std::span(args_.data(), args_.size())),
                     "the arguments of a stage");
  }
  // The instance's chunks, in the order of its uses, and how it declared each.
  std::size_t chunk_count() const { return op_.accesses.size(); }
  runtime::DataHandle chunk(std::size_t index) const;
  runtime::Access mode(std::size_t index) const;
  // Its bytes (a late-sized chunk's capacity).
  std::uint64_t bytes(std::size_t index) const;
  // Data of this instance alone (intermediate images, say), freed once the instance ended.
  runtime::DataHandle scratch(std::string name, std::uint64_t bytes);
  // Submits one fine-grain task, named "<label>/<spec.name>". Its declared accesses may name the
  // instance's chunks (a chunk it declared read is only read) and its scratch; its executors
  // may be several (the rank's placement policy picks, e.g. a CPU core or a device). Returns the
  // handle, for later tasks' after().
  runtime::TaskHandle submit(runtime::TaskSpec spec, runtime::TaskFunction body);

  runtime::Runtime& runtime() { return plan_.runtime(); }
  // Where a running task finds a chunk or scratch it declared: staging().view(task, data).
  runtime::ChunkStaging& staging() { return plan_.staging(); }
  memory::MemoryManager& memory() { return plan_.memory(); }

  // Submits the task that ends the instance (after every fine-grain task); called by the kind.
  void finish();

 private:
  PlanContext& plan_;
  const PlanOp& op_;
  std::string stage_;
  const std::string& args_;
  std::map<std::uint64_t, std::size_t> chunk_of_handle_;  // DataHandle id -> access index
  std::vector<runtime::ChunkData> scratch_;
  std::vector<runtime::TaskHandle> parts_;
  bool finished_ = false;
};

using Stage = std::function<void(StageContext&)>;

// The stages defined by name; the "stage" plan kind runs them.
class StageTable {
 public:
  // Throws if `name` is defined already.
  void define(std::string name, Stage stage);
  // Throws naming the stage and what is defined when `name` is not.
  const Stage& find(const std::string& name) const;

 private:
  std::map<std::string, Stage> stages_;
};

// What a "stage" operation carries: the stage's name and its encoded arguments.
struct StageCall {
  std::string stage;
  std::string args;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(stage, args);
  }
};

inline constexpr const char* stage_kind = "stage";

// Registers the "stage" kind, which runs the stages of `stages` (kept alive by the caller).
void define_stage_kind(PlanKindTable& kinds, const StageTable& stages);

// Plans one instance of `stage` on `rank` with the chunks of `uses` and encoded arguments, as a
// tracked operation (Driver::plan_tracked); returns its id. `label` defaults to the stage's name.
std::uint64_t plan_stage(Driver& driver, int rank, const std::string& stage,
                         const std::vector<Use>& uses, std::string args = {},
                         std::string label = {});
template <class Args>
std::uint64_t plan_stage_with(Driver& driver, int rank, const std::string& stage,
                              const std::vector<Use>& uses, const Args& args,
                              std::string label = {}) {
  const std::vector<std::byte> bytes = encode(args);
  return plan_stage(driver, rank, stage, uses,
                    std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                    std::move(label));
}

}  // namespace strata::cluster
