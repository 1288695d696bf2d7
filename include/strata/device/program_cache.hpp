#pragma once
// Compiled-program cache in memory and on disk, keyed by backend, device, source and options,
// so a second run (or a second launch with the same constants) does not recompile.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace strata::device {

// Counters of a ProgramCache.
struct ProgramCacheStats {
  std::uint64_t memory_hits = 0;
  std::uint64_t disk_hits = 0;
  std::uint64_t compiles = 0;
  std::uint64_t corrupt_files = 0;  // disk entries whose checksum failed (recompiled)
};

class ProgramCache {
 public:
  // `directory` empty: memory only. The directory is created on first write.
  explicit ProgramCache(std::string directory = {});
  // The directory a `kernel_cache_dir` setting names ("default", "off", or a path).
  static std::string directory_for_setting(const std::string& setting);

  // The program binary for this key: from memory, else from disk (checksum verified), else
  // from `compile()`, which is then stored in both. `from_cache` says which happened.
  std::string get_or_compile(std::string_view backend, std::string_view device,
                             std::string_view source, std::string_view options,
                             const std::function<std::string()>& compile, bool* from_cache);

  ProgramCacheStats stats() const;
  const std::string& directory() const { return directory_; }
  // Forgets the in-memory entries (the disk stays), as a new process would start.
  void clear_memory();

 private:
  std::string directory_;
  mutable std::mutex lock_;
  std::map<std::string, std::string> memory_;
  ProgramCacheStats stats_;
};

}  // namespace strata::device
