#include "strata/dataset/record_files.hpp"

#include <zlib.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "strata/base/error.hpp"
#include "strata/store/npy.hpp"

namespace strata::dataset {
namespace {

std::vector<std::string> split_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  for (char c : line) {
    if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(field);
  for (std::string& f : fields) {
    const auto first = f.find_first_not_of(" \t");
    const auto last = f.find_last_not_of(" \t");
    f = first == std::string::npos ? std::string() : f.substr(first, last - first + 1);
  }
  return fields;
}

// Parses `text` as one element of `type` into `out`; false when it is not one.
template <typename V>
bool parse_as(const std::string& text, std::byte* out) {
  V value{};
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end || text.empty()) return false;
  std::memcpy(out, &value, sizeof(V));
  return true;
}

bool parse_element(const std::string& text, device::ElementType type, std::byte* out) {
  using device::ElementType;
  switch (type) {
    case ElementType::u8: {
      unsigned v = 0;
      if (!parse_as<unsigned>(text, reinterpret_cast<std::byte*>(&v)) || v > 255) return false;
      *out = static_cast<std::byte>(v);
      return true;
    }
    case ElementType::i8:
      return parse_as<std::int8_t>(text, out);
    case ElementType::i16:
      return parse_as<std::int16_t>(text, out);
    case ElementType::u16:
      return parse_as<std::uint16_t>(text, out);
    case ElementType::i32:
      return parse_as<std::int32_t>(text, out);
    case ElementType::u32:
      return parse_as<std::uint32_t>(text, out);
    case ElementType::i64:
      return parse_as<std::int64_t>(text, out);
    case ElementType::u64:
      return parse_as<std::uint64_t>(text, out);
    case ElementType::f32:
      return parse_as<float>(text, out);
    case ElementType::f64:
      return parse_as<double>(text, out);
  }
  return false;
}

std::string format_element(device::ElementType type, const std::byte* in) {
  using device::ElementType;
  char buffer[64];
  const auto print = [&](auto v) {
    const auto [ptr, error] = std::to_chars(buffer, buffer + sizeof(buffer), v);
    (void)error;
    return std::string(buffer, ptr);
  };
  const auto read = [&](auto v) {
    std::memcpy(&v, in, sizeof(v));
    return print(v);
  };
  switch (type) {
    case ElementType::u8:
      return print(static_cast<unsigned>(*in));
    case ElementType::i8:
      return print(static_cast<int>(std::to_integer<std::int8_t>(*in)));
    case ElementType::i16:
      return read(std::int16_t{});
    case ElementType::u16:
      return read(std::uint16_t{});
    case ElementType::i32:
      return read(std::int32_t{});
    case ElementType::u32:
      return read(std::uint32_t{});
    case ElementType::i64:
      return read(std::int64_t{});
    case ElementType::u64:
      return read(std::uint64_t{});
    case ElementType::f32:
      return read(float{});  // shortest text that reads back the same
    case ElementType::f64:
      return read(double{});
  }
  throw Error("write_csv: a field of an unsupported type");
}

// The columns of a field: its name, or name0, name1, ... for an array.
std::vector<std::string> columns_of(const Field& field) {
  if (field.count == 1) return {field.name};
  std::vector<std::string> columns;
  for (std::uint32_t i = 0; i < field.count; ++i)
    columns.push_back(field.name + std::to_string(i));
  return columns;
}

void check_fields(const std::vector<Field>& fields, std::uint32_t record_bytes,
                  const std::string& path) {
  for (const Field& field : fields) {
    if (field.offset + field.count * device::size_of(field.type) > record_bytes)
      throw Error("'" + path + "': field '" + field.name + "' lies outside the record");
  }
}

}  // namespace

