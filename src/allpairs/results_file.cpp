#include "strata/allpairs/results_file.hpp"

#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include "strata/allpairs/results_journal.hpp"

namespace strata::allpairs {

namespace {

constexpr char results_magic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'A', 'P'};
constexpr char journal_magic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'J', '1'};
constexpr std::uint32_t results_version = 1;
constexpr std::size_t flush_records = 256;
constexpr std::size_t pair_bytes = 2 * sizeof(ItemIndex);

std::string system_error(const std::filesystem::path& path, const char* what) {
  return path.string() + ": " + what + ": " + std::strerror(errno);
}

template <class T>
void put(std::vector<std::byte>& out, const T& value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

template <class T>
T get(const std::vector<std::byte>& in, std::size_t offset) {
  T value;
  std::memcpy(&value, in.data() + offset, sizeof(T));
  return value;
}

std::vector<std::byte> read_whole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open: " + std::strerror(errno));
  std::vector<std::byte> bytes(std::filesystem::file_size(path));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw Error(path.string() + ": cannot read");
  return bytes;
}

std::uint64_t record_checksum(const std::byte* record, std::size_t bytes) {
  return XXH3_64bits(record, bytes);
}

}  // namespace

RawResults read_raw_results(const std::filesystem::path& path) {
  const std::vector<std::byte> bytes = read_whole(path);
  constexpr std::size_t header = 8 + 4 + 4 + 8;
  if (bytes.size() < header || std::memcmp(bytes.data(), results_magic, 8) != 0)
    throw Error(path.string() + ": not a Strata all-pairs results file");
  if (get<std::uint32_t>(bytes, 8) != results_version)
    throw Error(path.string() + ": results file version " +
                std::to_string(get<std::uint32_t>(bytes, 8)) + " is not supported");
  RawResults raw;
  raw.result_bytes = get<std::uint32_t>(bytes, 12);
  const auto count = get<std::uint64_t>(bytes, 16);
  const std::size_t record = pair_bytes + raw.result_bytes;
  if (bytes.size() != header + count * record)
    throw Error(path.string() + ": truncated results file (" + std::to_string(count) +
                " records announced, " + std::to_string(bytes.size()) + " bytes)");
  raw.pairs.resize(count);
  raw.values.resize(count * raw.result_bytes);
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t at = header + k * record;
    raw.pairs[k] = {get<ItemIndex>(bytes, at), get<ItemIndex>(bytes, at + sizeof(ItemIndex))};
    std::memcpy(raw.values.data() + k * raw.result_bytes, bytes.data() + at + pair_bytes,
                raw.result_bytes);
  }
  return raw;
}

std::filesystem::path ResultsJournal::journal_path(const std::filesystem::path& output) {
  return std::filesystem::path(output.string() + ".journal");
}

ResultsJournal::ResultsJournal(std::filesystem::path output, std::uint32_t result_bytes,
                               bool resume)
    : output_(std::move(output)), path_(journal_path(output_)), result_bytes_(result_bytes) {
  const std::size_t record = pair_bytes + result_bytes_ + sizeof(std::uint64_t);
  std::uint64_t valid_bytes = 0;
  if (std::filesystem::exists(path_)) {
    if (!resume)
      throw Error(path_.string() + ": an interrupted run's results journal is here; resume it " +
                  "(--resume) or remove it to start over");
    const std::vector<std::byte> bytes = read_whole(path_);
    if (bytes.size() >= 12 && std::memcmp(bytes.data(), journal_magic, 8) == 0) {
      if (get<std::uint32_t>(bytes, 8) != result_bytes_)
        throw Error(path_.string() + ": journal of " +
                    std::to_string(get<std::uint32_t>(bytes, 8)) +
                    "-byte results, this run's are " + std::to_string(result_bytes_) +
                    " bytes (another application?)");
      valid_bytes = 12;
      while (valid_bytes + record <= bytes.size()) {
        const std::byte* at = bytes.data() + valid_bytes;
        std::uint64_t stored;
        std::memcpy(&stored, at + record - sizeof stored, sizeof stored);
        if (stored != record_checksum(at, record - sizeof stored)) break;
        resumed_.emplace(get<ItemIndex>(bytes, valid_bytes),
                         get<ItemIndex>(bytes, valid_bytes + sizeof(ItemIndex)));
        valid_bytes += record;
      }
    }
  }
  if (valid_bytes == 0) {
    file_ = std::fopen(path_.c_str(), "wb");
    if (file_ == nullptr) throw Error(system_error(path_, "cannot create the results journal"));
    std::vector<std::byte> header;
    const auto* magic = reinterpret_cast<const std::byte*>(journal_magic);
    header.insert(header.end(), magic, magic + 8);
    put(header, result_bytes_);
    if (std::fwrite(header.data(), 1, header.size(), file_) != header.size())
      throw Error(system_error(path_, "cannot write the results journal"));
  } else {
    // Cut a torn or corrupt tail off, then append after the valid records.
    std::filesystem::resize_file(path_, valid_bytes);
    file_ = std::fopen(path_.c_str(), "ab");
    if (file_ == nullptr) throw Error(system_error(path_, "cannot reopen the results journal"));
  }
  records_ = resumed_.size();
  written_ = records_;
}

