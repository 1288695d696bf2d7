// The threads a program starts carry names the operating system shows (top -H, perf): the
// network thread, the plan executor's and the CPU pool's workers.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

namespace strata::cluster::testing {
namespace {

std::set<std::string> thread_names() {
  std::set<std::string> names;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name)) names.insert(name);
  }
  return names;
}

TEST(ThreadNames, TheNetworkPlanAndPoolThreadsAreNamed) {
  // Each thread names itself once it runs: when this is the first test, give them a moment.
  std::set<std::string> names = thread_names();
  for (int tries = 0; tries < 200 && (names.count("plan") == 0 || names.count("network") == 0 ||
                                      names.count("cpu/0") == 0);
       ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    names = thread_names();
  }
  for (const char* name : {"network", "plan", "cpu/0"})
    EXPECT_EQ(names.count(name), 1u) << name;
}

}  // namespace
}  // namespace strata::cluster::testing
