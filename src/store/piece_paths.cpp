#include "piece_paths.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <string_view>
#include <vector>

namespace strata::store::detail {
namespace {

std::string escaped(const std::string& text) {
  if (text.empty()) return "%";  // an empty name still makes a directory
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '_') {
      out += c;
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

std::optional<std::string> unescaped(std::string_view text) {
  if (text == "%") return std::string();
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    unsigned value = 0;
    if (i + 2 >= text.size()) return std::nullopt;
    const auto [end, error] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
    if (error != std::errc() || end != text.data() + i + 3) return std::nullopt;
    out += static_cast<char>(value);
    i += 2;
  }
  return out;
}

template <typename T>
bool parse_number(std::string_view text, T& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

std::vector<std::string_view> split(std::string_view text, char at) {
  std::vector<std::string_view> parts;
  for (std::size_t from = 0;;) {
    const std::size_t next = text.find(at, from);
    parts.push_back(text.substr(from, next == std::string_view::npos ? next : next - from));
    if (next == std::string_view::npos) return parts;
    from = next + 1;
  }
}

std::optional<device::ElementType> type_named(std::string_view name) {
  for (int t = 0; t <= static_cast<int>(device::ElementType::f64); ++t) {
    const auto type = static_cast<device::ElementType>(t);
    if (device::to_string(type) == name) return type;
  }
  return std::nullopt;
}

}  // namespace

std::string relative_path_of(const PiecePath& piece) {
  std::string box;
  for (std::uint32_t d = 0; d < piece.box.dims; ++d)
    box += fmt::format("{}{}-{}", d == 0 ? "" : "_", piece.box.lo[d], piece.box.hi[d]);
  return fmt::format("{}/{}/t{}.v{}/{:012}.{}.{}.h5", escaped(piece.key.name),
                     escaped(piece.key.type), piece.key.timestamp, piece.key.version,
                     piece.sequence, device::to_string(piece.type), box);
}

std::optional<PiecePath> parse_relative_path(const std::string& path) {
  const std::vector<std::string_view> parts = split(path, '/');
  if (parts.size() != 4) return std::nullopt;
  PiecePath piece;
  const std::optional<std::string> name = unescaped(parts[0]);
  const std::optional<std::string> type = unescaped(parts[1]);
  if (!name || !type) return std::nullopt;
  piece.key.name = *name;
  piece.key.type = *type;
  const std::vector<std::string_view> state = split(parts[2], '.');
  if (state.size() != 2 || !state[0].starts_with('t') || !state[1].starts_with('v') ||
      !parse_number(state[0].substr(1), piece.key.timestamp) ||
      !parse_number(state[1].substr(1), piece.key.version)) {
    return std::nullopt;
  }
  const std::vector<std::string_view> file = split(parts[3], '.');
  if (file.size() != 4 || file[3] != "h5" || !parse_number(file[0], piece.sequence))
    return std::nullopt;
  const std::optional<device::ElementType> element = type_named(file[1]);
  if (!element) return std::nullopt;
  piece.type = *element;
  const std::vector<std::string_view> dims = split(file[2], '_');
  if (dims.empty() || dims.size() > 3) return std::nullopt;
  piece.box.dims = static_cast<std::uint32_t>(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const std::vector<std::string_view> bounds = split(dims[d], '-');
    if (bounds.size() != 2 || !parse_number(bounds[0], piece.box.lo[d]) ||
        !parse_number(bounds[1], piece.box.hi[d]) || piece.box.hi[d] <= piece.box.lo[d]) {
      return std::nullopt;
    }
  }
  return piece;
}

}  // namespace strata::store::detail