ResultsJournal::~ResultsJournal() {
  if (file_ != nullptr) {
    try {
      flush();
    } catch (...) {
    }
    std::fclose(file_);
  }
}

void ResultsJournal::append(ItemIndex left, ItemIndex right, std::span<const std::byte> result) {
  std::lock_guard guard(lock_);
  const std::size_t start = buffer_.size();
  put(buffer_, left);
  put(buffer_, right);
  buffer_.insert(buffer_.end(), result.begin(), result.end());
  put(buffer_, record_checksum(buffer_.data() + start, buffer_.size() - start));
  ++records_;
  if (buffer_.size() >= flush_records * (pair_bytes + result_bytes_)) write_buffer();
}

void ResultsJournal::write_buffer() {
  if (buffer_.empty() || file_ == nullptr) return;
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size() ||
      std::fflush(file_) != 0)
    throw Error(system_error(path_, "cannot write the results journal"));
  buffer_.clear();
  written_ = records_;
  if (on_written_) on_written_(written_);
}

void ResultsJournal::flush() {
  std::lock_guard guard(lock_);
  write_buffer();
}

std::uint64_t ResultsJournal::records() const {
  std::lock_guard guard(lock_);
  return records_;
}

void ResultsJournal::on_written(std::function<void(std::uint64_t)> call) {
  std::lock_guard guard(lock_);
  on_written_ = std::move(call);
  if (on_written_) on_written_(written_);
}

std::uint64_t ResultsJournal::written() const {
  std::lock_guard guard(lock_);
  return written_;
}

void ResultsJournal::finish(std::uint64_t expected) {
  std::lock_guard guard(lock_);
  write_buffer();
  std::fclose(file_);
  file_ = nullptr;
  const std::vector<std::byte> bytes = read_whole(path_);
  const std::size_t record = pair_bytes + result_bytes_ + sizeof(std::uint64_t);
  std::map<std::pair<ItemIndex, ItemIndex>, std::size_t> sorted;  // pair -> offset
  for (std::size_t at = 12; at + record <= bytes.size(); at += record) {
    sorted.emplace(std::pair{get<ItemIndex>(bytes, at), get<ItemIndex>(bytes, at + 4)}, at);
  }
  if (sorted.size() != expected)
    throw Error(path_.string() + ": " + std::to_string(sorted.size()) + " results recorded, " +
                std::to_string(expected) + " expected; the journal is kept, the results file " +
                output_.string() + " was not written");
  std::vector<std::byte> out;
  out.reserve(24 + sorted.size() * (pair_bytes + result_bytes_));
  const auto* magic = reinterpret_cast<const std::byte*>(results_magic);
  out.insert(out.end(), magic, magic + 8);
  put(out, results_version);
  put(out, result_bytes_);
  put(out, static_cast<std::uint64_t>(sorted.size()));
  for (const auto& [pair, at] : sorted)
    out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at),
               bytes.begin() + static_cast<std::ptrdiff_t>(at + pair_bytes + result_bytes_));
  const std::filesystem::path temp = output_.string() + ".tmp";
  std::FILE* file = std::fopen(temp.c_str(), "wb");
  if (file == nullptr) throw Error(system_error(temp, "cannot create the results file"));
  const bool written = std::fwrite(out.data(), 1, out.size(), file) == out.size() &&
                       std::fflush(file) == 0 && ::fsync(fileno(file)) == 0;
  std::fclose(file);
  if (!written) {
    std::filesystem::remove(temp);
    throw Error(system_error(temp, "cannot write the results file"));
  }
  std::filesystem::rename(temp, output_);
  std::filesystem::remove(path_);
}

}  // namespace strata::allpairs
