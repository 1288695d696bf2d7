#include "strata/store/npy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include "strata/base/error.hpp"

namespace strata::store {
namespace {

constexpr std::array<unsigned char, 6> magic{0x93, 'N', 'U', 'M', 'P', 'Y'};

struct TypeCode {
  const char* code;  // numpy's descr without the byte order
  device::ElementType type;
};
constexpr std::array<TypeCode, 10> type_codes{{{"i1", device::ElementType::i8},
                                               {"u1", device::ElementType::u8},
                                               {"i2", device::ElementType::i16},
                                               {"u2", device::ElementType::u16},
                                               {"i4", device::ElementType::i32},
                                               {"u4", device::ElementType::u32},
                                               {"i8", device::ElementType::i64},
                                               {"u8", device::ElementType::u64},
                                               {"f4", device::ElementType::f32},
                                               {"f8", device::ElementType::f64}}};

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw Error(fmt::format("{}: not a .npy file Strata reads: {}", path, what));
}

// The value of `key` in numpy's header dict (a Python literal), or "" if absent.
std::string field(const std::string& dict, const std::string& key) {
  const std::regex pattern("['\"]" + key +
                           "['\"]\\s*:\\s*('[^']*'|\"[^\"]*\"|\\([^)]*\\)|True|False)");
  std::smatch match;
  return std::regex_search(dict, match, pattern) ? match[1].str() : std::string();
}

device::ElementType type_of(const std::string& path, std::string descr) {
  if (descr.size() < 2) bad(path, "no element type ('descr') in its header");
  descr = descr.substr(1, descr.size() - 2);  // the quotes
  const char order = descr.empty() ? '?' : descr[0];
  const std::string code = descr.size() > 1 ? descr.substr(1) : descr;
  if (order == '>' && code != "i1" && code != "u1") {
    bad(path, fmt::format("its elements '{}' are big-endian; save them little-endian "
                          "(numpy: a.astype(a.dtype.newbyteorder('<')))",
                          descr));
  }
  if (order != '<' && order != '|' && order != '=' && order != '>') {
    bad(path, fmt::format("element type '{}' is not a plain number", descr));
  }
  for (const TypeCode& known : type_codes)
    if (code == known.code) return known.type;
  bad(path, fmt::format("element type '{}' is not one of int8..int64, uint8..uint64, float32, "
                        "float64",
                        descr));
}

std::vector<std::uint64_t> shape_of(const std::string& path, const std::string& text) {
  if (text.size() < 2 || text.front() != '(') bad(path, "no 'shape' in its header");
  std::vector<std::uint64_t> shape;
  std::string number;
  for (char c : text.substr(1)) {
    if (c >= '0' && c <= '9') {
      number += c;
    } else if (c == ',' || c == ')') {
      if (!number.empty()) shape.push_back(std::stoull(number));
      number.clear();
    } else if (c != ' ' && c != 'L') {
      bad(path, fmt::format("its shape {} is not a tuple of sizes", text));
    }
  }
  if (shape.empty() || shape.size() > 3) {
    bad(path,
        fmt::format("its shape {} has {} dimensions; arrays have 1 to 3", text, shape.size()));
  }
  for (std::uint64_t extent : shape)
    if (extent == 0) bad(path, fmt::format("its shape {} has an empty dimension", text));
  return shape;
}

}  // namespace

std::uint64_t NpyHeader::elements() const {
  std::uint64_t count = 1;
  for (std::uint64_t extent : shape)
    count *= extent;
  return count;
}

