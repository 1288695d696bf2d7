#pragma once
// Spare access lists: TaskSpec's vectors of data accesses are reused on the submitting thread, so
// that declaring an access allocates nothing once a few tasks were submitted from that thread.

#include <utility>
#include <vector>

#include "strata/runtime/task.hpp"

namespace strata::runtime::detail {

// A few emptied lists with their buffers, per thread.
class SpareAccessLists {
 public:
  // An empty list, with a buffer when one is spare.
  static std::vector<DataAccess> take() {
    auto& spares = local();
    if (spares.empty()) return {};
    std::vector<DataAccess> list = std::move(spares.back());
    spares.pop_back();
    return list;
  }
  // Keeps the buffer of `list` (a submitted spec's, its elements moved out) for a later take().
  static void give(std::vector<DataAccess>&& list) {
    if (list.capacity() == 0 || list.capacity() > max_kept_capacity) return;
    auto& spares = local();
    if (spares.size() >= max_spares) return;
    list.clear();
    spares.push_back(std::move(list));
  }

 private:
  static constexpr std::size_t max_spares = 16;
  static constexpr std::size_t max_kept_capacity = 16;
  static std::vector<std::vector<DataAccess>>& local() {
    thread_local std::vector<std::vector<DataAccess>> spares;
    return spares;
  }
};

}  // namespace strata::runtime::detail
