#include "sequential_driver.hpp"

#include <fmt/format.h>

#include <map>
#include <memory>

#include "phylogeny/data_directory.hpp"
#include "single_device_context.hpp"
#include "strata/memory/memory_manager.hpp"

namespace strata::apps::phylogeny::testing {
namespace {

std::vector<std::byte> read_file(const std::filesystem::path& path) {
  const std::string bytes = read_text_file(path);
  const auto* first = reinterpret_cast<const std::byte*>(bytes.data());
  return {first, first + bytes.size()};
}

}  // namespace

std::vector<PairRecord> run_all_pairs(const allpairs::ApplicationBase& application,
                                      device::Device& device) {
  using memory::ChunkAccess;
  using memory::ChunkRequest;
  device::Device* devices[1] = {&device};
  memory::MemoryOptions options;
  options.host_capacity = 256ull << 20;
  options.device_capacity = 256ull << 20;
  memory::MemoryManager memory(options, devices);
  const memory::SpaceId space = memory.space_of(device);
  SingleDeviceContext context(device);

  const std::size_t n = application.item_count();
  std::vector<memory::ChunkId> items;
  for (allpairs::ItemIndex i = 0; i < n; ++i) {
    const std::vector<std::byte> parsed = application.parse(i, read_file(application.file_of(i)));
    const auto parsed_chunk =
        memory.create_chunk(fmt::format("parsed {}", i), parsed.size(), parsed);
    items.push_back(
        memory.create_chunk(fmt::format("item {}", i), application.item_bytes(i, parsed.size())));
    const ChunkRequest requests[] = {{parsed_chunk, ChunkAccess::read_write},
                                     {items.back(), ChunkAccess::write}};
    const auto views = memory.acquire(requests, space);
    application.preprocess(context, i, views[0], views[1]).wait();
    memory.release(requests, space);
    memory.destroy_chunk(parsed_chunk);
  }

  std::vector<PairRecord> records;
  std::vector<std::byte> comparison(application.comparison_bytes());
  for (allpairs::ItemIndex left = 0; left < n; ++left) {
    for (allpairs::ItemIndex right = left + 1; right < n; ++right) {
      if (!application.wants(left, right)) continue;
      const auto result_chunk = memory.create_chunk("comparison", comparison.size());
      const ChunkRequest requests[] = {{items[left], ChunkAccess::read},
                                       {items[right], ChunkAccess::read},
                                       {result_chunk, ChunkAccess::write}};
      const auto views = memory.acquire(requests, space);
      application.compare(context, left, views[0], right, views[1], views[2]).wait();
      memory.release(requests, space);
      memory.read(result_chunk, comparison);
      memory.destroy_chunk(result_chunk);
      PairRecord record{left, right, std::vector<std::byte>(application.result_bytes())};
      application.postprocess_bytes(left, right, comparison, record.result);
      records.push_back(std::move(record));
    }
  }
  for (const auto chunk : items)
    memory.destroy_chunk(chunk);
  memory.drain();
  return records;
}

}  // namespace strata::apps::phylogeny::testing
