#include "linux_files.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

namespace strata::cli::linux_files {
namespace {

std::string_view trim(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && blank(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && blank(text.back()))
    text.remove_suffix(1);
  return text;
}

// The whole of `text` as a non-negative number, or nullopt.
std::optional<long> parse_number(std::string_view text) {
  long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// One "processor" entry of /proc/cpuinfo.
struct Processor {
  unsigned number = 0;
  std::optional<long> package;  // "physical id"
  std::optional<long> core;     // "core id", unique within its package
};

struct CpusetFree {
  void operator()(cpu_set_t* set) const { CPU_FREE(set); }
};

}  // namespace

CpuTopology summarize_cpuinfo(std::istream& cpuinfo,
                              const std::optional<std::set<unsigned>>& allowed) {
  CpuTopology topology;
  std::vector<Processor> processors;
  bool in_processor = false;  // false until the first "processor" line, and after a bad one
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string_view key = trim(std::string_view(line).substr(0, colon));
    const std::string_view value = trim(std::string_view(line).substr(colon + 1));
    if (key == "processor") {
      const std::optional<long> number = parse_number(value);
      in_processor = number.has_value();
      if (in_processor) processors.push_back({static_cast<unsigned>(*number), {}, {}});
    } else if (key == "model name") {
      if (topology.cpu_model.empty()) topology.cpu_model = value;
    } else if (in_processor && key == "physical id") {
      processors.back().package = parse_number(value);
    } else if (in_processor && key == "core id") {
      processors.back().core = parse_number(value);
    }
  }

  std::set<long> packages;
  std::set<std::pair<long, long>> cores;
  for (const Processor& processor : processors) {
    if (allowed && !allowed->contains(processor.number)) continue;
    const long package = processor.package.value_or(0);
    // Without a "core id" the processor is a core of its own; a negative key cannot clash with
    // the kernel's ids, which are never negative.
    const long core = processor.core.value_or(-1 - static_cast<long>(processor.number));
    packages.insert(package);
    cores.emplace(package, core);
    ++topology.logical_cpus;
  }
  topology.packages = static_cast<unsigned>(packages.size());
  topology.physical_cores = static_cast<unsigned>(cores.size());
  return topology;
}

std::optional<std::set<unsigned>> allowed_cpus() {
  // A fixed cpu_set_t holds CPU_SETSIZE (1024) CPUs; larger machines need a larger set, which
  // sched_getaffinity asks for with EINVAL.
  for (std::size_t capacity = CPU_SETSIZE; capacity <= (std::size_t{1} << 20); capacity *= 2) {
    const std::unique_ptr<cpu_set_t, CpusetFree> set(CPU_ALLOC(capacity));
    if (set == nullptr) return std::nullopt;
    const std::size_t bytes = CPU_ALLOC_SIZE(capacity);
    if (::sched_getaffinity(0, bytes, set.get()) == 0) {
      std::set<unsigned> cpus;
      for (std::size_t cpu = 0; cpu < capacity; ++cpu) {
        if (CPU_ISSET_S(cpu, bytes, set.get())) cpus.insert(static_cast<unsigned>(cpu));
      }
      return cpus;
    }
    if (errno != EINVAL) return std::nullopt;
  }
  return std::nullopt;
}

std::uint64_t meminfo_bytes(std::istream& meminfo, std::string_view name) {
  std::string line;
  while (std::getline(meminfo, line)) {
    if (!line.starts_with(name) || line.size() <= name.size() || line[name.size()] != ':') {
      continue;
    }
    std::istringstream fields(line.substr(name.size() + 1));
    std::uint64_t kibibytes = 0;
    fields >> kibibytes;
    return kibibytes * 1024;
  }
  return 0;
}

std::uint64_t meminfo_bytes(std::string_view name) {
  std::ifstream meminfo("/proc/meminfo");
  return meminfo_bytes(meminfo, name);
}

unsigned count_numa_nodes(const std::filesystem::path& node_directory) {
  unsigned nodes = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator entry(node_directory, error), end;
       !error && entry != end; entry.increment(error)) {
    const std::string name = entry->path().filename().string();
    if (!name.starts_with("node")) continue;
    const std::string_view digits = std::string_view(name).substr(4);
    if (!digits.empty() && std::all_of(digits.begin(), digits.end(),
                                       [](unsigned char c) { return std::isdigit(c) != 0; })) {
      ++nodes;
    }
  }
  return std::max(nodes, 1U);
}

std::string host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "";
  return name.data();
}

}  // namespace strata::cli::linux_files
