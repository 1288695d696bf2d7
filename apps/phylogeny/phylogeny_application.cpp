#include "phylogeny/phylogeny_application.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "phylogeny/amino_acids.hpp"
#include "phylogeny/composition_vector.hpp"
#include "phylogeny/data_directory.hpp"
#include "phylogeny/fasta.hpp"
#include "phylogeny/kernels.hpp"

namespace strata::apps::phylogeny {
namespace {

// The uncompressed size a gzip file's trailer records (modulo 4 GiB; of its last member), 0 if
// the file is too short to have one. Only an estimate for slot_bytes(): parse checks the data.
std::uint64_t recorded_uncompressed_size(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in || in.tellg() < 18) return 0;
  in.seekg(-4, std::ios::end);
  unsigned char trailer[4] = {};
  in.read(reinterpret_cast<char*>(trailer), 4);
  if (!in) return 0;
  return std::uint64_t{trailer[0]} | std::uint64_t{trailer[1]} << 8 |
         std::uint64_t{trailer[2]} << 16 | std::uint64_t{trailer[3]} << 24;
}

}  // namespace

PhylogenyApplication::PhylogenyApplication(const std::filesystem::path& dir,
                                           const AnalysisOptions& options)
    : files_(proteome_files(dir)),
      options_(options),
      vector_kernel_(composition_vector_kernel()),
      correlation_kernel_(correlation_kernel()) {
  max_vector_entries(options_.k, 0);  // checks k
  std::uint64_t largest = 0;
  for (const auto& file : files_) {
    species_.push_back(species_of(file));
    largest = std::max(largest, recorded_uncompressed_size(file));
  }
  slot_bytes_ = max_vector_bytes(options_.k, largest);  // parsed residues <= decompressed bytes
}

std::filesystem::path PhylogenyApplication::file_of(allpairs::ItemIndex item) const {
  return files_.at(item);
}

bool PhylogenyApplication::parallel() const {
  return options_.k <= longest_parallel_k;
}

std::vector<std::byte> PhylogenyApplication::parse(allpairs::ItemIndex item,
                                                   std::span<const std::byte> file) const {
  const std::string origin = file_of(item).string();
  const std::vector<std::uint8_t> residues = parse_fasta(gunzip(file, origin), origin);
  if (!parallel()) {
    std::vector<std::byte> out(residues.size());
    std::memcpy(out.data(), residues.data(), residues.size());
    return out;
  }
  // Residues, separators up to the scratch's alignment, then room for the scratch.
  std::vector<std::byte> out(parsed_bytes_with_scratch(options_.k, residues.size()));
  std::memcpy(out.data(), residues.data(), residues.size());
  const std::uint64_t padded = residues_in_parsed(options_.k, out.size());
  std::fill(out.begin() + static_cast<std::ptrdiff_t>(residues.size()),
            out.begin() + static_cast<std::ptrdiff_t>(padded), std::byte{protein_separator});
  return out;
}

std::uint64_t PhylogenyApplication::item_bytes(allpairs::ItemIndex /*item*/,
                                               std::uint64_t parsed_bytes) const {
  return max_vector_bytes(options_.k,
                          parallel() ? residues_in_parsed(options_.k, parsed_bytes) : parsed_bytes);
}

std::uint64_t PhylogenyApplication::comparison_bytes() const {
  return correlation_groups * sizeof(float);
}

device::Event PhylogenyApplication::preprocess(allpairs::DeviceContext& context,
                                               allpairs::ItemIndex /*item*/,
                                               const memory::ChunkView& parsed,
                                               const memory::ChunkView& item_view) const {
  using device::ElementType;
  using device::KernelArg;
  const std::uint64_t residues =
      parallel() ? residues_in_parsed(options_.k, parsed.bytes) : parsed.bytes;
  // On the CPU device the sorting kernel was 2-4 times faster than the parallel kernels (whose
  // hash lookups and passes over all 20^k strings suit a GPU), from 20,000 to 1,000,000
  // residues at k = 5.
  const bool on_cpu = context.device().info().backend == device::BackendKind::cpu;
  if (parallel() && !on_cpu)
    return launch_parallel_composition_vector(context, parallel_kernels_, options_.k, parsed,
                                              residues, item_view);
  return context.launch(
      vector_kernel_, device::LaunchGeometry{device::Dim3{1}, device::Dim3{1}, 1},
      {KernelArg::value(static_cast<std::uint32_t>(options_.k)), KernelArg::value(residues),
       parsed.argument(ElementType::u8), item_view.argument(ElementType::u32),
       KernelArg::value(item_view.bytes / sizeof(std::uint32_t))});
}

device::Event PhylogenyApplication::compare(allpairs::DeviceContext& context,
                                            allpairs::ItemIndex /*left*/,
                                            const memory::ChunkView& left_item,
                                            allpairs::ItemIndex /*right*/,
                                            const memory::ChunkView& right_item,
                                            const memory::ChunkView& comparison) const {
  using device::ElementType;
  const device::LaunchGeometry geometry{
      device::Dim3{std::uint64_t{correlation_groups} * correlation_group_size},
      device::Dim3{correlation_group_size}, 1};
  return context.launch(
      correlation_kernel_, geometry,
      {left_item.argument(ElementType::u32), right_item.argument(ElementType::u32),
       comparison.argument(ElementType::f32)});
}

PairCorrelation PhylogenyApplication::postprocess(allpairs::ItemIndex left,
                                                  allpairs::ItemIndex right,
                                                  std::span<const std::byte> comparison) const {
  if (comparison.size() < comparison_bytes())
    throw Error(fmt::format("phylogeny: the comparison of items {} and {} has {} bytes, not {}",
                            left, right, comparison.size(), comparison_bytes()));
  double sum = 0;
  for (std::uint32_t g = 0; g < correlation_groups; ++g) {
    float partial = 0;
    std::memcpy(&partial, comparison.data() + g * sizeof(float), sizeof partial);
    sum += static_cast<double>(partial);
  }
  const double correlation = std::clamp(sum, -1.0, 1.0);
  return PairCorrelation{static_cast<float>(correlation),
                         static_cast<float>((1.0 - correlation) / 2.0)};
}

}  // namespace strata::apps::phylogeny
