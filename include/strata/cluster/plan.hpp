#pragma once
// Plans: what the driver sends a rank to execute — operations on chunks, and the matched sends
// and receives that move chunks between ranks (lightning's per-worker DAGs, whose dependencies are
// all local: a rank orders its operations by the chunks they access, in plan order).

#include <cstdint>
#include <string>
#include <vector>

#include "strata/runtime/data_handle.hpp"

namespace strata::cluster {

// One chunk an operation touches, with what a rank needs to create its local copy.
struct PlannedAccess {
  std::uint64_t chunk = 0;
  std::uint64_t bytes = 0;
  std::string name;
  runtime::Access mode = runtime::Access::read;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(chunk, bytes, name, mode);
  }
};

enum class OpKind : std::uint8_t {
  execute,    // run a defined operation on the CPU pool
  send,       // send the chunk (accesses[0]) to `peer` as transfer `transfer`
  receive,    // receive the chunk from `peer`: this rank's copy becomes a valid replica
  drop,       // forget this rank's copy (a stale replica) once its local users finished
  write_in,   // write `args` (the driver's bytes) into the chunk
  read_back,  // copy the chunk's bytes out to the driver (on the driver's rank)
};

struct PlanOp {
  OpKind kind = OpKind::execute;
  std::uint64_t id = 0;   // unique in the program
  std::string operation;  // execute: the defined operation's name
  std::string args;       // execute: encoded arguments; write_in: the bytes
  std::vector<PlannedAccess> accesses;
  int peer = -1;               // send / receive
  std::uint64_t transfer = 0;  // send / receive: matches the two sides

  template <class Archive>
  void serialize(Archive& archive) {
    archive(kind, id, operation, args, accesses, peer, transfer);
  }
};

struct Plan {
  std::vector<PlanOp> ops;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(ops);
  }
};

// A rank's report of how many planned operations it finished (and the first failure, if any).
struct Progress {
  std::uint64_t finished = 0;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(finished);
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
