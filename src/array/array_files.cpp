// Arrays to and from the files scientists already have: NumPy .npy.

#include "strata/array/arrays.hpp"
#include "strata/array/npy.hpp"

namespace strata::array {

Array Arrays::load_npy(const std::string& path, std::string name,
                       const Distribution& distribution) {
  NpyHeader header;
  const std::vector<std::byte> data = read_npy(path, header);
  Array array = create(std::move(name), header.type, header.shape, distribution);
  write(array, data);
  return array;
}

void Arrays::save_npy(const Array& array, const std::string& path) {
  const std::vector<std::byte> data = read(array, Region::whole(array.shape()));
  const Shape& shape = array.shape();
  write_npy(path, array.type(),
            std::vector<std::uint64_t>(shape.extent.begin(), shape.extent.begin() + shape.dims),
            data);
}

}  // namespace strata::array
