#include "strata/base/crash_report.hpp"

#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstring>

namespace strata {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool under_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool under_sanitizer = true;
#else
constexpr bool under_sanitizer = false;
#endif
#else
constexpr bool under_sanitizer = false;
#endif

const char* program_name = "strata";
constexpr int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
// Room for the handler when the fault is the main thread's stack overflowing.
alignas(16) char alternate_stack[64 * 1024];

// Only async-signal-safe calls from here on: write, backtrace (libgcc loaded at install).
void put(const char* text) {
  const std::size_t length = std::strlen(text);
  for (std::size_t written = 0; written < length;) {
    const ssize_t n = ::write(STDERR_FILENO, text + written, length - written);
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

void put_hex(std::uintptr_t value) {
  char text[2 + 16 + 1] = "0x";
  char digits[16];
  int count = 0;
  do {
    digits[count++] = "0123456789abcdef"[value % 16];
    value /= 16;
  } while (value != 0);
  int at = 2;
  while (count > 0)
    text[at++] = digits[--count];
  text[at] = '\0';
  put(text);
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV (segmentation fault)";
    case SIGBUS:
      return "SIGBUS (bus error)";
    case SIGILL:
      return "SIGILL (illegal instruction)";
    case SIGFPE:
      return "SIGFPE (arithmetic error)";
    default:
      return "a fatal signal";
  }
}

void report(int signal, siginfo_t* info, void*) {
  put(program_name);
  put(": fatal signal ");
  put(signal_name(signal));
  put(" at address ");
  put_hex(reinterpret_cast<std::uintptr_t>(info != nullptr ? info->si_addr : nullptr));
  put("; stack (innermost first):\n");
  void* frames[64];
  const int count = ::backtrace(frames, 64);
  ::backtrace_symbols_fd(frames, count, STDERR_FILENO);
  // SA_RESETHAND restored the default action: the signal, raised again, ends the process (and
  // dumps core where enabled) as it would have without the report.
  ::raise(signal);
}

}  // namespace

void install_crash_report(const char* program) {
  if (under_sanitizer) return;
  program_name = program;
  void* warm[1];
  ::backtrace(warm, 1);  // loads libgcc's unwinder now: it allocates, the handler must not
  stack_t stack{};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof alternate_stack;
  ::sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_sigaction = report;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int signal : fatal_signals)
    ::sigaction(signal, &action, nullptr);
}

}  // namespace strata
