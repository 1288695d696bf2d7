#include "strata/store/hdf5_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <hdf5.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

#include "strata/base/error.hpp"

namespace strata::store {
namespace {

std::mutex& library_lock() {
  static std::mutex lock;
  return lock;
}

// Closes an HDF5 identifier when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, -1)), close_(other.close_) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle& operator=(Handle&&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

[[noreturn]] void fail(const std::string& path, const std::string& dataset,
                       const std::string& what) {
  if (dataset.empty()) throw Error(fmt::format("{}: {}", path, what));
  throw Error(fmt::format("{}, dataset '{}': {}", path, dataset, what));
}

Handle open_file(const std::string& path, unsigned flags) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors come back as ours, not printed
  Handle file(H5Fopen(path.c_str(), flags, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) fail(path, "", "cannot open it as an HDF5 file");
  return file;
}

Handle open_dataset(const Handle& file, const std::string& path, const std::string& dataset) {
  Handle opened(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (!opened.ok())
    fail(path, dataset, "no such dataset in the file (strata arrays info lists them)");
  return opened;
}

hid_t memory_type(device::ElementType type) {
  switch (type) {
    case device::ElementType::i8:
      return H5T_NATIVE_INT8;
    case device::ElementType::u8:
      return H5T_NATIVE_UINT8;
    case device::ElementType::i16:
      return H5T_NATIVE_INT16;
    case device::ElementType::u16:
      return H5T_NATIVE_UINT16;
    case device::ElementType::i32:
      return H5T_NATIVE_INT32;
    case device::ElementType::u32:
      return H5T_NATIVE_UINT32;
    case device::ElementType::i64:
      return H5T_NATIVE_INT64;
    case device::ElementType::u64:
      return H5T_NATIVE_UINT64;
    case device::ElementType::f32:
      return H5T_NATIVE_FLOAT;
    case device::ElementType::f64:
      return H5T_NATIVE_DOUBLE;
  }
  return H5T_NATIVE_FLOAT;
}

// What the dataset holds, with `unsupported` saying why Strata cannot hold it, if it cannot.
Hdf5Dataset describe(hid_t dataset_id, const std::string& name) {
  Hdf5Dataset described;
  described.name = name;
  const Handle type(H5Dget_type(dataset_id), H5Tclose);
  const H5T_class_t kind = H5Tget_class(type.get());
  const std::size_t size = H5Tget_size(type.get());
  if (kind == H5T_FLOAT && (size == 4 || size == 8)) {
    described.type = size == 4 ? device::ElementType::f32 : device::ElementType::f64;
  } else if (kind == H5T_INTEGER && (size == 1 || size == 2 || size == 4 || size == 8)) {
    const bool is_signed = H5Tget_sign(type.get()) == H5T_SGN_2;
    constexpr std::array<device::ElementType, 4> signed_types{
        device::ElementType::i8, device::ElementType::i16, device::ElementType::i32,
        device::ElementType::i64};
    constexpr std::array<device::ElementType, 4> unsigned_types{
        device::ElementType::u8, device::ElementType::u16, device::ElementType::u32,
        device::ElementType::u64};
    const std::size_t index = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
    described.type = is_signed ? signed_types[index] : unsigned_types[index];
  } else {
    described.unsupported = fmt::format(
        "its elements are not integers of 1 to 8 bytes or floats of 4 or 8 (HDF5 class {}, {} "
        "bytes)",
        static_cast<int>(kind), size);
  }
  const Handle space(H5Dget_space(dataset_id), H5Sclose);
  const int dims = H5Sget_simple_extent_ndims(space.get());
  if (dims > 0 && dims <= 8) {
    std::array<hsize_t, 8> extents{};
    H5Sget_simple_extent_dims(space.get(), extents.data(), nullptr);
    for (int d = 0; d < dims; ++d)
      described.shape.push_back(extents[static_cast<std::size_t>(d)]);
  }
  if (described.unsupported.empty() && (dims < 1 || dims > 3)) {
    described.unsupported = fmt::format("it has {} dimensions; arrays have 1 to 3", dims);
  }
  return described;
}

herr_t visit(hid_t group, const char* name, const H5L_info_t* /*info*/, void* data) {
  auto& found = *static_cast<std::vector<Hdf5Dataset>*>(data);
  const Handle object(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
  if (object.ok() && H5Iget_type(object.get()) == H5I_DATASET) {
    found.push_back(describe(object.get(), std::string("/") + name));
  }
  return 0;
}

// The hyperslab of `region` selected in the dataset's space, and a memory space of its extents.
std::pair<Handle, Handle> select(hid_t dataset_id, const Region& region) {
  Handle file_space(H5Dget_space(dataset_id), H5Sclose);
  std::array<hsize_t, 3> start{}, count{};
  for (std::uint32_t d = 0; d < region.dims; ++d) {
    start[d] = region.lo[d];
    count[d] = region.hi[d] - region.lo[d];
  }
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                      nullptr);
  Handle memory_space(H5Screate_simple(static_cast<int>(region.dims), count.data(), nullptr),
                      H5Sclose);
  return {std::move(file_space), std::move(memory_space)};
}

void add_attribute(hid_t dataset_id, const Hdf5Attribute& attribute, const std::string& path,
                   const std::string& dataset) {
  if (attribute.text.empty() && attribute.numbers.empty()) return;  // nothing to say
  herr_t status = 0;
  if (!attribute.text.empty()) {
    const Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), attribute.text.size());
    const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    const Handle made(H5Acreate2(dataset_id, attribute.name.c_str(), type.get(), space.get(),
                                 H5P_DEFAULT, H5P_DEFAULT),
                      H5Aclose);
    status = made.ok() ? H5Awrite(made.get(), type.get(), attribute.text.data()) : -1;
  } else {
    const hsize_t count = attribute.numbers.size();
    const Handle space(H5Screate_simple(1, &count, nullptr), H5Sclose);
    const Handle made(H5Acreate2(dataset_id, attribute.name.c_str(), H5T_STD_I64LE, space.get(),
                                 H5P_DEFAULT, H5P_DEFAULT),
                      H5Aclose);
    status = made.ok() ? H5Awrite(made.get(), H5T_NATIVE_INT64, attribute.numbers.data()) : -1;
  }
  if (status < 0) fail(path, dataset, fmt::format("cannot write attribute '{}'", attribute.name));
}

void check_region(const std::string& path, const std::string& dataset, const Hdf5Dataset& found,
                  const Region& region, device::ElementType type, std::size_t bytes) {
  if (!found.unsupported.empty()) fail(path, dataset, found.unsupported);
  if (found.shape.size() != region.dims) {
    fail(path, dataset,
         fmt::format("has {} dimensions, the array {}", found.shape.size(), region.dims));
  }
  for (std::uint32_t d = 0; d < region.dims; ++d) {
    if (region.hi[d] > found.shape[d]) {
      fail(path, dataset,
           fmt::format("box {} leaves its shape ({})", region.describe(),
                       fmt::join(found.shape, ", ")));
    }
  }
  if (bytes != region.elements() * device::size_of(type)) {
    fail(path, dataset,
         fmt::format("{} bytes for box {} of {}", bytes, region.describe(),
                     device::to_string(type)));
  }
}

// Calls `run(at, from, bytes)` for each run of `region` contiguous in a row-major dataset of
// `shape`: `at` bytes from the dataset's first element, `from` bytes into the region's own
// elements; the innermost dimensions the region covers whole go as one run with the next one
// out. Stops at the first error `run` returns (empty: none) and returns it.
template <typename Run>
std::string for_each_run(const std::vector<std::uint64_t>& shape, const Region& region,
                         device::ElementType type, Run run) {
  const std::uint32_t dims = region.dims;
  const std::uint64_t element = device::size_of(type);
  std::array<std::uint64_t, 3> stride{1, 1, 1};  // elements between indices, per dimension
  for (std::uint32_t d = dims - 1; d > 0; --d)
    stride[d - 1] = stride[d] * shape[d];
  std::uint32_t outer = dims - 1;
  while (outer > 0 && region.lo[outer] == 0 && region.hi[outer] == shape[outer])
    --outer;
  const std::uint64_t bytes = (region.hi[outer] - region.lo[outer]) * stride[outer] * element;
  std::array<std::uint64_t, 3> at = region.lo;
  for (std::uint64_t from = 0;; from += bytes) {
    std::uint64_t index = 0;
    for (std::uint32_t d = 0; d < dims; ++d)
      index += at[d] * stride[d];
    std::string error = run(index * element, from, bytes);
    if (!error.empty()) return error;
    // The next run: the indices of the dimensions outside `outer` advance, innermost first.
    bool more = false;
    for (std::uint32_t d = outer; d-- > 0 && !more;) {
      more = ++at[d] < region.hi[d];
      if (!more) at[d] = region.lo[d];
    }
    if (!more) return {};
  }
}

}  // namespace

