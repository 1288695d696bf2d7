#pragma once
// do_while (the dandelion paper's DoWhile): a loop over a data set whose body and condition are
// data-set queries. The host never reads the data between iterations: it asks only whether the
// condition's data set is empty (its blocks' sizes), and plans the next iteration before it
// asks, so the ranks go on while the answer travels. Each iteration's output can be
// checkpointed to a file; a loop resumed from it continues from that iteration.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "strata/dataset/datasets.hpp"

namespace strata::dataset {

struct LoopOptions {
  std::uint32_t max_iterations = 1000;
  // A file that holds the output of the last iteration done (written whole, then renamed into
  // place, so a killed run leaves the previous one); empty: none.
  std::string checkpoint;
  // Start from the checkpoint when the file exists.
  bool resume = false;
  // Called on the driver after each iteration, with the iterations done so far.
  std::function<void(std::uint32_t)> on_iteration;
};

struct LoopReport {
  std::uint32_t iterations = 0;     // done, counting those before a resume
  std::uint32_t resumed_after = 0;  // the checkpoint's iteration (0: started from the input)
  bool converged = false;           // the condition ended it, not max_iterations
};

// A checkpoint: the iteration it follows, its records' bytes, and whether the loop ended there
// (its condition said stop: a resumed loop returns these records as they are).
struct Checkpoint {
  std::uint32_t iteration = 0;
  std::uint32_t record_bytes = 0;
  std::vector<std::byte> records;
  bool finished = false;
};
// Writes `checkpoint` to `path` (path + ".part" first, synced, then renamed).
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);
// The checkpoint in `path`, or nullopt when there is none; a damaged file is an error naming it.
std::optional<Checkpoint> read_checkpoint(const std::string& path);

// Runs next = body(current) until condition(current, next) gives an empty data set (or
// max_iterations); returns the last `next`.
template <Record T, typename Body, typename Condition>
Dataset<T> do_while(Datasets& datasets, const Dataset<T>& initial, Body body, Condition condition,
                    const LoopOptions& options = {}, LoopReport* report = nullptr) {
  LoopReport done;
  Dataset<T> current = initial;
  if (options.resume && !options.checkpoint.empty()) {
    if (const auto saved = read_checkpoint(options.checkpoint)) {
      if (saved->record_bytes != sizeof(T)) {
        throw Error("do_while: checkpoint '" + options.checkpoint + "' holds " +
                    std::to_string(saved->record_bytes) + "-byte records, not " +
                    std::to_string(sizeof(T)));
      }
      current = Dataset<T>(datasets.create(initial.name() + " (resumed)", sizeof(T), saved->records,
                                           initial.block_count()));
      done.iterations = done.resumed_after = saved->iteration;
      if (saved->finished) {
        done.converged = true;
        if (report) *report = done;
        return current;
      }
    }
  }
  if (done.iterations >= options.max_iterations) {
    if (report) *report = done;
    return current;
  }
  Dataset<T> next = body(current);
  auto flag = condition(current, next);
  for (;;) {
    // The next iteration is planned before this one's condition is known: if it says stop, the
    // planned one is dropped unread.
    std::optional<Dataset<T>> ahead;
    std::optional<decltype(flag)> ahead_flag;
    if (done.iterations + 1 < options.max_iterations) {
      ahead = body(next);
      ahead_flag = condition(next, *ahead);
    }
    const bool go_on = flag.count() != 0;
    ++done.iterations;
    if (!options.checkpoint.empty()) {
      write_checkpoint(options.checkpoint,
                       {done.iterations, sizeof(T), datasets.collect_blocks(next.state()), !go_on});
    }
    if (options.on_iteration) options.on_iteration(done.iterations);
    if (!go_on || !ahead) {
      done.converged = !go_on;
      if (report) *report = done;
      return next;
    }
    current = std::move(next);
    next = std::move(*ahead);
    flag = std::move(*ahead_flag);
  }
}

}  // namespace strata::dataset