NpyHeader read_npy_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open it for reading", path));
  std::array<unsigned char, 10> start{};
  in.read(reinterpret_cast<char*>(start.data()), 8);
  if (in.gcount() != 8 || !std::equal(magic.begin(), magic.end(), start.begin())) {
    bad(path, "it does not begin with the .npy magic string \\x93NUMPY");
  }
  const int major = start[6];
  std::uint64_t header_bytes = 0;
  std::uint64_t prefix = 0;
  if (major == 1) {
    in.read(reinterpret_cast<char*>(start.data()) + 8, 2);
    header_bytes = start[8] | (static_cast<std::uint64_t>(start[9]) << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    std::array<unsigned char, 4> length{};
    in.read(reinterpret_cast<char*>(length.data()), 4);
    for (int i = 3; i >= 0; --i)
      header_bytes = (header_bytes << 8) | length[static_cast<std::size_t>(i)];
    prefix = 12;
  } else {
    bad(path, fmt::format("format version {}.{} (this reads 1.0 to 3.0)", major, start[7]));
  }
  std::string dict(header_bytes, '\0');
  in.read(dict.data(), static_cast<std::streamsize>(header_bytes));
  if (static_cast<std::uint64_t>(in.gcount()) != header_bytes) bad(path, "its header is cut short");
  if (field(dict, "fortran_order") == "True") {
    bad(path,
        "its elements are in Fortran order; save a C-ordered array "
        "(numpy: np.ascontiguousarray(a))");
  }
  NpyHeader header;
  header.type = type_of(path, field(dict, "descr"));
  header.shape = shape_of(path, field(dict, "shape"));
  header.data_offset = prefix + header_bytes;
  const std::uint64_t needed = header.elements() * device::size_of(header.type);
  const std::uint64_t size = std::filesystem::file_size(path);
  if (size < header.data_offset + needed) {
    bad(path, fmt::format("its shape ({}) of {} needs {} bytes of data, the file has {}",
                          fmt::join(header.shape, ", "), device::to_string(header.type), needed,
                          size - std::min(size, header.data_offset)));
  }
  return header;
}

std::vector<std::byte> read_npy(const std::string& path, NpyHeader& header) {
  header = read_npy_header(path);
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(header.data_offset));
  std::vector<std::byte> data(header.elements() * device::size_of(header.type));
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (static_cast<std::uint64_t>(in.gcount()) != data.size()) {
    throw Error(fmt::format("{}: reading its {} bytes of data failed", path, data.size()));
  }
  return data;
}

void write_npy(const std::string& path, device::ElementType type,
               const std::vector<std::uint64_t>& shape, std::span<const std::byte> data) {
  std::string code;
  for (const TypeCode& known : type_codes)
    if (known.type == type) code = known.code;
  // numpy's tuple: "(7,)" for one dimension, "(3, 4)" for more.
  std::uint64_t elements = 1;
  for (std::uint64_t extent : shape)
    elements *= extent;
  const std::string shape_text = shape.size() == 1 ? fmt::format("({},)", shape[0])
                                                   : fmt::format("({})", fmt::join(shape, ", "));
  if (elements * device::size_of(type) != data.size()) {
    throw Error(fmt::format("{}: {} bytes do not make an array of shape {} of {}", path,
                            data.size(), shape_text, device::to_string(type)));
  }
  std::string dict = fmt::format("{{'descr': '{}{}', 'fortran_order': False, 'shape': {}, }}",
                                 code.size() == 2 && code[1] == '1' ? "|" : "<", code, shape_text);
  const std::size_t total = ((10 + dict.size() + 1 + 63) / 64) * 64;
  dict.append(total - 10 - dict.size() - 1, ' ');
  dict += '\n';
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(fmt::format("{}: cannot open it for writing", temporary));
    out.write(reinterpret_cast<const char*>(magic.data()), magic.size());
    const std::array<char, 4> version{1, 0, static_cast<char>(dict.size() & 0xff),
                                      static_cast<char>(dict.size() >> 8)};
    out.write(version.data(), version.size());
    out.write(dict.data(), static_cast<std::streamsize>(dict.size()));
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size()));
    if (!out.flush())
      throw Error(fmt::format("{}: writing {} bytes failed", temporary, data.size()));
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace strata::store
