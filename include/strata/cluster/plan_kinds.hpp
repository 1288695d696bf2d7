#pragma once
// Plan operation kinds: what a rank does with one operation of a plan, registered by name. The
// cluster layer registers the box copy and the reduction's combine step; the node registers
// kernel launches; a front end registers what it needs (Program::define_kind) — there is no
// central switch to edit.

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strata/cluster/plan.hpp"
#include "strata/memory/box.hpp"
#include "strata/memory/combine.hpp"
#include "strata/runtime/chunk_staging.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::cluster {

// What a kind's handler reaches on the rank that executes the operation. Handlers run on the
// rank's plan thread, in plan order: they submit tasks and never wait for them.
class PlanContext {
 public:
  virtual ~PlanContext() = default;
  virtual int rank() const = 0;
  virtual runtime::Runtime& runtime() = 0;
  virtual runtime::ChunkStaging& staging() = 0;
  // The rank's memory manager: a task that writes a late-sized chunk sets its size there
  // (MemoryManager::set_size on its view's chunk) before it ends.
  virtual memory::MemoryManager& memory() = 0;
  // This rank's copy of a planned chunk (made on first use): the handle its tasks declare.
  virtual runtime::DataHandle chunk(const PlannedAccess& access) = 0;
  // The executor of the last task planned on this rank that wrote the chunk (when it named
  // one): where its current contents will be, so a device variant of a kind can run there.
  virtual std::optional<runtime::ExecutorId> writer_executor(const PlannedAccess& access) = 0;
  // Submits the operation's task (its spec declares the chunks' handles as the accesses say):
  // its end counts toward the rank's progress and a failure is reported to the driver.
  // `accesses` are the chunks it touches.
  virtual runtime::TaskHandle submit(runtime::TaskSpec spec, runtime::TaskFunction body,
                                     std::span<const PlannedAccess> accesses) = 0;
  // One task of an operation that runs as several: tracked as submit()'s are (its chunks' users,
  // its failure reported), but the operation ends with the task it submits with submit(), which
  // must follow its parts (TaskSpec::after).
  virtual runtime::TaskHandle submit_part(runtime::TaskSpec spec, runtime::TaskFunction body,
                                          std::span<const PlannedAccess> accesses) = 0;
};

using PlanKind = std::function<void(PlanContext&, const PlanOp&)>;

// The kinds defined by name; define the same ones on every rank.
class PlanKindTable {
 public:
  // Throws if `name` is defined already.
  void define(std::string name, PlanKind kind);
  // Replaces kind `name` (throws if it is not defined) with what `extend` makes of it: a variant
  // (on a device, say) that hands the operations it does not take to the kind it extends.
  void extend(const std::string& name, const std::function<PlanKind(PlanKind)>& extend);
  // Throws naming the kind and what is defined when `name` is not.
  const PlanKind& find(const std::string& name) const;
  bool contains(const std::string& name) const { return kinds_.count(name) != 0; }

 private:
  std::map<std::string, PlanKind> kinds_;
};

// Arguments of "copy_box": the box read and the box written (the same extents).
struct BoxCopy {
  memory::Box from;
  memory::Box to;
  std::uint32_t element_bytes = 1;
  // The rank's device to copy on (the node's devices); -1: where the chunks' last writers ran
  // (a device when they both ran on it, else the host).
  std::int32_t device = -1;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(from, to, element_bytes, device);
  }
};

// Arguments of "copy_boxes": box copies among the operation's chunks, done in order by one task
// (a launch's halo updates: the cost of a task paid once for all of them). Each step names the
// accesses it reads and writes by their index in the operation.
struct BoxCopies {
  struct Step {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    memory::Box from_box;
    memory::Box to_box;
    std::uint32_t element_bytes = 1;

    template <class Archive>
    void serialize(Archive& archive) {
      archive(from, to, from_box, to_box, element_bytes);
    }
  };
  std::vector<Step> steps;
  std::int32_t device = -1;  // as BoxCopy::device, for every step

  template <class Archive>
  void serialize(Archive& archive) {
    archive(steps, device);
  }
};

// The copies of a "copy_box" (BoxCopy arguments; accesses from, to) or "copy_boxes" operation,
// each step checked against the sizes of its chunks; throws naming them.
BoxCopies box_copies_of(const PlanOp& op);
// A task name for the copies of `op` (`copies` from box_copies_of).
std::string describe_box_copies(const PlanOp& op, const BoxCopies& copies);

// Arguments of "combine": accesses[0] op= accesses[1], accesses[2], ...; with `assign`,
// accesses[0] (written, not read) first takes accesses[1]'s bytes. The node runs it on the
// device where the partials' last writers ran when they all ran on one device.
struct Combine {
  memory::ReduceOp op = memory::ReduceOp::sum;
  device::ElementType type = device::ElementType::f64;
  bool assign = false;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(op, type, assign);
  }
};

// Registers the cluster layer's data kinds: "copy_box" (a box of accesses[0] into a box of
// accesses[1], BoxCopy arguments), "copy_boxes" (BoxCopies arguments) and "combine" (accesses[1..]
// into accesses[0] with a reduction operator, Combine arguments).
void define_data_kinds(PlanKindTable& kinds);

}  // namespace strata::cluster
