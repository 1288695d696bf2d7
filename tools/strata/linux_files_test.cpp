// The readers of /proc and /sys behind `strata info` in builds without hwloc, fed the text of
// machines other than this one.
#include "linux_files.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace strata::cli::linux_files {
namespace {

// One /proc/cpuinfo entry as x86 kernels write it.
std::string x86_processor(unsigned number, unsigned package, unsigned core) {
  std::ostringstream entry;
  entry << "processor\t: " << number << "\nvendor_id\t: GenuineIntel\n"
        << "model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\n"
        << "physical id\t: " << package << "\nsiblings\t: 4\ncore id\t\t: " << core
        << "\ncpu cores\t: 2\nflags\t\t: fpu vme de\n\n";
  return entry.str();
}

// Two packages of two cores with two hardware threads each, numbered as Linux does: the first
// thread of every core, then the second.
std::string two_sockets_with_smt() {
  std::string text;
  const unsigned package[] = {0, 0, 1, 1, 0, 0, 1, 1};
  const unsigned core[] = {0, 1, 0, 1, 0, 1, 0, 1};
  for (unsigned cpu = 0; cpu < 8; ++cpu)
    text += x86_processor(cpu, package[cpu], core[cpu]);
  return text;
}

TEST(Cpuinfo, CountsPackagesCoresAndThreads) {
  std::istringstream cpuinfo(two_sockets_with_smt());
  const CpuTopology topology = summarize_cpuinfo(cpuinfo, std::nullopt);
  EXPECT_EQ(topology.cpu_model, "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
  EXPECT_EQ(topology.packages, 2U);
  EXPECT_EQ(topology.physical_cores, 4U);
  EXPECT_EQ(topology.logical_cpus, 8U);
}

TEST(Cpuinfo, CountsOnlyTheAllowedProcessors) {
  std::istringstream cpuinfo(two_sockets_with_smt());
  // Both threads of core 0 on package 0, and one thread of core 1 on package 1.
  const CpuTopology topology = summarize_cpuinfo(cpuinfo, std::set<unsigned>{0, 4, 3});
  EXPECT_EQ(topology.packages, 2U);
  EXPECT_EQ(topology.physical_cores, 2U);
  EXPECT_EQ(topology.logical_cpus, 3U);
}

TEST(Cpuinfo, ProcessorsWithoutIdsAreCoresOfOnePackage) {
  // arm64 kernels name neither the model nor the package and core of a processor.
  std::istringstream cpuinfo(
      "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n"
      "processor\t: 1\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n"
      "processor\t: 2\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n");
  const CpuTopology topology = summarize_cpuinfo(cpuinfo, std::nullopt);
  EXPECT_EQ(topology.cpu_model, "");
  EXPECT_EQ(topology.packages, 1U);
  EXPECT_EQ(topology.physical_cores, 3U);
  EXPECT_EQ(topology.logical_cpus, 3U);
}

TEST(Cpuinfo, AnUnfamiliarLayoutHasNoProcessors) {
  // s390x lists its processors on one line each, which is not the "processor : N" layout.
  std::istringstream cpuinfo(
      "vendor_id       : IBM/S390\n# processors    : 2\n"
      "processor 0: version = FF,  identification = 0133E8,  machine = 2964\n");
  const CpuTopology topology = summarize_cpuinfo(cpuinfo, std::nullopt);
  EXPECT_EQ(topology.logical_cpus, 0U);
  EXPECT_EQ(topology.physical_cores, 0U);
}

TEST(Cpuinfo, ThisMachineHasProcessors) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  ASSERT_TRUE(cpuinfo) << "this test reads /proc/cpuinfo";
  const CpuTopology topology = summarize_cpuinfo(cpuinfo, allowed_cpus());
  EXPECT_GE(topology.logical_cpus, 1U);
  EXPECT_GE(topology.packages, 1U);
  EXPECT_LE(topology.packages, topology.physical_cores);
  EXPECT_LE(topology.physical_cores, topology.logical_cpus);
}

TEST(Affinity, AllowsTheCpusTheSchedulerCounts) {
  const std::optional<std::set<unsigned>> cpus = allowed_cpus();
  ASSERT_TRUE(cpus.has_value());
  EXPECT_GE(cpus->size(), 1U);
  EXPECT_LE(cpus->size(), static_cast<std::size_t>(::sysconf(_SC_NPROCESSORS_CONF)));
}

TEST(Meminfo, ReadsKibibytesAsBytes) {
  const std::string text =
      "MemTotal:       16318480 kB\nMemFree:         1234567 kB\nMemAvailable:    8000000 kB\n";
  std::istringstream total(text);
  EXPECT_EQ(meminfo_bytes(total, "MemTotal"), 16318480ULL * 1024);
  std::istringstream available(text);
  EXPECT_EQ(meminfo_bytes(available, "MemAvailable"), 8000000ULL * 1024);
  std::istringstream prefix_only(text);
  EXPECT_EQ(meminfo_bytes(prefix_only, "Mem"), 0U);
  std::istringstream absent(text);
  EXPECT_EQ(meminfo_bytes(absent, "SwapTotal"), 0U);
}

TEST(NumaNodes, CountsNodeDirectoriesAndAtLeastOne) {
  const std::filesystem::path root =
      std::filesystem::path(::testing::TempDir()) / ("strata_numa_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "node0");
  std::filesystem::create_directories(root / "node1");
  std::filesystem::create_directories(root / "power");
  std::ofstream(root / "possible") << "0-1\n";
  std::ofstream(root / "has_normal_memory") << "0-1\n";
  EXPECT_EQ(count_numa_nodes(root), 2U);

  std::filesystem::remove_all(root / "node0");
  std::filesystem::remove_all(root / "node1");
  EXPECT_EQ(count_numa_nodes(root), 1U);
  EXPECT_EQ(count_numa_nodes(root / "missing"), 1U);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace strata::cli::linux_files
