#pragma once
// Arrays: the distributed-array front end on the driver (the lightning paper, §2–§3). It creates
// arrays whose chunks live on the devices of every rank, writes and reads them from the host,
// and plans distributed kernel launches: per superblock, the annotation's access region of each
// argument, the chunks that hold it, and through the node's plans the box copies that assemble a
// region from several chunks or scatter it back (keeping halos and replicas coherent), the
// transfers between ranks and the kernel on the superblock's device; reduce accesses get a
// partial per superblock, combined per device, rank and cluster. Launches return at once;
// conflicting ones are ordered by their chunks; synchronize() waits.

#include <array>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "strata/array/array.hpp"
#include "strata/array/array_kernel.hpp"
#include "strata/array/distribution.hpp"
#include "strata/array/work_distribution.hpp"
#include "strata/cluster/driver.hpp"
#include "strata/node/node.hpp"

namespace strata::array {

// What the planner did so far.
struct LaunchStats {
  std::uint64_t launches = 0;
  std::uint64_t superblocks = 0;
  // Kernel tasks that ran them: small superblocks of one device run in batches (array_batch_bytes).
  std::uint64_t kernel_tasks = 0;
  std::uint64_t direct_uses = 0;        // a chunk on the superblock's rank held the whole region
  std::uint64_t assembled_regions = 0;  // a temporary chunk was assembled from several chunks
  std::uint64_t box_copies = 0;
  // Partials of reduce accesses made (a device's superblocks take a few in turn).
  std::uint64_t reduce_partials = 0;
  // Of those, chunks reduced into in place (one superblock reducing exactly a chunk of its device).
  std::uint64_t reduced_in_place = 0;
  std::uint64_t reused_regions = 0;  // an assembled region kept from an earlier launch was read
};

namespace detail {
class KeptRegions;
}

class Arrays {
 public:
  // Every rank's node must be prepared (prepare()) before the program runs. The topology: every
  // rank has as many devices as this node; its loads are the driver's view of every rank's
  // devices (cluster::Driver::loads), read again each time chunks or superblocks are placed.
  Arrays(node::Node& node, cluster::Driver& driver);
  // Drops the regions it kept for later launches (after what is planned on them).
  ~Arrays();

  // Defines the front end's plan kinds and the kernels on `node`: call on every rank, before
  // node.program().run().
  static void prepare(node::Node& node, std::span<const ArrayKernel> kernels);

  // The places, with their loads as the driver sees them now (the reference stays valid; its
  // loads change at the next call).
  // Every rank's devices, with the loads the driver knows now.
  const Topology& topology() const { return topology_.now(); }

  // An array of `extents` (1 to 3) elements of `type`, cut and placed by `distribution`, filled
  // with zeros where its chunks live.
  Array create(std::string name, device::ElementType type, std::vector<std::uint64_t> extents,
               const Distribution& distribution);
  // An array with the host's `values` (row-major, the last dimension fastest).
  template <typename T>
  Array from_host(std::string name, std::vector<std::uint64_t> extents,
                  const Distribution& distribution, std::span<const T> values) {
    Array array =
        create(std::move(name), device::element_type_of<T>(), std::move(extents), distribution);
    write(array, std::as_bytes(values));
    return array;
  }
  // Sets every element to `value` where the chunks live (no bytes travel).
  template <typename T>
  void fill(const Array& array, T value) {
    std::array<unsigned char, 8> bytes{};
    std::memcpy(bytes.data(), &value, sizeof(T));
    fill_bytes(array, device::element_type_of<T>(), bytes);
  }
  // Writes the whole array from the host (row-major; exactly shape.elements() elements).
  void write(const Array& array, std::span<const std::byte> values);
  // The elements of `region` (row-major) brought to the host; waits for what writes them.
  std::vector<std::byte> read(const Array& array, const Region& region);
  template <typename T>
  std::vector<T> read_as(const Array& array) {
    return read_as<T>(array, Region::whole(array.shape()));
  }
  template <typename T>
  std::vector<T> read_as(const Array& array, const Region& region) {
    const std::vector<std::byte> bytes = read(array, region);
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
  }
  // An array with the contents of a NumPy .npy file (1 to 3 dimensions, C order, a numeric
  // type); errors name the file and what was expected.
  Array load_npy(const std::string& path, std::string name, const Distribution& distribution);
  // Writes the array to a .npy file numpy reads (complete, or not at all).
  void save_npy(const Array& array, const std::string& path);
  // An array with the contents of dataset `dataset` of an HDF5 file: each rank reads its own
  // chunks' boxes (the file must be readable where the ranks run). Errors name the file, the
  // dataset and what was expected (1 to 3 dimensions, integers or floats).
  Array load_hdf5(const std::string& path, const std::string& dataset, std::string name,
                  const Distribution& distribution);
  // Writes the array as dataset `dataset` of a new HDF5 file: each rank writes its own chunks'
  // boxes, one rank after another; returns once the file is complete (it appears under `path`
  // only then).
  void save_hdf5(const Array& array, const std::string& path, const std::string& dataset);
  // Frees the chunks once what is planned on them ran; the handle (and its copies) go invalid.
  void destroy(Array& array);

  // Plans a distributed launch of `kernel` over `grid`, its blocks grouped into superblocks by
  // `work`, with `args` in parameter order. Returns once planned.
  void launch(const ArrayKernel& kernel, const Grid& grid, const WorkDistribution& work,
              const std::vector<Argument>& args);
  // Waits for everything planned; throws the first failure, naming the rank and the operation
  // (the kernel and its superblock).
  void synchronize();

  LaunchStats stats() const { return stats_; }

 private:
  void fill_bytes(const Array& array, device::ElementType type,
                  const std::array<unsigned char, 8>& value);

  // The topology, whose loads are read from the driver whenever it is used (by create() and
  // launch()): automatic distributions place by the loads of the moment.
  class CurrentTopology {
   public:
    CurrentTopology(cluster::Driver& driver, std::uint32_t devices_per_rank);
    // The places with the loads the driver knows now.
    const Topology& now() const;

   private:
    cluster::Driver& driver_;
    mutable Topology topology_;
  };

  node::Node& node_;
  cluster::Driver& driver_;
  CurrentTopology topology_;
  LaunchStats stats_;
  std::uint64_t next_temporary_ = 0;
  // Regions assembled for a launch's read, kept until the array is written there.
  std::unique_ptr<detail::KeptRegions> kept_;
};

}  // namespace strata::array
