// Late-sized chunks in plans: a filter's output has a size known only when the filter ends. A
// filter kernel (on a CPU or OpenCL device) and a host operation on every rank produce them; a
// kernel and a host operation on the next rank consume them, seeing only the elements kept; the
// driver asks their sizes and fetches them. The program runs plainly and under mpirun with 2 and
// 4 processes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "node_plan_support.hpp"

namespace strata::node::testing {
namespace {

using cluster::ChunkRef;
using runtime::Access;

std::vector<std::uint32_t> as_u32(const std::vector<std::byte>& bytes) {
  std::vector<std::uint32_t> values(bytes.size() / 4);
  std::memcpy(values.data(), bytes.data(), values.size() * 4);
  return values;
}

std::vector<std::byte> bytes_of(const std::vector<std::uint32_t>& values) {
  std::vector<std::byte> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

KernelLaunch keep_below(std::uint32_t device, std::uint32_t n, std::uint32_t limit) {
  KernelLaunch launch;
  launch.kernel = "keep_below";
  launch.device = device;
  launch.global = {n, 1, 1};
  launch.args = {PlannedArg::value(n), PlannedArg::value(limit),
                 PlannedArg::array(0, device::ElementType::u32),
                 PlannedArg::array(1, device::ElementType::u32),
                 PlannedArg::array(2, device::ElementType::u32)};
  launch.sizes = {LateSize{1, 2, 4}};  // uses[1] gets uses[2]'s count of u32
  return launch;
}

// n is the capacity's element count: the kernel runs on all of them and stops at the size.
KernelLaunch add_to_kept(std::uint32_t device, std::uint32_t n, std::uint32_t a) {
  KernelLaunch launch;
  launch.kernel = "add_u32";
  launch.device = device;
  launch.global = {n, 1, 1};
  launch.args = {PlannedArg::count_of(0, device::ElementType::u32), PlannedArg::value(a),
                 PlannedArg::array(0, device::ElementType::u32)};
  return launch;
}

TEST(LateSizes, FiltersOnEveryRankFeedConsumersOnTheNextRankWithOnlyWhatTheyKept) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  const int ranks = driver.size();
  const auto devices = static_cast<std::uint32_t>(node.devices().size());
  constexpr std::uint32_t n = 6000;
  constexpr std::uint32_t limit = 300;
  std::vector<ChunkRef> values, kept, counts, odd, results;
  std::vector<std::vector<std::uint32_t>> inputs;
  for (int r = 0; r < ranks; ++r) {
    const int next = (r + 1) % ranks;
    std::vector<std::uint32_t> input(n);
    for (std::uint32_t i = 0; i < n; ++i)
      input[i] = (i * 37 + static_cast<std::uint32_t>(r) * 11) % (1000 + 100 * r);
    const std::string suffix = " " + std::to_string(r);
    values.push_back(driver.create_chunk("values" + suffix, n * 4, r));
    driver.write(values.back(), bytes_of(input));
    inputs.push_back(std::move(input));
    kept.push_back(driver.create_late_chunk("kept" + suffix, n * 4, r));
    counts.push_back(driver.create_chunk("count" + suffix, 4, r));
    odd.push_back(driver.create_late_chunk("odd" + suffix, n * 4, r));
    results.push_back(driver.create_chunk("count and sum" + suffix, 16, next));
  }
  {
    const cluster::PlanBatch batch(driver);
    for (int r = 0; r < ranks; ++r) {
      const int next = (r + 1) % ranks;
      // A filter kernel on rank r, then a kernel on the next rank adds 1000 to what it kept.
      node.plan_kernel(
          driver, r, keep_below(static_cast<std::uint32_t>(r) % devices, n, limit),
          {{values[r], Access::read}, {kept[r], Access::write}, {counts[r], Access::write}});
      node.plan_kernel(driver, next,
                       add_to_kept(static_cast<std::uint32_t>(next) % devices, n, 1000),
                       {{kept[r], Access::read_write}});
      // A host filter on rank r, then a host operation on the next rank reads what it kept.
      driver.run(r, "keep_odd", {{values[r], Access::read}, {odd[r], Access::write}});
      driver.run(next, "count_and_sum", {{results[r], Access::write}, {odd[r], Access::read}});
    }
  }
  for (int r = 0; r < ranks; ++r) {
    std::vector<std::uint32_t> below, odds;
    std::uint64_t odd_sum = 0;
    for (const std::uint32_t value : inputs[r]) {
      if (value < limit) below.push_back(value + 1000);
      if (value % 2 == 1) {
        odds.push_back(value);
        odd_sum += value;
      }
    }
    ASSERT_FALSE(below.empty());
    ASSERT_LT(below.size(), n);
    EXPECT_EQ(driver.size_of(kept[r]), below.size() * 4) << "rank " << r;
    std::vector<std::uint32_t> got = as_u32(driver.fetch(kept[r]));
    std::sort(got.begin(), got.end());
    std::sort(below.begin(), below.end());
    EXPECT_EQ(got, below) << "rank " << r;
    EXPECT_EQ(driver.size_of(odd[r]), odds.size() * 4) << "rank " << r;
    EXPECT_EQ(as_u32(driver.fetch(odd[r])), odds) << "rank " << r;
    const std::vector<std::byte> result = driver.fetch(results[r]);
    std::uint64_t count_and_sum[2] = {0, 0};
    std::memcpy(count_and_sum, result.data(), sizeof count_and_sum);
    EXPECT_EQ(count_and_sum[0], odds.size()) << "rank " << r;
    EXPECT_EQ(count_and_sum[1], odd_sum) << "rank " << r;
  }
  EXPECT_EQ(driver.size_of(values[0]), n * 4u) << "a chunk of a fixed size";
  driver.wait_all();
}

TEST(LateSizes, TheDriverWritesUpToTheCapacityAndRefusesMoreOrAnEarlySizeNamingTheChunk) {
  cluster::Driver& driver = *the_driver;
  const int last = driver.size() - 1;
  const ChunkRef late = driver.create_late_chunk("late words", 64, last);
  try {
    (void)driver.size_of(late);
    FAIL() << "the size of a chunk nothing wrote was given";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("chunk 'late words' has no size yet"),
              std::string::npos)
        << error.what();
  }
  try {
    driver.write(late, std::vector<std::byte>(68));
    FAIL() << "68 bytes were written into a capacity of 64";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("68 bytes into late-sized chunk 'late words' of a capacity of 64"),
              std::string::npos)
        << error.what();
  }
  driver.write(late, bytes_of({7, 8, 9}));
  EXPECT_EQ(driver.size_of(late), 12u);
  EXPECT_EQ(as_u32(driver.fetch(late)), (std::vector<std::uint32_t>{7, 8, 9}));
  const ChunkRef sum = driver.create_chunk("sum of late words", 16, 0);
  driver.run(0, "count_and_sum", {{sum, Access::write}, {late, Access::read}});
  const std::vector<std::byte> result = driver.fetch(sum);
  std::uint64_t count_and_sum[2] = {0, 0};
  std::memcpy(count_and_sum, result.data(), sizeof count_and_sum);
  EXPECT_EQ(count_and_sum[0], 3u);
  EXPECT_EQ(count_and_sum[1], 24u);
  EXPECT_THROW(driver.reduce({late}, sum, memory::ReduceOp::sum, device::ElementType::u32), Error)
      << "late-sized partials";
  driver.wait_all();
}

}  // namespace
}  // namespace strata::node::testing
