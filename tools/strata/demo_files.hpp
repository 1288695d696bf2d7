#pragma once
// Whole-file reads and writes for the demo; every error names the file and the system's reason.

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace strata::cli {

// Reads the whole file; throws strata::Error naming the file when it cannot.
std::vector<std::uint8_t> read_whole_file(const std::filesystem::path& path);

// Writes `bytes` to a temporary file next to `path`, then renames it to `path`, so a half-written
// file is never presented under the final name. Throws strata::Error naming the file (disk full,
// no permission, ...), after removing the temporary file.
void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

// Creates `directory` and its parents if missing, and checks that it can be written to; throws
// strata::Error naming it when not.
void ensure_writable_directory(const std::filesystem::path& directory);

// The file's size, or -1 when it does not exist or is not a regular file.
std::int64_t regular_file_size(const std::filesystem::path& path);

}  // namespace strata::cli