std::vector<Hdf5Dataset> list_hdf5_datasets(const std::string& path) {
  const std::lock_guard guard(library_lock());
  const Handle file = open_file(path, H5F_ACC_RDONLY);
  std::vector<Hdf5Dataset> found;
  if (H5Lvisit(file.get(), H5_INDEX_NAME, H5_ITER_NATIVE, visit, &found) < 0) {
    fail(path, "", "cannot list its datasets");
  }
  return found;
}

Hdf5Dataset describe_hdf5_dataset(const std::string& path, const std::string& dataset) {
  const std::lock_guard guard(library_lock());
  const Handle file = open_file(path, H5F_ACC_RDONLY);
  const Handle opened = open_dataset(file, path, dataset);
  Hdf5Dataset described = describe(opened.get(), dataset);
  if (!described.unsupported.empty()) fail(path, dataset, described.unsupported);
  return described;
}

void read_hdf5_box(const std::string& path, const std::string& dataset, const Region& region,
                   device::ElementType type, std::span<std::byte> out) {
  const std::lock_guard guard(library_lock());
  const Handle file = open_file(path, H5F_ACC_RDONLY);
  const Handle opened = open_dataset(file, path, dataset);
  check_region(path, dataset, describe(opened.get(), dataset), region, type, out.size());
  const auto [file_space, memory_space] = select(opened.get(), region);
  if (H5Dread(opened.get(), memory_type(type), memory_space.get(), file_space.get(), H5P_DEFAULT,
              out.data()) < 0) {
    fail(path, dataset, fmt::format("reading box {} failed", region.describe()));
  }
}

