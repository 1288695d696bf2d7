// Writes boxes into an HDF5 box store until it is killed, or for PASSES passes: 16 tiles of 64x64
// f64 of the key "field", each pass with values of its own, so that a reader can tell a box
// written whole from one half-written. Prints "writing" once the store is open, so that a killer
// can time its kill from there. Used by the kill -9 test (hdf5_box_store_test.cpp).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "box_store_pattern.hpp"
#include "strata/store/hdf5_box_store.hpp"

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: box_store_writer DIRECTORY [PASSES]\n");
    return 2;
  }
  const std::int64_t passes = argc == 3 ? std::strtoll(argv[2], nullptr, 10) : -1;
  try {
    strata::store::Hdf5StoreOptions options;
    options.queue_bytes = 4 * strata::store::testing::tile_bytes;
    strata::store::Hdf5BoxStore store(argv[1], options);
    std::printf("writing\n");
    std::fflush(stdout);
    for (std::int64_t pass = 0; passes < 0 || pass < passes; ++pass) {
      for (std::uint64_t tile = 0; tile < strata::store::testing::tiles; ++tile) {
        const std::vector<double> values = strata::store::testing::tile_values(tile, pass);
        store.write_of<double>(strata::store::testing::field,
                               strata::store::testing::tile_box(tile), values);
      }
    }
    store.flush();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "box_store_writer: %s\n", error.what());
    return 1;
  }
}
