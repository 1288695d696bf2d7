// Arrays to and from the files scientists already have: NumPy .npy and HDF5.

#include <filesystem>

#include "strata/array/arrays.hpp"
#include "strata/base/error.hpp"
#include "strata/store/npy.hpp"
#if STRATA_ARRAY_WITH_HDF5
#include "hdf5_kinds.hpp"
#include "strata/store/hdf5_file.hpp"
#endif

namespace strata::array {

Array Arrays::load_npy(const std::string& path, std::string name,
                       const Distribution& distribution) {
  store::NpyHeader header;
  const std::vector<std::byte> data = store::read_npy(path, header);
  Array array = create(std::move(name), header.type, header.shape, distribution);
  write(array, data);
  return array;
}

void Arrays::save_npy(const Array& array, const std::string& path) {
  const std::vector<std::byte> data = read(array, Region::whole(array.shape()));
  const Shape& shape = array.shape();
  store::write_npy(
      path, array.type(),
      std::vector<std::uint64_t>(shape.extent.begin(), shape.extent.begin() + shape.dims), data);
}

#if STRATA_ARRAY_WITH_HDF5
namespace {
detail::Hdf5Box box_of(const std::string& path, const std::string& dataset, const Region& region,
                       device::ElementType type) {
  detail::Hdf5Box box;
  box.path = path;
  box.dataset = dataset;
  box.dims = region.dims;
  box.lo = region.lo;
  box.hi = region.hi;
  box.type = type;
  return box;
}
}  // namespace

Array Arrays::load_hdf5(const std::string& path, const std::string& dataset, std::string name,
                        const Distribution& distribution) {
  const store::Hdf5Dataset found = store::describe_hdf5_dataset(path, dataset);
  Array array = create(std::move(name), found.type, found.shape, distribution);
  const cluster::PlanBatch batch(driver_);
  for (const ArrayChunk& chunk : array.chunks()) {
    driver_.plan_with(chunk.placement.place.rank, detail::hdf5_read_kind_name,
                      {cluster::Use{chunk.ref, runtime::Access::write}},
                      box_of(path, dataset, chunk.placement.region, found.type),
                      "read " + array.name() + " from " + path);
  }
  return array;
}

void Arrays::save_hdf5(const Array& array, const std::string& path, const std::string& dataset) {
  if (!array.valid()) throw Error("saving an array: the array was deleted or never made");
  const std::string partial = path + ".partial";
  const Shape& shape = array.shape();
  const std::vector<std::uint64_t> extents(shape.extent.begin(), shape.extent.begin() + shape.dims);
  // The dataset's elements have their place in the file from its creation: every rank writes its
  // own chunks' boxes there, all at once.
  const std::uint64_t data_offset =
      store::create_hdf5_dataset(partial, dataset, array.type(), extents);
  {
    const cluster::PlanBatch batch(driver_);
    const auto& chunks = array.chunks();
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      // A chunk whose elements an earlier one holds (a replica) has nothing new to write.
      bool held = false;
      for (std::size_t j = 0; j < i && !held; ++j)
        held = chunks[j].placement.region.contains(chunks[i].placement.region);
      if (held) continue;
      detail::Hdf5Box box = box_of(partial, dataset, chunks[i].placement.region, array.type());
      box.shape = extents;
      box.data_offset = data_offset;
      driver_.plan_with(chunks[i].placement.place.rank, detail::hdf5_write_kind_name,
                        {cluster::Use{chunks[i].ref, runtime::Access::read}}, box,
                        "write " + array.name() + " to " + path);
    }
  }
  driver_.wait_all();
  std::filesystem::rename(partial, path);
}
#else
Array Arrays::load_hdf5(const std::string& path, const std::string&, std::string,
                        const Distribution&) {
  throw Error(path +
              ": this Strata was built without HDF5 (install libhdf5-dev and configure "
              "again)");
}

void Arrays::save_hdf5(const Array&, const std::string& path, const std::string&) {
  throw Error(path +
              ": this Strata was built without HDF5 (install libhdf5-dev and configure "
              "again)");
}
#endif

}  // namespace strata::array
