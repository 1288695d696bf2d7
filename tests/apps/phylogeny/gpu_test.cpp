// The CUDA kernels on a GPU (label gpu; skipped, with the reason, without a CUDA device): every
// pair's correlation through the parallel composition-vector kernels and the correlation kernel
// equals the CPU device's, and the true tree is recovered.

#include <gtest/gtest.h>

#include <cstring>

#include "phylogeny/data_directory.hpp"
#include "phylogeny/phylogeny_app.hpp"
#include "sequential_driver.hpp"
#include "small_data_set.hpp"
#include "temp_directory.hpp"
#include "test_devices.hpp"

namespace strata::apps::phylogeny {
namespace {

std::vector<PairCorrelation> correlations_of(const std::vector<testing::PairRecord>& records) {
  std::vector<PairCorrelation> out;
  for (const auto& record : records) {
    PairCorrelation value;
    EXPECT_EQ(record.result.size(), sizeof value);
    std::memcpy(&value, record.result.data(), sizeof value);
    out.push_back(value);
  }
  return out;
}

TEST(PhylogenyCuda, GivesTheCpuDevicesCorrelationsAndTheTree) {
  std::string why;
  device::Device* gpu = testing::cuda_test_device(&why);
  if (gpu == nullptr) GTEST_SKIP() << why;
  testing::TempDirectory dir;
  generate(dir.path(), testing::small_data_set(8));
  const auto application = open(dir.path(), AnalysisOptions{5});
  const auto& typed = dynamic_cast<const PhylogenyApplication&>(*application);
  auto cpu = testing::make_cpu_test_device();
  const auto cpu_records = testing::run_all_pairs(*application, *cpu);
  const auto gpu_records = testing::run_all_pairs(*application, *gpu);
  ASSERT_EQ(cpu_records.size(), gpu_records.size());
  const auto on_cpu = correlations_of(cpu_records);
  const auto on_gpu = correlations_of(gpu_records);
  std::vector<std::string> species;
  for (allpairs::ItemIndex i = 0; i < typed.item_count(); ++i)
    species.push_back(typed.species(i));
  DistanceMatrix distances(species);
  for (std::size_t p = 0; p < on_cpu.size(); ++p) {
    EXPECT_EQ(gpu_records[p].left, cpu_records[p].left);
    EXPECT_EQ(gpu_records[p].right, cpu_records[p].right);
    // Float sums in another order than the CPU kernels' double ones.
    EXPECT_NEAR(on_gpu[p].correlation, on_cpu[p].correlation, 1e-5) << "pair " << p;
    distances.set(gpu_records[p].left, gpu_records[p].right, on_gpu[p].distance);
  }
  const Evaluation evaluation = evaluate_distances(dir.path(), distances);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
}

}  // namespace
}  // namespace strata::apps::phylogeny
