#include "strata/array/arrays.hpp"

#include <fmt/format.h>

#include "chunk_boxes.hpp"
#include "fill_kind.hpp"
#include "kept_regions.hpp"
#if STRATA_ARRAY_WITH_HDF5
#include "hdf5_kinds.hpp"
#endif
#include "strata/base/error.hpp"

namespace strata::array {

namespace {

// Assembled regions kept for later launches, at most (the least recently used go first).
constexpr std::size_t kept_regions_limit = 256;

}  // namespace

Arrays::CurrentTopology::CurrentTopology(cluster::Driver& driver, std::uint32_t devices_per_rank)
    : driver_(driver) {
  topology_.devices_per_rank.assign(static_cast<std::size_t>(driver.size()), devices_per_rank);
}

const Topology& Arrays::CurrentTopology::now() const {
  topology_.loads = driver_.loads();
  return topology_;
}

Arrays::Arrays(node::Node& node, cluster::Driver& driver)
    : node_(node),
      driver_(driver),
      topology_(driver, static_cast<std::uint32_t>(node.devices().size())),
      kept_(std::make_unique<detail::KeptRegions>(driver, kept_regions_limit)) {}

Arrays::~Arrays() = default;

void Arrays::prepare(node::Node& node, std::span<const ArrayKernel> kernels) {
  node.program().define_kind(detail::fill_kind_name, detail::fill_kind);
#if STRATA_ARRAY_WITH_HDF5
  node.program().define_kind(detail::hdf5_read_kind_name, detail::hdf5_read_kind);
  node.program().define_kind(detail::hdf5_write_kind_name, detail::hdf5_write_kind);
#endif
  for (const ArrayKernel& kernel : kernels)
    node.define_kernel(kernel.definition());
}

Array Arrays::create(std::string name, device::ElementType type, std::vector<std::uint64_t> extents,
                     const Distribution& distribution) {
  auto record = std::make_shared<Array::Record>();
  record->shape = Shape::of(extents, "array '" + name + "'");
  record->name = std::move(name);
  record->type = type;
  record->distribution = distribution.describe();
  const std::uint64_t element = device::size_of(type);
  const auto placements =
      distribution.chunks(record->shape, topology_.now(), "array '" + record->name + "'", element);
  for (std::size_t i = 0; i < placements.size(); ++i) {
    const ChunkPlacement& placement = placements[i];
    const cluster::ChunkRef ref =
        driver_.create_chunk(fmt::format("{}{}", record->name, placement.region.describe()),
                             placement.region.elements() * element, placement.place.rank);
    record->chunks.push_back(ArrayChunk{placement, ref});
  }
  Array array(std::move(record));
  fill_bytes(array, type, {});
  return array;
}

void Arrays::fill_bytes(const Array& array, device::ElementType type,
                        const std::array<unsigned char, 8>& value) {
  if (!array.valid()) throw Error("filling an array: the array was deleted or never made");
  if (type != array.type()) {
    throw Error(fmt::format("filling array '{}' of {} with a {} value", array.name(),
                            device::to_string(array.type()), device::to_string(type)));
  }
  detail::Fill fill;
  fill.element_bytes = static_cast<std::uint32_t>(array.element_bytes());
  fill.value = value;
  const cluster::PlanBatch batch(driver_);
  kept_->forget(array);
  for (const ArrayChunk& chunk : array.chunks()) {
    driver_.plan_with(chunk.placement.place.rank, detail::fill_kind_name,
                      {cluster::Use{chunk.ref, runtime::Access::write}}, fill,
                      "fill " + array.name());
  }
}

namespace {

void check_valid(const Array& array, const char* what) {
  if (!array.valid()) throw Error(std::string(what) + ": the array was deleted or never made");
}

}  // namespace

void Arrays::write(const Array& array, std::span<const std::byte> values) {
  check_valid(array, "writing an array");
  const std::uint64_t element = array.element_bytes();
  const std::uint64_t expected = array.shape().elements() * element;
  if (values.size() != expected) {
    throw Error(fmt::format("array '{}' ({} of {}) takes {} bytes from the host, not {}",
                            array.name(), array.shape().describe(), device::to_string(array.type()),
                            expected, values.size()));
  }
  const Region whole = Region::whole(array.shape());
  const cluster::PlanBatch batch(driver_);
  kept_->forget(array);
  for (const ArrayChunk& chunk : array.chunks()) {
    const Region& region = chunk.placement.region;
    std::vector<std::byte> bytes(region.elements() * element);
    memory::copy_box(values, detail::box_in(whole, region), bytes, detail::box_in(region, region),
                     static_cast<std::uint32_t>(element));
    driver_.write(chunk.ref, bytes);
  }
}

std::vector<std::byte> Arrays::read(const Array& array, const Region& region) {
  check_valid(array, "reading an array");
  if (region.dims != array.shape().dims || !region.within(array.shape())) {
    throw Error(fmt::format("reading {} of array '{}' ({}): not a region of it", region.describe(),
                            array.name(), array.shape().describe()));
  }
  if (region.empty()) return {};
  const std::uint64_t element = array.element_bytes();
  // One chunk that holds all of it if there is one (the driver's own first), else every chunk
  // that holds part of it: overlapping chunks hold the same values.
  std::vector<const ArrayChunk*> sources;
  for (const ArrayChunk& chunk : array.chunks()) {
    if (!chunk.placement.region.contains(region)) continue;
    if (sources.empty() || chunk.placement.place.rank == 0) sources = {&chunk};
  }
  if (sources.empty()) {
    for (const ArrayChunk& chunk : array.chunks())
      if (chunk.placement.region.intersect(region)) sources.push_back(&chunk);
  }
  const cluster::ChunkRef gathered = driver_.create_chunk(
      fmt::format("{}{} read", array.name(), region.describe()), region.elements() * element, 0);
  std::vector<cluster::BoxCopyRequest> parts;
  for (const ArrayChunk* chunk : sources) {
    const Region part = *chunk->placement.region.intersect(region);
    parts.push_back({chunk->ref, detail::box_in(chunk->placement.region, part), gathered,
                     detail::box_in(region, part), static_cast<std::uint32_t>(element)});
  }
  driver_.copy_boxes(parts);
  std::vector<std::byte> bytes = driver_.fetch(gathered);
  driver_.destroy(gathered);
  return bytes;
}

void Arrays::destroy(Array& array) {
  check_valid(array, "deleting an array");
  const cluster::PlanBatch batch(driver_);
  kept_->forget(array);
  for (const ArrayChunk& chunk : array.chunks())
    driver_.destroy(chunk.ref);
  array.record().deleted = true;
}

void Arrays::synchronize() {
  driver_.wait_all();
}

}  // namespace strata::array
