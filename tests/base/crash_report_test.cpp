// The crash report: a fatal signal prints the program, the signal and a stack, then ends the
// process by that signal.

#include "strata/base/crash_report.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>

namespace strata {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool under_sanitizer = true;
#else
constexpr bool under_sanitizer = false;
#endif

// An address the compiler cannot see through: the store faults at run time.
volatile std::uintptr_t unmapped_address = 16;

[[gnu::noinline]] void fault() {
  *reinterpret_cast<volatile int*>(unmapped_address) = 1;
}

TEST(CrashReport, SegmentationFaultPrintsSignalAddressAndStack) {
  if (under_sanitizer) GTEST_SKIP() << "not installed under a sanitizer, whose report is better";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        install_crash_report("crash_report_test");
        fault();
      },
      ::testing::KilledBySignal(SIGSEGV),
      "crash_report_test: fatal signal SIGSEGV \\(segmentation fault\\) at address 0x10; stack "
      "\\(innermost first\\):\n.*base_test");
}

TEST(CrashReport, OtherFatalSignalsAreNamed) {
  if (under_sanitizer) GTEST_SKIP() << "not installed under a sanitizer, whose report is better";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        install_crash_report("crash_report_test");
        std::raise(SIGBUS);
      },
      ::testing::KilledBySignal(SIGBUS), "fatal signal SIGBUS \\(bus error\\)");
}

}  // namespace
}  // namespace strata
