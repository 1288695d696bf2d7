#include "strata/base/thread_name.hpp"

#include <pthread.h>

#include <array>

namespace strata {

void name_this_thread(std::string_view name) {
  const std::string kept(name.substr(0, 15));
  pthread_setname_np(pthread_self(), kept.c_str());
}

std::string this_thread_name() {
  std::array<char, 16> name{};
  if (pthread_getname_np(pthread_self(), name.data(), name.size()) != 0) return {};
  return name.data();
}

}  // namespace strata
