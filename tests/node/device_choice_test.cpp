// Kernel launches whose device the rank picks at run time: a launch that may run on any device
// of the rank (CPU and OpenCL where PoCL is installed) gets one from the placement policy the
// configuration names; the results are the same wherever each launch ran, a device without an
// implementation of the kernel never gets it, wrong speedups still give right results, run
// times are learned into a history file kept across runs, and the trace says why.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>

#include "strata/base/error.hpp"
#include "strata/node/node.hpp"

namespace strata::node {
namespace {

using cluster::ChunkRef;
using runtime::Access;

device::KernelDefinition axpy_kernel(bool with_opencl) {
  device::KernelDefinition kernel("axpy");
  kernel.scalar<std::uint32_t>("n")
      .scalar<float>("a")
      .array<float>("x", device::ParamAccess::read)
      .array<float>("y", device::ParamAccess::read_write)
      .cpu([](const device::CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const auto a = block.scalar<float>(1);
        const float* x = block.array<float>(2);
        float* y = block.array<float>(3);
        for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i)
          y[i] = a * x[i] + y[i];
      });
  if (with_opencl) {
    kernel.opencl(R"(
__kernel void axpy(uint n, float a, __global const float* x, __global float* y) {
  const size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
)");
  }
  return kernel;
}

NodeOptions options_with(const std::string& placement, const std::string& history = {},
                         const std::string& trace = {}) {
  NodeOptions options;
  options.config.section<runtime::RuntimeSettings>().cpu_threads = 2;
  options.config.section<runtime::RuntimeSettings>().placement = placement;
  options.config.section<runtime::RuntimeSettings>().history = history;
  options.config.section<runtime::RuntimeSettings>().trace = trace;
  options.config.section<device::DeviceSettings>().backends = "cpu,opencl";
  options.config.section<device::DeviceSettings>().kernel_cache_dir = "off";
  options.config.section<memory::MemorySettings>().device_capacity = 16ull << 20;
  options.config.section<memory::MemorySettings>().host_capacity = 64ull << 20;
  return options;
}

// Counts the runs of tasks named `name` per executor.
class RunsPerExecutor final : public runtime::TaskObserver {
 public:
  explicit RunsPerExecutor(std::string name) : name_(std::move(name)) {}
  void on_run(const runtime::TaskRun& run) override {
    if (run.name != name_) return;
    std::lock_guard guard(lock_);
    ++runs_[run.executor.index];
  }
  std::map<std::uint32_t, int> runs() const {
    std::lock_guard guard(lock_);
    return runs_;
  }

