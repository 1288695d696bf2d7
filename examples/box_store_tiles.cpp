// Tiles of an image kept in a box store by key and box (docs/storage.md): each tile's mask
// written as its own box, staged to HDF5 files on an I/O thread; a region across four tiles read
// back, assembled; the store opened again finds every box. Prints what it read.
// Usage: example_box_store_tiles [DIRECTORY]   (kept for `strata store ls DIRECTORY`; default: a
// directory under /tmp, removed at the end)

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "strata/store/hdf5_box_store.hpp"

using strata::store::DataKey;
using strata::store::Hdf5BoxStore;
using strata::store::Region;

namespace {

// A box of rows [r0, r1) and columns [c0, c1).
Region rows_cols(std::uint64_t r0, std::uint64_t r1, std::uint64_t c0, std::uint64_t c1) {
  return Region::of(std::array<std::uint64_t, 2>{r0, c0}, std::array<std::uint64_t, 2>{r1, c1});
}

// The mask of one tile: 1 inside a disc around the image's centre, else 0.
std::vector<std::uint8_t> mask_of(const Region& tile, double centre, double radius) {
  std::vector<std::uint8_t> mask;
  for (std::uint64_t r = tile.lo[0]; r < tile.hi[0]; ++r) {
    for (std::uint64_t c = tile.lo[1]; c < tile.hi[1]; ++c) {
      const double dr = static_cast<double>(r) - centre, dc = static_cast<double>(c) - centre;
      mask.push_back(dr * dr + dc * dc < radius * radius ? 1 : 0);
    }
  }
  return mask;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string directory =
      argc > 1 ? argv[1] : (std::filesystem::temp_directory_path() / "strata-box-store-example");
  std::filesystem::remove_all(directory);
  constexpr std::uint64_t side = 256, tile = 64;
  const DataKey mask{"slide-1", "mask", 0, 1};  // name, kind, timestamp, version
  {
    Hdf5BoxStore store(directory);  // staged writes: write() copies the tile and returns
    for (std::uint64_t r = 0; r < side; r += tile) {
      for (std::uint64_t c = 0; c < side; c += tile) {
        const Region box = rows_cols(r, r + tile, c, c + tile);
        store.write_of<std::uint8_t>(mask, box, mask_of(box, side / 2.0, side / 3.0));
      }
    }
    store.flush();  // every file complete (throws the first write that failed)
  }
  Hdf5BoxStore store(directory);  // opened again: the boxes are found in their files
  const Region centre = rows_cols(96, 160, 96, 160);  // across four tiles
  const std::vector<std::uint8_t> read = store.read_as<std::uint8_t>(mask, centre);
  std::uint64_t inside = 0;
  for (const std::uint8_t value : read)
    inside += value;
  std::printf("%zu boxes stored; region %s of %s: %llu of %llu pixels inside\n",
              store.boxes().size(), centre.describe().c_str(), mask.describe().c_str(),
              static_cast<unsigned long long>(inside),
              static_cast<unsigned long long>(read.size()));
  try {
    store.read_as<std::uint8_t>(mask, rows_cols(200, 300, 0, 10));  // beyond what was written
  } catch (const strata::store::BoxNotStored& error) {
    std::printf("as expected: %s\n", error.what());
  }
  if (argc <= 1) std::filesystem::remove_all(directory);
  return inside == read.size() ? 0 : 1;  // the centre lies inside the disc
}