std::uint64_t create_hdf5_dataset(const std::string& path, const std::string& dataset,
                                  device::ElementType type, const std::vector<std::uint64_t>& shape,
                                  const std::vector<Hdf5Attribute>& attributes) {
  const std::lock_guard guard(library_lock());
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) fail(path, "", "cannot create it");
  const std::vector<hsize_t> extents(shape.begin(), shape.end());
  const Handle space(H5Screate_simple(static_cast<int>(extents.size()), extents.data(), nullptr),
                     H5Sclose);
  const Handle links(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(links.get(), 1);
  // Contiguous, allocated now and never filled: the elements have a fixed place in the file from
  // the start, which write_hdf5_box_at writes to.
  const Handle creation(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_layout(creation.get(), H5D_CONTIGUOUS);
  H5Pset_alloc_time(creation.get(), H5D_ALLOC_TIME_EARLY);
  H5Pset_fill_time(creation.get(), H5D_FILL_TIME_NEVER);
  const Handle made(H5Dcreate2(file.get(), dataset.c_str(), memory_type(type), space.get(),
                               links.get(), creation.get(), H5P_DEFAULT),
                    H5Dclose);
  if (!made.ok()) fail(path, dataset, "cannot create the dataset");
  for (const Hdf5Attribute& attribute : attributes)
    add_attribute(made.get(), attribute, path, dataset);
  const haddr_t offset = H5Dget_offset(made.get());
  if (offset == HADDR_UNDEF) fail(path, dataset, "the new dataset has no place in the file");
  return offset;
}

void write_hdf5_box_at(const std::string& path, const std::string& dataset,
                       std::uint64_t data_offset, const std::vector<std::uint64_t>& shape,
                       const Region& region, device::ElementType type,
                       std::span<const std::byte> values) {
  Hdf5Dataset expected;
  expected.type = type;
  expected.shape = shape;
  check_region(path, dataset, expected, region, type, values.size());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail(path, dataset, fmt::format("cannot open it to write: {}", std::strerror(errno)));
  std::string error = for_each_run(
      shape, region, type, [&](std::uint64_t at, std::uint64_t from, std::uint64_t run) {
        for (std::uint64_t done = 0; done < run;) {
          const ssize_t wrote = ::pwrite(fd, values.data() + from + done, run - done,
                                         static_cast<off_t>(data_offset + at + done));
          if (wrote > 0) {
            done += static_cast<std::uint64_t>(wrote);
          } else if (wrote == 0) {
            return std::string("nothing was written");
          } else if (errno != EINTR) {
            return std::string(std::strerror(errno));
          }
        }
        return std::string();
      });
  if (::close(fd) != 0 && error.empty()) error = std::strerror(errno);
  if (!error.empty()) {
    fail(path, dataset, fmt::format("writing box {} failed: {}", region.describe(), error));
  }
}

void read_hdf5_box_at(const std::string& path, const std::string& dataset,
                      std::uint64_t data_offset, const std::vector<std::uint64_t>& shape,
                      const Region& region, device::ElementType type, std::span<std::byte> out) {
  Hdf5Dataset expected;
  expected.type = type;
  expected.shape = shape;
  check_region(path, dataset, expected, region, type, out.size());
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, dataset, fmt::format("cannot open it to read: {}", std::strerror(errno)));
  const std::string error = for_each_run(
      shape, region, type, [&](std::uint64_t at, std::uint64_t from, std::uint64_t run) {
        for (std::uint64_t done = 0; done < run;) {
          const ssize_t got = ::pread(fd, out.data() + from + done, run - done,
                                      static_cast<off_t>(data_offset + at + done));
          if (got > 0) {
            done += static_cast<std::uint64_t>(got);
          } else if (got == 0) {
            return std::string("the file ends before the box");
          } else if (errno != EINTR) {
            return std::string(std::strerror(errno));
          }
        }
        return std::string();
      });
  ::close(fd);
  if (!error.empty()) {
    fail(path, dataset, fmt::format("reading box {} failed: {}", region.describe(), error));
  }
}

std::uint64_t hdf5_dataset_offset(const std::string& path, const std::string& dataset) {
  const std::lock_guard guard(library_lock());
  const Handle file = open_file(path, H5F_ACC_RDONLY);
  const Handle opened = open_dataset(file, path, dataset);
  const haddr_t offset = H5Dget_offset(opened.get());
  if (offset == HADDR_UNDEF) fail(path, dataset, "its elements are not contiguous in the file");
  return offset;
}

void write_hdf5_box(const std::string& path, const std::string& dataset, const Region& region,
                    device::ElementType type, std::span<const std::byte> values) {
  const std::lock_guard guard(library_lock());
  const Handle file = open_file(path, H5F_ACC_RDWR);
  const Handle opened = open_dataset(file, path, dataset);
  check_region(path, dataset, describe(opened.get(), dataset), region, type, values.size());
  const auto [file_space, memory_space] = select(opened.get(), region);
  if (H5Dwrite(opened.get(), memory_type(type), memory_space.get(), file_space.get(), H5P_DEFAULT,
               values.data()) < 0) {
    fail(path, dataset, fmt::format("writing box {} failed", region.describe()));
  }
}

}  // namespace strata::store
