// Spill write and read throughput of SpillStore against raw sequential write()/read() of the same
// sizes on the same file system, measured in the same run (a plain timed program, JSON out).
//
// Per repetition, each of three systems writes `chunks` files of `chunk` bytes each, timed until
// write() returns (page cache) and until fdatasync() of every file returns (on disk); then the
// files are dropped from the page cache (posix_fadvise DONTNEED, checked with mincore) and read
// back cold. Systems: "raw" (one write()/read() call per chunk), "raw1m" (write()/read() calls
// of 1 MiB, the spill store's write piece size) and "spill" (SpillStore). Their order rotates per
// repetition, so drift hits all alike.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "strata/memory/spill_store.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string dir = "/tmp";
  std::size_t chunk = std::size_t{64} << 20;
  int chunks = 16;
  int repetitions = 9;
  std::string samples;  // where to write compression samples ("" for none)
};

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", what, std::strerror(errno)));
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Writes `data` to a new file at `path` with write() calls of at most `call` bytes.
void write_raw(const std::string& path, const std::vector<std::byte>& data, std::size_t call) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail("open " + path);
  for (std::size_t done = 0; done < data.size();) {
    const ssize_t n = ::write(fd, data.data() + done, std::min(call, data.size() - done));
    if (n <= 0) fail("write " + path);
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

// Reads the file at `path` into `out` with read() calls of at most `call` bytes.
void read_raw(const std::string& path, std::vector<std::byte>& out, std::size_t call) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("open " + path);
  for (std::size_t done = 0; done < out.size();) {
    const ssize_t n = ::read(fd, out.data() + done, std::min(call, out.size() - done));
    if (n <= 0) fail("read " + path);
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

void sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fdatasync(fd) != 0) fail("fdatasync " + path);
  ::close(fd);
}

// Drops a (clean) file from the page cache; returns the fraction of its pages still resident.
double drop_cache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("open " + path);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  struct stat info {};
  ::fstat(fd, &info);
  const auto size = static_cast<std::size_t>(info.st_size);
  double resident = 0;
  if (size > 0) {
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) fail("mmap " + path);
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> pages((size + page - 1) / page);
    ::mincore(map, size, pages.data());
    resident = static_cast<double>(std::count_if(pages.begin(), pages.end(),
                                                 [](unsigned char p) { return p & 1; })) /
               static_cast<double>(pages.size());
    ::munmap(map, size);
  }
  ::close(fd);
  return resident;
}

// One timed phase's samples, in bytes per second.
using Samples = std::map<std::string, std::vector<double>>;

// Writes a sample of typical numeric data for the compression check: float32 of a noisy signal.
void write_samples(const std::string& dir, const std::vector<std::byte>& random) {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.01f);
  std::vector<float> floats(random.size() / sizeof(float));
  for (std::size_t i = 0; i < floats.size(); ++i) {
    floats[i] = std::sin(static_cast<float>(i) * 0.001f) + noise(rng);
  }
  std::vector<std::byte> bytes(random.size());
  std::memcpy(bytes.data(), floats.data(), bytes.size());
  write_raw(dir + "/random.bin", random, random.size());
  write_raw(dir + "/floats.bin", bytes, bytes.size());
}

