// Threads named for the operating system (top -H, perf, gdb), cut to its 15 characters.

#include "strata/base/thread_name.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace strata {
namespace {

TEST(ThreadName, NamesTheCallingThreadAndKeepsFifteenCharacters) {
  std::string short_name, long_name;
  std::thread([&] {
    name_this_thread("network");
    short_name = this_thread_name();
    name_this_thread("a name longer than fifteen characters");
    long_name = this_thread_name();
  }).join();
  EXPECT_EQ(short_name, "network");
  EXPECT_EQ(long_name, "a name longer t");
}

}  // namespace
}  // namespace strata
