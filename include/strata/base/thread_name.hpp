#pragma once
// Names the calling thread as the operating system shows it (top -H, perf, gdb): at most 15
// characters are kept, the kernel's limit.

#include <string>
#include <string_view>

namespace strata {

void name_this_thread(std::string_view name);
// The calling thread's name as the operating system has it.
std::string this_thread_name();

}  // namespace strata
