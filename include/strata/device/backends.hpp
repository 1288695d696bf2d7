#pragma once
// Device discovery: the CPU device and whatever OpenCL and CUDA devices this build and machine
// have, chosen by the configuration (backends, OpenCL platform / type / device).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "strata/base/config.hpp"
#include "strata/device/device.hpp"
#include "strata/device/program_cache.hpp"
#include "strata/device/settings.hpp"

namespace strata::device {

// Runs `blocks` independent pieces of a CPU kernel, possibly in parallel, and returns when all
// are done. The runtime passes one that uses its CPU pool; the default uses a few threads of its
// own. Blocks are claimed in increasing order, and a thread runs the blocks it claimed without
// waiting for a later one: a block may wait for an earlier block's result (a chained scan does).
class BlockRunner {
 public:
  virtual ~BlockRunner() = default;
  virtual void run(std::uint64_t blocks, const std::function<void(std::uint64_t)>& body) = 0;
};
std::shared_ptr<BlockRunner> default_block_runner();

// What discovery found per backend, for `strata info` and for skipped tests.
struct BackendReport {
  BackendKind backend;
  bool built = false;       // compiled into this build
  bool enabled = false;     // listed in the `backends` setting
  std::string status;       // "2 devices", or why there are none
  std::size_t devices = 0;  // devices discovered
};

// Everything discovery produced.
struct DeviceSet {
  std::vector<std::unique_ptr<Device>> devices;
  std::vector<BackendReport> reports;
  std::shared_ptr<ProgramCache> cache;
};

// Discovers devices as `config` says; never throws for a missing backend or device (the report
// says why), only for malformed settings.
DeviceSet discover_devices(const Config& config,
                           std::shared_ptr<BlockRunner> cpu_runner = default_block_runner());

// Per-backend factories (each returns an empty list with a reason when it has no device).
std::unique_ptr<Device> make_cpu_device(std::shared_ptr<BlockRunner> runner);
std::vector<std::unique_ptr<Device>> discover_opencl_devices(const Config& config,
                                                             std::shared_ptr<ProgramCache> cache,
                                                             std::string& status);
std::vector<std::unique_ptr<Device>> discover_cuda_devices(const Config& config,
                                                           std::shared_ptr<ProgramCache> cache,
                                                           std::string& status);
bool opencl_built();
bool cuda_built();

}  // namespace strata::device
