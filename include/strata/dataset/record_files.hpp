#pragma once
// Records from and to files: raw binary records, CSV with a header (columns matched to a
// record's fields by name), NumPy .npy (one record per row) and IDX (the MNIST and
// Fashion-MNIST files, gzipped or not). Read whole or not at all: a bad row, a field that does
// not parse or a size that is not whole records is an error naming the file and the line, byte
// offset or field. Writers write beside the file and rename, so a file is complete or absent.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "strata/dataset/record_function.hpp"
#include "strata/device/element_type.hpp"

namespace strata::dataset {

// One field of a record: a number, or `count` numbers in a row (columns name0, name1, ...).
struct Field {
  std::string name;
  device::ElementType type = device::ElementType::f64;
  std::uint32_t offset = 0;
  std::uint32_t count = 1;
};

// The fields of T that files read and write, by name.
template <Record T>
class Schema {
 public:
  template <typename M>
  Schema& field(std::string name, M T::*member) {
    static const T probe{};
    const auto offset = static_cast<std::uint32_t>(reinterpret_cast<const char*>(&(probe.*member)) -
                                                   reinterpret_cast<const char*>(&probe));
    if constexpr (std::is_arithmetic_v<M>) {
      fields_.push_back({std::move(name), device::element_type_of<M>(), offset, 1});
    } else {
      using E = std::remove_cvref_t<decltype(std::declval<M>()[0])>;
      static_assert(std::is_arithmetic_v<E>, "a field is a number or a fixed array of numbers");
      fields_.push_back({std::move(name), device::element_type_of<E>(), offset,
                         static_cast<std::uint32_t>(sizeof(M) / sizeof(E))});
    }
    return *this;
  }
  const std::vector<Field>& fields() const { return fields_; }

 private:
  std::vector<Field> fields_;
};

// The file's bytes as records of `record_bytes`; throws naming the file when its size is not a
// multiple of it (and by how many bytes the last record is short).
std::vector<std::byte> read_binary_records(const std::string& path, std::uint32_t record_bytes);
// Records of `record_bytes` from a CSV file with a header line: each field's columns found by
// name (others are ignored), every row parsed whole.
std::vector<std::byte> read_csv_records(const std::string& path, std::uint32_t record_bytes,
                                        const std::vector<Field>& fields);
void write_csv_records(const std::string& path, std::span<const std::byte> records,
                       std::uint32_t record_bytes, const std::vector<Field>& fields);

// An IDX file (gzipped or not): its element type's code (0x08: u8, ...), its dimensions and data.
struct IdxFile {
  std::uint8_t type = 0x08;
  std::vector<std::uint32_t> dimensions;
  std::vector<std::byte> data;
};
IdxFile read_idx(const std::string& path);

template <Record T>
std::vector<T> records_of_bytes(const std::vector<std::byte>& bytes) {
  std::vector<T> records(bytes.size() / sizeof(T));
  if (!records.empty()) std::memcpy(records.data(), bytes.data(), records.size() * sizeof(T));
  return records;
}

template <Record T>
std::vector<T> read_binary(const std::string& path) {
  return records_of_bytes<T>(read_binary_records(path, sizeof(T)));
}
template <Record T>
std::vector<T> read_csv(const std::string& path, const Schema<T>& schema) {
  return records_of_bytes<T>(read_csv_records(path, sizeof(T), schema.fields()));
}
template <Record T>
void write_csv(const std::string& path, std::span<const T> records, const Schema<T>& schema) {
  write_csv_records(path, std::as_bytes(records), sizeof(T), schema.fields());
}
// The rows of a .npy file of 1 or 2 dimensions as records of T: each row's elements (of T's
// size in all) are one record.
std::vector<std::byte> read_npy_records(const std::string& path, std::uint32_t record_bytes);
template <Record T>
std::vector<T> read_npy(const std::string& path) {
  return records_of_bytes<T>(read_npy_records(path, sizeof(T)));
}

}  // namespace strata::dataset
