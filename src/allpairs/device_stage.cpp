#include "device_stage.hpp"

#include <algorithm>

namespace strata::allpairs::detail {

void DeviceStage::time(const device::Event& event, std::chrono::steady_clock::time_point since,
                       std::function<void(double)> timed) {
  event.on_complete([this, since, timed = std::move(timed)](std::exception_ptr) {
    const auto end = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point start;
    {
      std::lock_guard guard(lock_);
      start = std::max(since, last_end_);
      last_end_ = end;
    }
    timed(std::chrono::duration<double>(end - start).count());
  });
}

}  // namespace strata::allpairs::detail
