#include "strata/device/program_cache.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "strata/base/log.hpp"

namespace strata::device {
namespace {

constexpr std::string_view magic = "STRATAK1";

std::string key_of(std::string_view backend, std::string_view device, std::string_view source,
                   std::string_view options) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  for (std::string_view part : {backend, device, source, options}) {
    const std::uint64_t size = part.size();
    XXH3_128bits_update(state, &size, sizeof size);  // lengths keep the parts apart
    XXH3_128bits_update(state, part.data(), part.size());
  }
  const XXH128_hash_t hash = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  return fmt::format("{}-{:016x}{:016x}", backend, hash.high64, hash.low64);
}

// Reads a cache file; empty if missing, nullopt-like `corrupt` if its checksum fails.
std::string read_entry(const std::filesystem::path& path, bool& corrupt) {
  corrupt = false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  const std::string file = text.str();
  const std::size_t header = magic.size() + sizeof(std::uint64_t);
  if (file.size() < header || std::string_view(file).substr(0, magic.size()) != magic) {
    corrupt = true;
    return {};
  }
  std::uint64_t stored = 0;
  std::memcpy(&stored, file.data() + magic.size(), sizeof stored);
  std::string payload = file.substr(header);
  if (XXH3_64bits(payload.data(), payload.size()) != stored) {
    corrupt = true;
    return {};
  }
  return payload;
}

void write_entry(const std::filesystem::path& path, const std::string& payload) {
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  const auto temporary = path.string() + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    const std::uint64_t checksum = XXH3_64bits(payload.data(), payload.size());
    out.write(magic.data(), static_cast<std::streamsize>(magic.size()));
    out.write(reinterpret_cast<const char*>(&checksum), sizeof checksum);
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    if (!out) {
      log().warn("kernel cache: cannot write '{}'; the program stays cached in memory only",
                 temporary);
      std::filesystem::remove(temporary, error);
      return;
    }
  }
  std::filesystem::rename(temporary, path, error);  // atomic: readers see all or nothing
  if (error) std::filesystem::remove(temporary, error);
}

}  // namespace

ProgramCache::ProgramCache(std::string directory) : directory_(std::move(directory)) {}

std::string ProgramCache::directory_for_setting(const std::string& setting) {
  if (setting == "off") return {};
  if (setting != "default") return setting;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/strata/kernels";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/strata/kernels";
  }
  return {};
}

std::string ProgramCache::get_or_compile(std::string_view backend, std::string_view device,
                                         std::string_view source, std::string_view options,
                                         const std::function<std::string()>& compile,
                                         bool* from_cache) {
  const std::string key = key_of(backend, device, source, options);
  {
    std::lock_guard guard(lock_);
    if (auto found = memory_.find(key); found != memory_.end()) {
      ++stats_.memory_hits;
      if (from_cache != nullptr) *from_cache = true;
      return found->second;
    }
  }
  const std::filesystem::path path =
      directory_.empty() ? std::filesystem::path() : std::filesystem::path(directory_) / key;
  if (!directory_.empty()) {
    bool corrupt = false;
    std::string binary = read_entry(path, corrupt);
    if (!binary.empty()) {
      std::lock_guard guard(lock_);
      ++stats_.disk_hits;
      memory_.emplace(key, binary);
      if (from_cache != nullptr) *from_cache = true;
      return binary;
    }
    if (corrupt) {
      log().warn("kernel cache: '{}' failed its checksum; recompiling", path.string());
      std::lock_guard guard(lock_);
      ++stats_.corrupt_files;
    }
  }
  std::string binary = compile();  // outside the lock: compiles of different kernels overlap
  if (!directory_.empty()) write_entry(path, binary);
  std::lock_guard guard(lock_);
  ++stats_.compiles;
  memory_.emplace(key, binary);
  if (from_cache != nullptr) *from_cache = false;
  return binary;
}

ProgramCacheStats ProgramCache::stats() const {
  std::lock_guard guard(lock_);
  return stats_;
}

void ProgramCache::clear_memory() {
  std::lock_guard guard(lock_);
  memory_.clear();
}

}  // namespace strata::device
