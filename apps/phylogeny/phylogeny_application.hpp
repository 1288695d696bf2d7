#pragma once
// The phylogeny application (rocket §5.2, the composition-vector method of Qi et al. 2004) for
// the all-pairs engine: items are species' proteomes (gzipped FASTA); parse decompresses and
// reads residues on the CPU, preprocess builds the composition vector on a device, compare
// correlates two vectors on a device, postprocess turns the partial sums into the correlation
// C and the distance D = (1 - C) / 2.

#include <filesystem>
#include <string>
#include <vector>

#include "phylogeny/parallel_vector_kernels.hpp"
#include "strata/allpairs/application.hpp"
#include "strata/device/kernel.hpp"

namespace strata::apps::phylogeny {

// One pair's result: the correlation of the two composition vectors and Qi et al.'s distance.
struct PairCorrelation {
  float correlation = 0;
  float distance = 0;  // (1 - correlation) / 2, in [0, 1]
};

// How vectors are built.
struct AnalysisOptions {
  int k = 5;  // string length (3..7); Qi et al. found 5 and 6 best for prokaryote proteomes
};

class PhylogenyApplication final : public allpairs::Application<PairCorrelation> {
 public:
  // Lists the proteomes of `dir` (see data_directory.hpp); errors name the directory.
  PhylogenyApplication(const std::filesystem::path& dir, const AnalysisOptions& options);

  std::string name() const override { return "phylogeny"; }
  std::size_t item_count() const override { return files_.size(); }
  std::filesystem::path file_of(allpairs::ItemIndex item) const override;
  const std::string& species(allpairs::ItemIndex item) const { return species_.at(item); }
  const AnalysisOptions& options() const { return options_; }

  // Residue codes of every protein, each followed by a separator (see amino_acids.hpp); for
  // k <= 6 then separators up to a multiple of 256 bytes and room for the scratch of the
  // parallel kernels (parallel_vector_kernels.hpp).
  std::vector<std::byte> parse(allpairs::ItemIndex item,
                               std::span<const std::byte> file) const override;
  // Room for the largest vector `parsed_bytes` residues can give.
  std::uint64_t item_bytes(allpairs::ItemIndex item, std::uint64_t parsed_bytes) const override;
  // The slot of the largest proteome (by the uncompressed size its gzip trailer records).
  std::uint64_t slot_bytes() const override { return slot_bytes_; }
  std::uint64_t comparison_bytes() const override;

  // On the CPU device (and for k = 7) one C++ kernel that sorts strings; on other devices the
  // five parallel kernels (k <= 6).
  device::Event preprocess(allpairs::DeviceContext& context, allpairs::ItemIndex item,
                           const memory::ChunkView& parsed,
                           const memory::ChunkView& item_view) const override;
  device::Event compare(allpairs::DeviceContext& context, allpairs::ItemIndex left,
                        const memory::ChunkView& left_item, allpairs::ItemIndex right,
                        const memory::ChunkView& right_item,
                        const memory::ChunkView& comparison) const override;
  PairCorrelation postprocess(allpairs::ItemIndex left, allpairs::ItemIndex right,
                              std::span<const std::byte> comparison) const override;

 private:
  bool parallel() const;

  std::vector<std::filesystem::path> files_;
  std::vector<std::string> species_;
  AnalysisOptions options_;
  std::uint64_t slot_bytes_ = 0;
  device::KernelDefinition vector_kernel_;
  ParallelVectorKernels parallel_kernels_;
  device::KernelDefinition correlation_kernel_;
};

}  // namespace strata::apps::phylogeny