 private:
  std::string name_;
  mutable std::mutex lock_;
  std::map<std::uint32_t, int> runs_;
};

struct Outcome {
  std::map<std::uint32_t, int> runs;  // per executor index
  bool correct = true;
};

// `launches` axpy launches (a = 2) on chunks of their own, each on any device of the rank with
// the given speedups (0: none); checks y = 2 x + y exactly (small integers in floats).
Outcome run_launches(Node& node, int launches, const std::vector<double>& speedups,
                     std::uint32_t device = KernelLaunch::any_device) {
  constexpr std::uint32_t n = 4096;
  auto observer = std::make_shared<RunsPerExecutor>("kernel axpy");
  node.runtime().add_observer(observer);
  Outcome outcome;
  const int status = node.program().run([&](cluster::Driver& driver) {
    std::vector<ChunkRef> xs, ys;
    for (int l = 0; l < launches; ++l) {
      std::vector<float> x(n), y(n);
      for (std::uint32_t i = 0; i < n; ++i) {
        x[i] = static_cast<float>((i + l) % 100);
        y[i] = static_cast<float>(l);
      }
      xs.push_back(driver.create_chunk("x" + std::to_string(l), n * 4, 0));
      ys.push_back(driver.create_chunk("y" + std::to_string(l), n * 4, 0));
      driver.write(xs.back(), std::as_bytes(std::span(x)));
      driver.write(ys.back(), std::as_bytes(std::span(y)));
    }
    for (int l = 0; l < launches; ++l) {
      KernelLaunch launch;
      launch.kernel = "axpy";
      launch.device = device;
      launch.speedup = speedups.empty() ? 0 : speedups[l % speedups.size()];
      launch.global = {n, 1, 1};
      launch.args = {PlannedArg::value(n), PlannedArg::value(2.0f),
                     PlannedArg::array(0, device::ElementType::f32),
                     PlannedArg::array(1, device::ElementType::f32)};
      node.plan_kernel(driver, 0, launch, {{xs[l], Access::read}, {ys[l], Access::read_write}});
    }
    for (int l = 0; l < launches; ++l) {
      const std::vector<std::byte> bytes = driver.fetch(ys[l]);
      std::vector<float> y(n);
      std::memcpy(y.data(), bytes.data(), bytes.size());
      for (std::uint32_t i = 0; i < n; ++i) {
        const float want = 2.0f * static_cast<float>((i + l) % 100) + static_cast<float>(l);
        if (y[i] != want) {
          ADD_FAILURE() << "launch " << l << " element " << i << ": " << y[i] << ", want " << want;
          outcome.correct = false;
          break;
        }
      }
    }
  });
  EXPECT_EQ(status, 0);
  node.runtime().remove_observer(observer.get());
  outcome.runs = observer->runs();
  return outcome;
}

int total(const std::map<std::uint32_t, int>& runs) {
  int sum = 0;
  for (const auto& [executor, count] : runs)
    sum += count;
  return sum;
}

bool has_opencl(const Node& node) {
  for (device::Device* d : node.devices())
    if (d->info().backend == device::BackendKind::opencl) return true;
  return false;
}

class EveryPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPolicy, ResultsAreTheSameWhereverEachLaunchRuns) {
  Node node(options_with(GetParam()));
  node.define_kernel(axpy_kernel(true));
  const Outcome outcome = run_launches(node, 24, {1, 4, 20, 2});
  EXPECT_TRUE(outcome.correct);
  EXPECT_EQ(total(outcome.runs), 24);
  for (const auto& [executor, count] : outcome.runs) {
    bool a_compute_queue = false;
    for (std::size_t d = 0; d < node.devices().size(); ++d)
      a_compute_queue |= node.executors(d).compute.index == executor;
    EXPECT_TRUE(a_compute_queue) << "executor " << executor;
  }
}

INSTANTIATE_TEST_SUITE_P(DeviceChoice, EveryPolicy,
                         ::testing::Values("least-loaded", "locality", "pats", "pats-dl", "fcfs"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(DeviceChoice, AKernelIsNeverPlacedOnADeviceItHasNoImplementationFor) {
  Node node(options_with("fcfs"));
  node.define_kernel(axpy_kernel(false));  // CPU only
  const Outcome outcome = run_launches(node, 16, {20});
  EXPECT_TRUE(outcome.correct);
  ASSERT_EQ(outcome.runs.size(), 1u);
  EXPECT_EQ(outcome.runs.begin()->first, node.executors(0).compute.index);  // the CPU device
  EXPECT_EQ(outcome.runs.begin()->second, 16);
  if (!has_opencl(node)) GTEST_SKIP() << "no OpenCL device: the explicit case needs one";
  // Named explicitly, such a device is an error naming the kernel and the device, at planning.
  Node explicit_node(options_with("fcfs"));
  explicit_node.define_kernel(axpy_kernel(false));
  int status = 0;
  try {
    status = explicit_node.program().run([&](cluster::Driver& driver) {
      const ChunkRef x = driver.create_chunk("x", 16, 0);
      KernelLaunch launch;
      launch.kernel = "axpy";
      launch.candidates = {0, 1};
      launch.args = {PlannedArg::value(std::uint32_t{4}), PlannedArg::value(1.0f),
                     PlannedArg::array(0, device::ElementType::f32),
                     PlannedArg::array(0, device::ElementType::f32)};
      try {
        explicit_node.plan_kernel(driver, 0, launch, {{x, Access::read_write}});
        ADD_FAILURE() << "planned on a device without an implementation";
      } catch (const Error& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find("kernel 'axpy'"), std::string::npos) << what;
        EXPECT_NE(what.find("opencl"), std::string::npos) << what;
      }
    });
  } catch (const std::exception& error) {
    ADD_FAILURE() << error.what();
  }
  EXPECT_EQ(status, 0);
}

TEST(DeviceChoice, WrongSpeedupsStillGiveRightResults) {
  Node node(options_with("pats"));
  node.define_kernel(axpy_kernel(true));
  std::mt19937 random(7);
  std::vector<double> speedups;
  for (int i = 0; i < 8; ++i)
    speedups.push_back(std::uniform_real_distribution<double>(0.01, 1000)(random));
  const Outcome outcome = run_launches(node, 32, speedups);
  EXPECT_TRUE(outcome.correct);
  EXPECT_EQ(total(outcome.runs), 32);
}

TEST(DeviceChoice, RunTimesAreLearnedIntoAHistoryKeptAcrossRunsAndTheTraceSaysWhy) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("strata-device-choice-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string history = (dir / "history.json").string();
  const std::string trace = (dir / "trace.json").string();
  {
    Node probe(options_with("pats"));
    if (!has_opencl(probe)) GTEST_SKIP() << "no OpenCL device: nothing to choose between";
  }
  {
    Node node(options_with("pats", history, trace));
    node.define_kernel(axpy_kernel(true));
    EXPECT_TRUE(run_launches(node, 12, {}).correct);
    const auto entries = node.runtime().history().entries();
    ASSERT_FALSE(entries.empty());
    int runs = 0;
    for (const auto& entry : entries) {
      EXPECT_EQ(entry.operation, "axpy");
      EXPECT_EQ(entry.bucket, runtime::RunHistory::bucket_of(2 * 4096 * 4));
      EXPECT_GT(entry.mean_seconds, 0);
      runs += static_cast<int>(entry.runs);
    }
    EXPECT_EQ(runs, 12);
  }
  ASSERT_TRUE(std::filesystem::exists(history));
  {
    Node again(options_with("pats", history));
    EXPECT_FALSE(again.runtime().history().empty());  // read at start
  }
  // The trace: every axpy span says the policy, the candidates and the speedup's source.
  std::ifstream file(trace);
  const nlohmann::json json = nlohmann::json::parse(file);
  int placed = 0;
  for (const nlohmann::json& event : json["traceEvents"]) {
    if (event.value("name", "") != "kernel axpy") continue;
    if (!event["args"].contains("placement")) continue;
    ++placed;
    EXPECT_EQ(event["args"]["placement"], "pats");
    EXPECT_GE(event["args"]["candidates"].get<int>(), 2);
    EXPECT_TRUE(event["args"]["speedup_from"] == "none" ||
                event["args"]["speedup_from"] == "estimates");
  }
  EXPECT_EQ(placed, 12);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace strata::node
