#pragma once
// The bench programs' command lines: flags that take a value (--name VALUE) and switches
// (--name), each handled by its own function; an unknown flag or a missing value is an Error
// naming it.

#include <functional>
#include <map>
#include <string>

#include "strata/base/error.hpp"

namespace strata::bench {

struct Flags {
  std::map<std::string, std::function<void(const std::string&)>> values;
  std::map<std::string, std::function<void()>> switches;
};

inline void parse_flags(int argc, char** argv, const Flags& flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (const auto on = flags.switches.find(flag); on != flags.switches.end()) {
      on->second();
      continue;
    }
    const auto value = flags.values.find(flag);
    if (value == flags.values.end()) throw Error("unknown option " + flag);
    if (i + 1 >= argc) throw Error("option " + flag + " needs a value");
    value->second(argv[++i]);
  }
}

}  // namespace strata::bench
