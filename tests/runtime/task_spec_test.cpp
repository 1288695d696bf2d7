// TaskSpec's chainable setters: a named spec is changed in place, a temporary is passed on as an
// rvalue so that submitting it moves its vectors instead of copying them.

#include <gtest/gtest.h>

#include <type_traits>
#include <utility>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using testing::small_config;

static_assert(std::is_same_v<decltype(TaskSpec("t").reads(DataHandle())), TaskSpec&&>);
static_assert(std::is_same_v<decltype(std::declval<TaskSpec&>().reads(DataHandle())), TaskSpec&>);

TEST(TaskSpec, ChainOnATemporaryKeepsEverySetting) {
  Runtime rt(small_config());
  DataHandle a = rt.create_data("a");
  DataHandle b = rt.create_data("b");
  TaskHandle first = rt.submit([] {});
  TaskSpec spec = TaskSpec("t")
                      .on(rt.io())
                      .with_priority(Priority::high)
                      .after(first)
                      .reads(a)
                      .writes(b)
                      .updates(a)
                      .reduces(b)
                      .access(a, Access::read)
                      .footprint(7);
  EXPECT_EQ(spec.name, "t");
  ASSERT_EQ(spec.executors.size(), 1u);
  EXPECT_EQ(spec.executors[0], rt.io());
  EXPECT_EQ(spec.priority, Priority::high);
  EXPECT_EQ(spec.predecessors.size(), 1u);
  ASSERT_EQ(spec.accesses.size(), 5u);
  EXPECT_EQ(spec.accesses[3].mode, Access::reduce);
  EXPECT_EQ(spec.bytes, 7u);
  rt.submit(std::move(spec), [] {}).wait();
}

TEST(TaskSpec, ChainOnANamedSpecChangesItInPlace) {
  Runtime rt(small_config());
  DataHandle a = rt.create_data("a");
  TaskSpec spec("named");
  TaskSpec& same = spec.reads(a).with_priority(Priority::low);
  EXPECT_EQ(&same, &spec);
  EXPECT_EQ(spec.accesses.size(), 1u);
  rt.submit(spec, [] {}).wait();
  EXPECT_EQ(spec.accesses.size(), 1u);  // submitting a named spec copies it
}

}  // namespace
}  // namespace strata::runtime