std::vector<std::byte> read_binary_records(const std::string& path, std::uint32_t record_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error("cannot open '" + path + "'");
  std::vector<std::byte> bytes(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw Error("cannot read '" + path + "'");
  if (bytes.size() % record_bytes != 0) {
    throw Error("'" + path + "' has " + std::to_string(bytes.size()) + " bytes: not whole " +
                std::to_string(record_bytes) + "-byte records (the last one, at byte offset " +
                std::to_string(bytes.size() / record_bytes * record_bytes) + ", has " +
                std::to_string(bytes.size() % record_bytes) + " bytes)");
  }
  return bytes;
}

std::vector<std::byte> read_csv_records(const std::string& path, std::uint32_t record_bytes,
                                        const std::vector<Field>& fields) {
  check_fields(fields, record_bytes, path);
  std::ifstream in(path);
  if (!in) throw Error("cannot open '" + path + "'");
  std::string line;
  if (!std::getline(in, line)) throw Error("'" + path + "' is empty: no header line");
  const std::vector<std::string> header = split_line(line);
  std::map<std::string, std::size_t> column_of;
  for (std::size_t c = 0; c < header.size(); ++c)
    column_of.emplace(header[c], c);
  // Per element of the record: its column, type and byte offset.
  struct Slot {
    std::size_t column;
    device::ElementType type;
    std::uint32_t offset;
    std::string name;
  };
  std::vector<Slot> slots;
  for (const Field& field : fields) {
    const std::vector<std::string> columns = columns_of(field);
    for (std::uint32_t i = 0; i < columns.size(); ++i) {
      const auto it = column_of.find(columns[i]);
      if (it == column_of.end()) {
        throw Error("'" + path + "': the header has no column '" + columns[i] +
                    "' (it has: " + line + ")");
      }
      slots.push_back({it->second, field.type,
                       field.offset + i * static_cast<std::uint32_t>(device::size_of(field.type)),
                       columns[i]});
    }
  }
  std::vector<std::byte> records;
  std::uint64_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> values = split_line(line);
    if (values.size() != header.size()) {
      throw Error("'" + path + "' line " + std::to_string(number) + ": " +
                  std::to_string(values.size()) + " fields, the header has " +
                  std::to_string(header.size()));
    }
    const std::size_t at = records.size();
    records.resize(at + record_bytes);
    for (const Slot& slot : slots) {
      if (!parse_element(values[slot.column], slot.type, records.data() + at + slot.offset)) {
        throw Error("'" + path + "' line " + std::to_string(number) + ", field '" + slot.name +
                    "': '" + values[slot.column] + "' is not a " +
                    std::string(device::to_string(slot.type)));
      }
    }
  }
  return records;
}

void write_csv_records(const std::string& path, std::span<const std::byte> records,
                       std::uint32_t record_bytes, const std::vector<Field>& fields) {
  check_fields(fields, record_bytes, path);
  const std::string part = path + ".part";
  {
    std::ofstream out(part, std::ios::trunc);
    if (!out) throw Error("cannot write '" + part + "'");
    std::string line;
    for (const Field& field : fields) {
      for (const std::string& column : columns_of(field))
        line += (line.empty() ? "" : ",") + column;
    }
    out << line << '\n';
    for (std::size_t r = 0; r < records.size() / record_bytes; ++r) {
      line.clear();
      const std::byte* record = records.data() + r * record_bytes;
      for (const Field& field : fields) {
        for (std::uint32_t i = 0; i < field.count; ++i) {
          if (!line.empty()) line += ',';
          line +=
              format_element(field.type, record + field.offset + i * device::size_of(field.type));
        }
      }
      out << line << '\n';
    }
    out.flush();
    if (!out) throw Error("writing '" + part + "' failed");
  }
  std::filesystem::rename(part, path);
}

IdxFile read_idx(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw Error("cannot open '" + path + "'");
  std::vector<std::byte> bytes;
  std::byte buffer[1 << 16];
  for (;;) {
    const int n = gzread(file, buffer, sizeof(buffer));
    if (n < 0) {
      gzclose(file);
      throw Error("'" + path + "': not a readable gzip or IDX file");
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
  gzclose(file);
  const auto u8 = [&](std::size_t i) { return std::to_integer<std::uint32_t>(bytes[i]); };
  if (bytes.size() < 4 || u8(0) != 0 || u8(1) != 0)
    throw Error("'" + path + "' is not an IDX file (no magic number)");
  IdxFile idx;
  idx.type = static_cast<std::uint8_t>(u8(2));
  const std::uint32_t dims = u8(3);
  const std::size_t header = 4 + 4 * std::size_t{dims};
  if (bytes.size() < header) throw Error("'" + path + "': its IDX header is cut short");
  std::uint64_t elements = 1;
  for (std::uint32_t d = 0; d < dims; ++d) {
    const std::size_t at = 4 + 4 * std::size_t{d};
    idx.dimensions.push_back(u8(at) << 24 | u8(at + 1) << 16 | u8(at + 2) << 8 | u8(at + 3));
    elements *= idx.dimensions.back();
  }
  if (idx.type != 0x08) throw Error("'" + path + "': IDX type other than unsigned bytes");
  if (bytes.size() - header != elements) {
    throw Error("'" + path + "': its IDX header promises " + std::to_string(elements) +
                " bytes of data, the file has " + std::to_string(bytes.size() - header));
  }
  idx.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
  return idx;
}

std::vector<std::byte> read_npy_records(const std::string& path, std::uint32_t record_bytes) {
  store::NpyHeader header;
  std::vector<std::byte> data = store::read_npy(path, header);
  if (header.shape.size() > 2)
    throw Error("'" + path + "': a .npy file of records has 1 or 2 dimensions");
  const std::uint64_t row =
      device::size_of(header.type) * (header.shape.size() == 2 ? header.shape[1] : 1);
  if (row != record_bytes) {
    throw Error("'" + path + "': its rows have " + std::to_string(row) + " bytes, the records " +
                std::to_string(record_bytes));
  }
  return data;
}

}  // namespace strata::dataset
