#include "phylogeny/fasta.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <cctype>
#include <limits>

#include "phylogeny/amino_acids.hpp"
#include "strata/allpairs/application.hpp"

namespace strata::apps::phylogeny {
namespace {

constexpr std::size_t residues_per_line = 60;

// Closes a gzFile when it goes out of scope (an error path; the normal path checks gzclose).
struct GzFileCloser {
  gzFile file;
  ~GzFileCloser() {
    if (file != nullptr) gzclose(file);
  }
};

std::string describe(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (std::isprint(byte) != 0) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", byte);
}

}  // namespace

void write_fasta_gz(const std::filesystem::path& path, const std::string& species,
                    const Proteome& proteome) {
  GzFileCloser guard{gzopen(path.c_str(), "wb")};
  if (guard.file == nullptr) throw Error(fmt::format("{}: cannot create the file", path.string()));
  std::string text;
  for (const Protein& protein : proteome) {
    text += fmt::format(">{}_{} protein {} OS={}\n", species, protein.name, protein.name, species);
    for (std::size_t at = 0; at < protein.sequence.size(); at += residues_per_line) {
      text.append(protein.sequence, at, residues_per_line);
      text += '\n';
    }
  }
  std::size_t written = 0;
  while (written < text.size()) {
    const auto piece = static_cast<unsigned>(
        std::min<std::size_t>(text.size() - written, std::numeric_limits<int>::max() / 2));
    if (gzwrite(guard.file, text.data() + written, piece) != static_cast<int>(piece)) {
      int code = 0;
      throw Error(fmt::format("{}: write failed: {}", path.string(), gzerror(guard.file, &code)));
    }
    written += piece;
  }
  const int closed = gzclose(guard.file);
  guard.file = nullptr;
  if (closed != Z_OK)
    throw Error(fmt::format("{}: write failed (zlib error {})", path.string(), closed));
}

std::string gunzip(std::span<const std::byte> data, const std::string& origin) {
  using allpairs::InputError;
  if (data.size() < 2 || data[0] != std::byte{0x1f} || data[1] != std::byte{0x8b})
    throw InputError(fmt::format("{}: not a gzip file", origin));
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK)
    throw Error(fmt::format("{}: cannot start zlib", origin));
  const auto* next = reinterpret_cast<const Bytef*>(data.data());
  const auto* const last = next + data.size();
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    if (stream.avail_in == 0 && next < last) {
      // zlib counts input in uInt: feed files beyond 4 GiB in pieces.
      const auto piece = std::min<std::size_t>(static_cast<std::size_t>(last - next),
                                               std::numeric_limits<uInt>::max());
      stream.next_in = const_cast<Bytef*>(next);
      stream.avail_in = static_cast<uInt>(piece);
      next += piece;
    }
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    const int status = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
    const std::size_t offset = static_cast<std::size_t>(
        next - stream.avail_in - reinterpret_cast<const Bytef*>(data.data()));
    if (status == Z_STREAM_END) {
      if (stream.avail_in == 0 && next == last) break;
      inflateReset(&stream);  // another gzip member follows (as `cat a.gz b.gz` makes)
    } else if (status == Z_BUF_ERROR && stream.avail_in == 0 && next == last) {
      inflateEnd(&stream);
      throw InputError(
          fmt::format("{}: truncated gzip stream (the data ends after {} bytes, {} "
                      "decompressed, before the end of the stream)",
                      origin, offset, out.size()));
    } else if (status != Z_OK && status != Z_BUF_ERROR) {
      const std::string reason = stream.msg != nullptr ? stream.msg : "corrupt data";
      inflateEnd(&stream);
      throw InputError(
          fmt::format("{}: corrupt gzip stream at byte {}: {}", origin, offset, reason));
    }
  }
  inflateEnd(&stream);
  return out;
}

std::vector<std::uint8_t> parse_fasta(std::string_view text, const std::string& origin) {
  using allpairs::InputError;
  std::vector<std::uint8_t> residues;
  residues.reserve(text.size());
  bool in_record = false;
  bool stopped = false;  // the record's sequence ended with '*'
  std::size_t line_number = 0;
  std::size_t total = 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.front() == '>') {
      if (in_record) residues.push_back(protein_separator);
      in_record = true;
      stopped = false;
      continue;
    }
    if (!in_record)
      throw InputError(
          fmt::format("{}:{}: a sequence line before the first '>' header", origin, line_number));
    for (std::size_t column = 0; column < line.size(); ++column) {
      const char c = line[column];
      if (c == ' ' || c == '\t') continue;
      const int code = residue_code(c);
      if (code >= 0 && !stopped) {
        residues.push_back(static_cast<std::uint8_t>(code));
        ++total;
      } else if (c == '*' && !stopped) {
        stopped = true;
      } else {
        throw InputError(fmt::format("{}:{}: {} at column {} is not an amino-acid letter{}", origin,
                                     line_number, describe(c), column + 1,
                                     stopped ? " (the sequence ended with '*')" : ""));
      }
    }
  }
  if (in_record) residues.push_back(protein_separator);
  if (total == 0) throw InputError(fmt::format("{}: no protein residues in the file", origin));
  return residues;
}

}  // namespace strata::apps::phylogeny
