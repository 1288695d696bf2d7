// Runs the engine tests on every rank in lockstep: CTest starts them plainly and under mpirun with
// 2 and 4 processes.

#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>

#include "engine_test_support.hpp"
#include "strata/cluster/message_kinds.hpp"

namespace strata::allpairs::testing {

namespace {
cluster::Network* the_network = nullptr;
constexpr cluster::MessageKind arrive_kind = cluster::kinds::user_kinds + 1;
constexpr cluster::MessageKind go_kind = cluster::kinds::user_kinds + 2;
constexpr cluster::MessageKind name_kind = cluster::kinds::user_kinds + 3;
std::mutex lock;
std::condition_variable changed;
int arrived = 0;
int released = 0;
std::vector<std::string> names;

void install_handlers(cluster::Network& net) {
  net.on(arrive_kind, [](int, std::span<const std::byte>) {
    std::lock_guard guard(lock);
    ++arrived;
    changed.notify_all();
  });
  net.on(go_kind, [](int, std::span<const std::byte>) {
    std::lock_guard guard(lock);
    ++released;
    changed.notify_all();
  });
  net.on(name_kind, [](int, std::span<const std::byte> payload) {
    std::lock_guard guard(lock);
    names.push_back(cluster::decode<std::string>(payload, "a directory name"));
    changed.notify_all();
  });
}
}  // namespace

cluster::Network& network() {
  return *the_network;
}

void barrier() {
  cluster::Network& net = network();
  static int generation = 0;
  ++generation;
  net.post(0, arrive_kind, {});
  std::unique_lock guard(lock);
  if (net.rank() == 0) {
    changed.wait(guard, [&] { return arrived >= generation * net.size(); });
    for (int rank = 0; rank < net.size(); ++rank)
      net.post(rank, go_kind, {});
  }
  changed.wait(guard, [&] { return released >= generation; });
}

std::filesystem::path shared_directory(const std::string& name) {
  cluster::Network& net = network();
  static std::size_t made = 0;
  if (net.rank() == 0) {
    std::string pattern = (std::filesystem::temp_directory_path() / ("strata-" + name + "-XXXXXX"));
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    for (int rank = 0; rank < net.size(); ++rank)
      net.post_value(rank, name_kind, pattern);
  }
  std::unique_lock guard(lock);
  changed.wait(guard, [&] { return names.size() > made; });
  return names[made++];
}

}  // namespace strata::allpairs::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  strata::cluster::Network network(&argc, &argv);
  strata::allpairs::testing::the_network = &network;
  strata::allpairs::testing::install_handlers(network);
  const int failed = RUN_ALL_TESTS();
  strata::allpairs::testing::barrier();
  return failed;
}
