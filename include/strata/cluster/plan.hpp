#pragma once
// Plans: what the driver sends a rank to execute — operations on chunks, and the matched sends
// and receives that move chunks between ranks (lightning's per-worker DAGs, whose dependencies are
// all local: a rank orders its operations by the chunks they access, in plan order).

#include <cstdint>
#include <string>
#include <vector>

#include "strata/cluster/device_load.hpp"
#include "strata/runtime/data_handle.hpp"

namespace strata::cluster {

// One chunk an operation touches, with what a rank needs to create its local copy.
struct PlannedAccess {
  std::uint64_t chunk = 0;
  std::uint64_t bytes = 0;  // a late-sized chunk's capacity
  std::string name;
  runtime::Access mode = runtime::Access::read;
  // Late-sized (Driver::create_late_chunk): its writer sets its size, readers see that size.
  bool late = false;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(chunk, bytes, name, mode, late);
  }
};

// The kinds of operation the cluster layer executes itself; the node and front ends register
// more by name (plan_kinds.hpp).
namespace op_kinds {
inline constexpr const char* execute = "execute";      // run a defined operation on the CPU pool
inline constexpr const char* send = "send";            // send accesses[0] to `peer` as `transfer`
inline constexpr const char* receive = "receive";      // receive it: this copy becomes a replica
inline constexpr const char* drop = "drop";            // forget this rank's copy after its users
inline constexpr const char* write_in = "write_in";    // write `args` (the driver's bytes) into it
inline constexpr const char* read_back = "read_back";  // copy its bytes out to the driver
inline constexpr const char* read_size = "read_size";  // tell the driver its (late) size
}  // namespace op_kinds

struct PlanOp {
  std::string kind = op_kinds::execute;
  std::uint64_t id = 0;   // unique in the program
  std::string operation;  // execute: the defined operation's name; other kinds: a label
  std::string args;       // encoded arguments; write_in: the bytes
  std::vector<PlannedAccess> accesses;
  int peer = -1;  // send / receive
  // send / receive: matches the two sides. A late-sized chunk's size travels first as
  // `transfer`, its bytes (that many) then as `transfer + 1`.
  std::uint64_t transfer = 0;
  // Another rank waits on it (it writes what leaves the rank, or packs or unpacks a box between
  // ranks): its tasks run before other ready tasks of their executors.
  bool urgent = false;
  // The driver hears at once when it finished (Driver::plan_tracked): its id comes back in the
  // rank's next progress report, sent as soon as the operation's tasks all ended.
  bool tracked = false;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(kind, id, operation, args, accesses, peer, transfer, urgent, tracked);
  }
};

struct Plan {
  std::vector<PlanOp> ops;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(ops);
  }
};

// A rank's report of how many planned operations it finished, and its devices' loads then
// (empty when the rank has no load reporter).
struct Progress {
  std::uint64_t finished = 0;
  std::vector<DeviceLoad> devices;
  std::vector<std::uint64_t> tracked;  // tracked operations (PlanOp::tracked) that finished

  template <class Archive>
  void serialize(Archive& archive) {
    archive(finished, devices, tracked);
  }
};

// What a rank read for the driver (read_size: the chunk's size), for operation `op`.
struct ReadResult {
  std::uint64_t op = 0;
  std::vector<std::byte> bytes;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(op, bytes);
  }
};

// What a failed rank tells the driver.
struct FailureReport {
  std::string task;
  std::string message;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(task, message);
  }
};

}  // namespace strata::cluster
