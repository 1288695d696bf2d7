#include "sequential_driver.hpp"

#include <fmt/format.h>

#include <cstring>
#include <fstream>

#include "strata/allpairs/sequential_run.hpp"
#include "strata/memory/memory_manager.hpp"

namespace strata::apps::microscopy::testing {
namespace {

using memory::ChunkAccess;
using memory::ChunkId;
using memory::ChunkRequest;

// Room for a few hundred small particles; far below the machine so tests stay light.
memory::MemoryOptions small_memory() {
  memory::MemoryOptions options;
  options.host_capacity = 32ull << 20;
  options.device_capacity = 32ull << 20;
  return options;
}

std::vector<std::byte> read_file(const std::filesystem::path& file) {
  std::vector<std::byte> bytes(std::filesystem::file_size(file));
  std::ifstream in(file, std::ios::binary);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

std::vector<float> floats_of(std::span<const std::byte> bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

}  // namespace

std::vector<ComparedPair> compare_all_pairs(
    const allpairs::Application<RegistrationResult>& application, device::Device& device) {
  device::Device* devices[] = {&device};
  memory::MemoryManager memory(small_memory(), devices);
  const memory::SpaceId space = memory.space_of(device);
  allpairs::KernelLauncher launcher(device);

  std::vector<ChunkId> items;
  for (allpairs::ItemIndex item = 0; item < application.item_count(); ++item) {
    const std::vector<std::byte> parsed =
        application.parse(item, read_file(application.file_of(item)));
    const ChunkId parsed_chunk =
        memory.create_chunk(fmt::format("parsed{}", item), parsed.size(), parsed);
    items.push_back(memory.create_chunk(fmt::format("item{}", item),
                                        application.item_bytes(item, parsed.size())));
    const ChunkRequest requests[] = {{parsed_chunk, ChunkAccess::read_write},
                                     {items.back(), ChunkAccess::write}};
    const auto views = memory.acquire(requests, space);
    application.preprocess(launcher, item, views[0], views[1]).wait();
    memory.release(requests, space);
    memory.destroy_chunk(parsed_chunk);
  }

  const ChunkId comparison = memory.create_chunk("comparison", application.comparison_bytes());
  std::vector<std::byte> host(application.comparison_bytes());
  std::vector<ComparedPair> results;
  const auto n = static_cast<allpairs::ItemIndex>(items.size());
  for (allpairs::ItemIndex left = 0; left < n; ++left) {
    for (allpairs::ItemIndex right = left + 1; right < n; ++right) {
      const ChunkRequest requests[] = {{items[left], ChunkAccess::read},
                                       {items[right], ChunkAccess::read},
                                       {comparison, ChunkAccess::write}};
      const auto views = memory.acquire(requests, space);
      application.compare(launcher, left, views[0], right, views[1], views[2]).wait();
      memory.release(requests, space);
      memory.read(comparison, host);
      results.push_back({left, right, floats_of(host), application.postprocess(left, right, host)});
    }
  }
  return results;
}

std::vector<allpairs::PairResult<RegistrationResult>> run_all_pairs(
    const allpairs::ApplicationBase& application, device::Device& device) {
  std::vector<allpairs::PairResult<RegistrationResult>> results;
  for (const allpairs::RawPairResult& pair : allpairs::run_sequentially(application, device)) {
    RegistrationResult value;
    std::memcpy(&value, pair.result.data(), sizeof value);
    results.push_back({pair.left, pair.right, value});
  }
  return results;
}

std::vector<std::vector<float>> preprocess_all(const allpairs::ApplicationBase& application,
                                               device::Device& device) {
  std::vector<std::vector<float>> out;
  for (allpairs::ItemIndex item = 0; item < application.item_count(); ++item)
    out.push_back(floats_of(allpairs::preprocessed_item(application, item, device)));
  return out;
}

}  // namespace strata::apps::microscopy::testing
