#include "strata/allpairs/sequential_run.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>

#include "strata/device/event.hpp"
#include "strata/memory/memory_manager.hpp"

namespace strata::allpairs {

namespace {

using memory::ChunkAccess;
using memory::ChunkId;
using memory::ChunkRequest;

std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InputError(path.string() + ": cannot open the input file");
  std::vector<std::byte> bytes(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw InputError(path.string() + ": cannot read the input file");
  return bytes;
}

memory::MemoryOptions options_for(const ApplicationBase& application) {
  const std::uint64_t room = 2 * (application.item_count() + 2) * application.slot_bytes() +
                             application.comparison_bytes() + (1u << 20);
  memory::MemoryOptions options;
  options.host_capacity = room;
  options.device_capacity = room;
  return options;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Parses and preprocesses `item` into a new chunk of `memory`; adds the device time to
// `preprocess_seconds` when given.
ChunkId load(const ApplicationBase& application, ItemIndex item, memory::MemoryManager& memory,
             device::Device& device, KernelLauncher& launcher,
             std::vector<double>* preprocess_seconds = nullptr) {
  const std::vector<std::byte> parsed =
      application.parse(item, read_file(application.file_of(item)));
  const ChunkId parsed_chunk =
      memory.create_chunk("parsed " + std::to_string(item), parsed.size(), parsed);
  const ChunkId item_chunk = memory.create_chunk("item " + std::to_string(item),
                                                 application.item_bytes(item, parsed.size()));
  const ChunkRequest requests[] = {{parsed_chunk, ChunkAccess::read_write},
                                   {item_chunk, ChunkAccess::write}};
  const auto views = memory.acquire(requests, memory.space_of(device));
  const auto start = std::chrono::steady_clock::now();
  application.preprocess(launcher, item, views[0], views[1]).wait();
  if (preprocess_seconds != nullptr) preprocess_seconds->push_back(seconds_since(start));
  memory.release(requests, memory.space_of(device));
  memory.destroy_chunk(parsed_chunk);
  return item_chunk;
}

}  // namespace

device::Event KernelLauncher::launch(const device::KernelDefinition& kernel,
                                     const device::LaunchGeometry& geometry,
                                     const device::KernelArgs& args) {
  std::shared_ptr<const device::CompiledKernel> compiled;
  {
    std::lock_guard guard(lock_);
    compiled = compiled_[kernel.name()];
  }
  if (!compiled) {
    compiled = device_.compile(kernel);
    std::lock_guard guard(lock_);
    compiled_[kernel.name()] = compiled;
  }
  return device_.queue(device::QueueKind::compute).launch(*compiled, geometry, args);
}

std::vector<RawPairResult> run_sequentially(const ApplicationBase& application,
                                            device::Device& device, PairSpace space) {
  if (space.rows_end <= space.rows_begin)
    space = PairSpace::all_pairs(static_cast<ItemIndex>(application.item_count()));
  check_comparison_sizes(application);
  device::Device* devices[] = {&device};
  memory::MemoryManager memory(options_for(application), devices);
  KernelLauncher launcher(device);
  std::vector<ChunkId> items;
  for (ItemIndex i = 0; i < space.items(); ++i)
    items.push_back(load(application, i, memory, device, launcher));

  const ChunkId comparison = memory.create_chunk("comparison", application.comparison_bytes());
  std::vector<std::byte> comparison_bytes(application.comparison_result_bytes());
  std::vector<RawPairResult> results;
  for (const auto& [left, right] : PairBlock::whole(space).list(space)) {
    if (!application.wants(left, right)) continue;
    const ChunkRequest requests[] = {{items[left], ChunkAccess::read},
                                     {items[right], ChunkAccess::read},
                                     {comparison, ChunkAccess::write}};
    const auto views = memory.acquire(requests, memory.space_of(device));
    application.compare(launcher, left, views[0], right, views[1], views[2]).wait();
    memory.release(requests, memory.space_of(device));
    memory.read(comparison, comparison_bytes);
    RawPairResult result{left, right, std::vector<std::byte>(application.result_bytes())};
    application.postprocess_bytes(left, right, comparison_bytes, result.result);
    results.push_back(std::move(result));
  }
  return results;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

StageMeans measure_stages(const ApplicationBase& application, device::Device& device,
                          ItemIndex items) {
  items = std::min(items, static_cast<ItemIndex>(application.item_count()));
  device::Device* devices[] = {&device};
  memory::MemoryManager memory(options_for(application), devices);
  KernelLauncher launcher(device);
  std::vector<double> preprocess, compare;
  std::vector<ChunkId> loaded;
  for (ItemIndex i = 0; i < items; ++i)
    loaded.push_back(load(application, i, memory, device, launcher, &preprocess));
  // Comparisons: every pair enqueued back to back on the device's in-order queue and the batch
  // timed whole, after one untimed comparison (compiles, plans): the device's time a comparison
  // without the latency from a launch to the host seeing it end, which the run hides by keeping
  // several comparisons in flight. Three batches; their median.
  const ChunkId comparison = memory.create_chunk("comparison", application.comparison_bytes());
  std::vector<ChunkRequest> requests;
  for (const ChunkId item : loaded)
    requests.push_back({item, ChunkAccess::read});
  requests.push_back({comparison, ChunkAccess::write});
  const auto views = memory.acquire(requests, memory.space_of(device));
  const memory::ChunkView& out = views.back();
  std::uint64_t pairs = 0;
  if (items >= 2) {
    application.compare(launcher, 0, views[0], 1, views[1], out).wait();
    for (int batch = 0; batch < 3; ++batch) {
      std::vector<device::Event> done;
      const auto start = std::chrono::steady_clock::now();
      for (ItemIndex left = 0; left < items; ++left) {
        for (ItemIndex right = left + 1; right < items; ++right)
          done.push_back(
              application.compare(launcher, left, views[left], right, views[right], out));
      }
      device::when_all(done).wait();
      pairs = done.size();
      compare.push_back(seconds_since(start) / static_cast<double>(pairs));
    }
  }
  memory.release(requests, memory.space_of(device));
  return StageMeans{preprocess.size(), pairs, median(preprocess), median(compare)};
}

std::vector<std::byte> preprocessed_item(const ApplicationBase& application, ItemIndex item,
                                         device::Device& device) {
  device::Device* devices[] = {&device};
  memory::MemoryManager memory(options_for(application), devices);
  KernelLauncher launcher(device);
  const ChunkId chunk = load(application, item, memory, device, launcher);
  std::vector<std::byte> bytes(memory.chunk_bytes(chunk));
  memory.read(chunk, bytes);
  return bytes;
}

}  // namespace strata::allpairs