void run(const Options& options) {
  std::vector<std::byte> data(options.chunk);
  std::mt19937_64 rng(1);
  for (std::size_t i = 0; i + 8 <= data.size(); i += 8) {
    const std::uint64_t word = rng();
    std::memcpy(data.data() + i, &word, 8);
  }
  std::vector<std::byte> out(options.chunk);
  if (!options.samples.empty()) write_samples(options.samples, data);

  const std::string raw_dir = fmt::format("{}/strata-spill-bench-raw-{}", options.dir, ::getpid());
  fs::create_directories(raw_dir);
  // Removes the raw files also when the run fails (the store removes its own).
  struct RemoveOnExit {
    std::string dir;
    ~RemoveOnExit() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove_raw{raw_dir};
  strata::memory::SpillStore store(options.dir, 0);
  const double total = static_cast<double>(options.chunk) * options.chunks;
  constexpr std::size_t kMiB = std::size_t{1} << 20;

  // One system under test: its files, and how it writes and reads chunk i.
  struct System {
    std::string name;
    std::function<std::string(int)> path;
    std::function<void(int)> write, read, remove;
  };
  const auto raw = [&](const std::string& name, std::size_t call) {
    const auto path = [&, name](int i) { return fmt::format("{}/{}-{}", raw_dir, name, i); };
    return System{name, path, [&, path, call](int i) { write_raw(path(i), data, call); },
                  [&, path, call](int i) { read_raw(path(i), out, call); },
                  [path](int i) { fs::remove(path(i)); }};
  };
  const auto chunk = [](int i) { return static_cast<std::uint64_t>(i); };
  const std::vector<System> systems = {
      raw("raw", options.chunk), raw("raw1m", kMiB),
      System{"spill", [&](int i) { return store.path_of(chunk(i)); },
             [&](int i) { store.write(chunk(i), data); }, [&](int i) { store.read(chunk(i), out); },
             [&](int i) { store.remove(chunk(i)); }}};

  Samples samples;
  std::vector<double> resident;
  const auto write_phase = [&](const System& system) {
    // All write fresh files.
    for (int i = 0; i < options.chunks; ++i)
      system.remove(i);
    const auto start = Clock::now();
    for (int i = 0; i < options.chunks; ++i)
      system.write(i);
    samples[system.name + "_write_buffered"].push_back(total / seconds_since(start));
    for (int i = 0; i < options.chunks; ++i)
      sync_file(system.path(i));
    samples[system.name + "_write"].push_back(total / seconds_since(start));
  };
  const auto read_phase = [&](const System& system) {
    for (int i = 0; i < options.chunks; ++i)
      resident.push_back(drop_cache(system.path(i)));
    const auto start = Clock::now();
    for (int i = 0; i < options.chunks; ++i)
      system.read(i);
    samples[system.name + "_read"].push_back(total / seconds_since(start));
  };

  for (int rep = 0; rep < options.repetitions; ++rep) {
    const auto nth = [&](int k) -> const System& { return systems[(rep + k) % systems.size()]; };
    for (std::size_t k = 0; k < systems.size(); ++k)
      write_phase(nth(static_cast<int>(k)));
    for (std::size_t k = 0; k < systems.size(); ++k)
      read_phase(nth(static_cast<int>(k)));
    std::fprintf(stderr, "repetition %d/%d done\n", rep + 1, options.repetitions);
  }
  if (std::memcmp(out.data(), data.data(), out.size()) != 0) {
    throw std::runtime_error("data read back differs");
  }

  std::string json = fmt::format(
      "{{\n  \"directory\": \"{}\",\n  \"chunk_bytes\": {},\n  \"chunks\": {},\n"
      "  \"repetitions\": {},\n  \"read_piece_bytes\": {},\n"
      "  \"max_resident_fraction_before_read\": {:.4f},\n  \"bytes_per_second\": {{",
      options.dir, options.chunk, options.chunks, options.repetitions,
      strata::memory::SpillStore::read_piece_bytes,
      *std::max_element(resident.begin(), resident.end()));
  bool first = true;
  for (const auto& [name, values] : samples) {
    json +=
        fmt::format("{}\n    \"{}\": [{:.0f}]", first ? "" : ",", name, fmt::join(values, ", "));
    first = false;
  }
  json += "\n  }\n}\n";
  std::fputs(json.c_str(), stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--dir") {
      options.dir = value;
    } else if (flag == "--chunk-mib") {
      options.chunk = std::stoull(value) << 20;
    } else if (flag == "--chunks") {
      options.chunks = std::stoi(value);
    } else if (flag == "--repetitions") {
      options.repetitions = std::stoi(value);
    } else if (flag == "--samples") {
      options.samples = value;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--dir DIR] [--chunk-mib N] [--chunks N] [--repetitions N] "
                   "[--samples DIR]\n",
                   argv[0]);
      return 2;
    }
  }
  try {
    run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_spill_throughput: %s\n", e.what());
    return 1;
  }
  return 0;
}
