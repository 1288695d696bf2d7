#pragma once
// DeviceLoad: how loaded one device of a rank is — what the driver needs to place new chunks and
// work where memory is free and little is queued. Each rank reports its devices' loads with its
// progress (Program::set_load_reporter); the driver keeps the last report (Driver::loads).

#include <cstdint>
#include <functional>
#include <vector>

namespace strata::cluster {

struct DeviceLoad {
  std::uint64_t free_bytes = 0;  // not in use in the device's memory space
  std::uint64_t queued = 0;      // planned operations on the device not finished yet

  bool operator==(const DeviceLoad&) const = default;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(free_bytes, queued);
  }
};

// Reads this rank's devices' loads, in device order (the node installs one).
using LoadReporter = std::function<std::vector<DeviceLoad>()>;

}  // namespace strata::cluster
