#pragma once
// Program: one Strata program over a cluster, on the parts of a node (strata/node/node.hpp builds
// them; `node.program()`). Every rank defines the same operations; run() then executes the user's
// main on rank 0 (the driver) while the other ranks execute their part of the plans.
//
// Failure: when any rank fails (a task throws, the rank aborts or is killed), the driver prints
// which rank failed and its error and every rank exits non-zero — never a hang.

#include <functional>
#include <memory>
#include <string>

#include "strata/base/config.hpp"
#include "strata/cluster/device_load.hpp"
#include "strata/cluster/driver.hpp"
#include "strata/cluster/network.hpp"
#include "strata/cluster/operation.hpp"
#include "strata/cluster/plan_kinds.hpp"
#include "strata/cluster/stage.hpp"
#include "strata/memory/memory_manager.hpp"
#include "strata/runtime/chunk_staging.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::cluster {

// The configuration of one rank: with several ranks each writes its own trace ("run.json"
// becomes "run.rank1.json").
Config config_for_rank(Config config, int rank, int size);

// The parts of a process a program plans onto; they outlive the program.
struct ProgramParts {
  Network& network;
  runtime::Runtime& runtime;
  memory::MemoryManager& memory;
  runtime::ChunkStaging& staging;
  runtime::ExecutorId network_executor;  // the network's executor in `runtime`
};

class Program {
 public:
  explicit Program(ProgramParts parts);
  // Waits for this program's tasks; its message handlers run no more.
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  int rank() const;
  int size() const;
  bool is_driver() const { return rank() == 0; }

  // Defines an operation plans can run by name; call the same definitions on every rank.
  void define(std::string name, Operation operation);
  // Defines a kind of plan operation (plan_kinds.hpp) by name; the same ones on every rank,
  // before run(). "copy_box" and "combine" are defined already.
  void define_kind(std::string name, PlanKind kind);
  // Defines a stage (stage.hpp: a plan operation that builds a graph of fine-grain tasks) by
  // name; the same ones on every rank, before run().
  void define_stage(std::string name, Stage stage);
  // Replaces a defined kind with a variant of it (PlanKindTable::extend), before run(): the
  // node's device variants of "copy_box" and "combine".
  void extend_kind(const std::string& name, const std::function<PlanKind(PlanKind)>& extend);
  // Installs what reads this rank's devices' loads (free memory, unfinished operations), before
  // run(): every rank reports them with its progress, the driver keeps them (Driver::loads). The
  // node installs one. It is called from the plan thread and from finishing tasks: keep it
  // short, and do not wait in it.
  void set_load_reporter(LoadReporter reporter);
  // Operations of plans this rank submitted with `executor` as their one executor, not finished
  // yet (0 before run()): what a load reporter counts as queued on a device.
  std::uint64_t unfinished_on(runtime::ExecutorId executor) const;

  // Rank 0 runs `main` and then waits for every planned operation; the other ranks execute
  // plans until the driver ends. Returns the process's exit status (0 on success); on a failure
  // anywhere, prints it and ends every rank with a non-zero status.
  int run(const std::function<void(Driver&)>& main);

  Network& network();
  runtime::Runtime& runtime();
  memory::MemoryManager& memory();

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

}  // namespace strata::cluster
