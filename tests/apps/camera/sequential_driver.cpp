#include "sequential_driver.hpp"

#include <fstream>
#include <iterator>

#include "strata/memory/memory_manager.hpp"

namespace strata::apps::camera::testing {
namespace {

using memory::ChunkAccess;
using memory::ChunkId;
using memory::ChunkRequest;

std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open it");
  std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<std::byte> out(bytes.size());
  std::transform(bytes.begin(), bytes.end(), out.begin(),
                 [](char c) { return static_cast<std::byte>(c); });
  return out;
}

memory::MemoryOptions options_for(const allpairs::ApplicationBase& application) {
  const std::uint64_t items = application.item_count();
  const std::uint64_t room =
      2 * (items + 2) * application.slot_bytes() + application.comparison_bytes() + (1u << 20);
  memory::MemoryOptions options;
  options.host_capacity = room;
  options.device_capacity = room;
  return options;
}

// Parses and preprocesses `item` into a new chunk of `memory`.
ChunkId load(const allpairs::ApplicationBase& application, allpairs::ItemIndex item,
             memory::MemoryManager& memory, device::Device& device, SimpleDeviceContext& context) {
  const std::vector<std::byte> parsed =
      application.parse(item, read_file(application.file_of(item)));
  const ChunkId parsed_chunk =
      memory.create_chunk("parsed " + std::to_string(item), parsed.size(), parsed);
  const ChunkId item_chunk = memory.create_chunk("item " + std::to_string(item),
                                                 application.item_bytes(item, parsed.size()));
  const ChunkRequest requests[] = {{parsed_chunk, ChunkAccess::read_write},
                                   {item_chunk, ChunkAccess::write}};
  const auto views = memory.acquire(requests, memory.space_of(device));
  application.preprocess(context, item, views[0], views[1]).wait();
  memory.release(requests, memory.space_of(device));
  memory.destroy_chunk(parsed_chunk);
  return item_chunk;
}

}  // namespace

device::Event SimpleDeviceContext::launch(const device::KernelDefinition& kernel,
                                          const device::LaunchGeometry& geometry,
                                          const device::KernelArgs& args) {
  auto& compiled = compiled_[&kernel];
  if (!compiled) compiled = device_.compile(kernel);
  return device_.queue(device::QueueKind::compute).launch(*compiled, geometry, args);
}

std::vector<RawPairResult> run_all_pairs(const allpairs::ApplicationBase& application,
                                         device::Device& device) {
  device::Device* devices[] = {&device};
  memory::MemoryManager memory(options_for(application), devices);
  SimpleDeviceContext context(device);
  const auto count = static_cast<allpairs::ItemIndex>(application.item_count());
  std::vector<ChunkId> items;
  for (allpairs::ItemIndex i = 0; i < count; ++i)
    items.push_back(load(application, i, memory, device, context));

  const ChunkId comparison = memory.create_chunk("comparison", application.comparison_bytes());
  std::vector<std::byte> comparison_bytes(application.comparison_bytes());
  std::vector<RawPairResult> results;
  for (allpairs::ItemIndex left = 0; left < count; ++left) {
    for (allpairs::ItemIndex right = left + 1; right < count; ++right) {
      if (!application.wants(left, right)) continue;
      const ChunkRequest requests[] = {{items[left], ChunkAccess::read},
                                       {items[right], ChunkAccess::read},
                                       {comparison, ChunkAccess::write}};
      const auto views = memory.acquire(requests, memory.space_of(device));
      application.compare(context, left, views[0], right, views[1], views[2]).wait();
      memory.release(requests, memory.space_of(device));
      memory.read(comparison, comparison_bytes);
      RawPairResult result{left, right, std::vector<std::byte>(application.result_bytes())};
      application.postprocess_bytes(left, right, comparison_bytes, result.result);
      results.push_back(std::move(result));
    }
  }
  return results;
}

std::vector<std::byte> preprocessed_item(const allpairs::ApplicationBase& application,
                                         allpairs::ItemIndex item, device::Device& device) {
  device::Device* devices[] = {&device};
  memory::MemoryManager memory(options_for(application), devices);
  SimpleDeviceContext context(device);
  const ChunkId chunk = load(application, item, memory, device, context);
  std::vector<std::byte> bytes(memory.chunk_bytes(chunk));
  memory.read(chunk, bytes);
  return bytes;
}

}  // namespace strata::apps::camera::testing
