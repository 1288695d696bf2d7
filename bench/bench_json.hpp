#pragma once
// What the bench programs share for their JSON lines and reports: numbers at full precision,
// strings escaped, the median of repetitions, and the machine's CPU model.

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace strata::bench {

// Full precision: std::to_string prints 6 decimals, which turns a round trip of 0.4 µs into 0.
inline std::string json_list(const std::vector<double>& values) {
  std::string out = "[";
  char number[32];
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::snprintf(number, sizeof number, "%.9g", values[i]);
    out += (i ? ", " : "") + std::string(number);
  }
  return out + "]";
}

inline std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

inline double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// The CPU model /proc/cpuinfo names, or "unknown".
inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
  return "unknown";
}

}  // namespace strata::bench
