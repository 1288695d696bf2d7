#pragma once
// Application: what an all-pairs application gives the engine (the rocket paper's Fig. 3) — its
// items and the file of each, parsing on the CPU, preprocessing and comparison on a device (the
// CPU backend is a device too), and postprocessing of one comparison's result on the CPU. Item
// and result types are the application's: items are bytes on a device, results a trivially
// copyable Result.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "strata/base/error.hpp"
#include "strata/device/device.hpp"
#include "strata/memory/memory_manager.hpp"

namespace strata::allpairs {

// Index of an item: 0 .. item_count() - 1.
using ItemIndex = std::uint32_t;

// A file that cannot be used (truncated, corrupt, a bad line): the message names the file.
class InputError : public Error {
 public:
  using Error::Error;
};

// Where a device stage runs: the device and its compute queue, with each kernel compiled for
// the device once. Kernels launched on it run in launch order.
class DeviceContext {
 public:
  virtual ~DeviceContext() = default;
  virtual device::Device& device() = 0;
  // Enqueues `kernel` (compiled for this device on first use) on the compute queue.
  virtual device::Event launch(const device::KernelDefinition& kernel,
                               const device::LaunchGeometry& geometry,
                               const device::KernelArgs& args) = 0;
};

// The untyped interface the engine drives; applications derive from Application<Result>.
class ApplicationBase {
 public:
  virtual ~ApplicationBase() = default;
  virtual std::string name() const = 0;

  // The items and the file that holds each.
  virtual std::size_t item_count() const = 0;
  virtual std::filesystem::path file_of(ItemIndex item) const = 0;

  // Parses a file's contents on the CPU into the bytes preprocess() gets; throws InputError
  // naming the file when the contents are unusable.
  virtual std::vector<std::byte> parse(ItemIndex item, std::span<const std::byte> file) const = 0;
  // Size of the preprocessed item (its cache slot) given its parsed size. Slots may differ in
  // size per item.
  virtual std::uint64_t item_bytes(ItemIndex item, std::uint64_t parsed_bytes) const = 0;
  // A typical slot size: converts cache sizes given in slots into bytes.
  virtual std::uint64_t slot_bytes() const = 0;
  // Size of the device buffer of one comparison, scratch included.
  virtual std::uint64_t comparison_bytes() const = 0;
  // The leading bytes of the comparison buffer that are copied back to the host and given to
  // postprocess; comparison_bytes() is the whole device buffer, scratch included.
  virtual std::uint64_t comparison_result_bytes() const { return comparison_bytes(); }

  // Preprocesses on a device: `parsed` (read-write: it may serve as scratch) into `item`.
  // Returns the event of the last operation it enqueued.
  virtual device::Event preprocess(DeviceContext& context, ItemIndex item,
                                   const memory::ChunkView& parsed,
                                   const memory::ChunkView& item_view) const = 0;
  // Compares two preprocessed items on a device into `comparison`.
  virtual device::Event compare(DeviceContext& context, ItemIndex left,
                                const memory::ChunkView& left_item, ItemIndex right,
                                const memory::ChunkView& right_item,
                                const memory::ChunkView& comparison) const = 0;

  // Which pairs to compute (a pair filter); by default every pair.
  virtual bool wants(ItemIndex /*left*/, ItemIndex /*right*/) const { return true; }

  // Size of one postprocessed result record.
  virtual std::size_t result_bytes() const = 0;
  // Postprocesses a comparison (host copy of its comparison_result_bytes()) into a result record.
  virtual void postprocess_bytes(ItemIndex left, ItemIndex right,
                                 std::span<const std::byte> comparison,
                                 std::span<std::byte> result) const = 0;
};

// Throws when the application's result part is larger than its comparison buffer.
inline void check_comparison_sizes(const ApplicationBase& application) {
  if (application.comparison_result_bytes() > application.comparison_bytes())
    throw Error(application.name() + ": comparison_result_bytes() (" +
                std::to_string(application.comparison_result_bytes()) +
                ") exceeds comparison_bytes() (" + std::to_string(application.comparison_bytes()) +
                ")");
}

// An application whose result per pair is a `Result` (trivially copyable: it is written to the
// results file as it is).
template <class Result>
class Application : public ApplicationBase {
  static_assert(std::is_trivially_copyable_v<Result>, "results are written as raw records");

 public:
  using ResultType = Result;
  virtual Result postprocess(ItemIndex left, ItemIndex right,
                             std::span<const std::byte> comparison) const = 0;

  std::size_t result_bytes() const final { return sizeof(Result); }
  void postprocess_bytes(ItemIndex left, ItemIndex right, std::span<const std::byte> comparison,
                         std::span<std::byte> result) const final {
    const Result value = postprocess(left, right, comparison);
    std::memcpy(result.data(), &value, sizeof value);
  }
};

}  // namespace strata::allpairs
