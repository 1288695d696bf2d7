#pragma once
// VectorApplication: a small all-pairs application for the engine's tests. Item k is a file of
// float32 values (lengths differ, so cache slots differ in size); preprocessing scales a vector
// to unit length on the device; comparing two items takes the dot product of their common
// prefix. reference() computes every result directly, for comparison.

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "strata/allpairs/application.hpp"

namespace strata::allpairs::testing {

struct Dot {
  float value;
};

inline std::filesystem::path vector_file(const std::filesystem::path& dir, ItemIndex item) {
  return dir / ("vector_" + std::to_string(item) + ".f32");
}

// Writes `items` vector files with lengths in [min_length, max_length] into `dir`.
inline void write_vectors(const std::filesystem::path& dir, ItemIndex items, unsigned seed,
                          std::uint32_t min_length = 16, std::uint32_t max_length = 64) {
  std::filesystem::create_directories(dir);
  std::mt19937 random(seed);
  std::uniform_int_distribution<std::uint32_t> length(min_length, max_length);
  std::normal_distribution<float> value(0.0f, 1.0f);
  for (ItemIndex k = 0; k < items; ++k) {
    std::vector<float> v(length(random));
    for (float& x : v)
      x = value(random);
    std::ofstream out(vector_file(dir, k), std::ios::binary);
    out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  }
}

inline device::KernelDefinition normalize_kernel() {
  return device::KernelDefinition("test_normalize")
      .scalar<std::uint32_t>("n")
      .array<float>("input", device::ParamAccess::read)
      .array<float>("output", device::ParamAccess::write)
      .cpu([](const device::CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const float* in = block.array<float>(1);
        float* out = block.array<float>(2);
        double sum = 0;
        for (std::uint32_t i = 0; i < n; ++i)
          sum += double(in[i]) * in[i];
        const double scale = sum > 0 ? 1.0 / std::sqrt(sum) : 0.0;
        for (std::uint32_t i = 0; i < n; ++i)
          out[i] = static_cast<float>(in[i] * scale);
      });
}

inline device::KernelDefinition dot_kernel() {
  return device::KernelDefinition("test_dot")
      .scalar<std::uint32_t>("n")
      .array<float>("a", device::ParamAccess::read)
      .array<float>("b", device::ParamAccess::read)
      .array<float>("result", device::ParamAccess::write)
      .cpu([](const device::CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const float* a = block.array<float>(1);
        const float* b = block.array<float>(2);
        double sum = 0;
        for (std::uint32_t i = 0; i < n; ++i)
          sum += double(a[i]) * b[i];
        block.array<float>(3)[0] = static_cast<float>(sum);
      });
}

class VectorApplication : public Application<Dot> {
 public:
  VectorApplication(std::filesystem::path dir, ItemIndex items)
      : dir_(std::move(dir)), items_(items) {}

  std::string name() const override { return "vectors"; }
  std::size_t item_count() const override { return items_; }
  std::filesystem::path file_of(ItemIndex item) const override { return vector_file(dir_, item); }
  std::vector<std::byte> parse(ItemIndex item, std::span<const std::byte> file) const override {
    if (file.size() % 4 != 0 || file.empty())
      throw InputError(file_of(item).string() + ": " + std::to_string(file.size()) +
                       " bytes is not a whole number of float32 values");
    return {file.begin(), file.end()};
  }
  std::uint64_t item_bytes(ItemIndex, std::uint64_t parsed_bytes) const override {
    return parsed_bytes;
  }
  std::uint64_t slot_bytes() const override { return 64 * 4; }
  std::uint64_t comparison_bytes() const override { return 4; }

  device::Event preprocess(DeviceContext& context, ItemIndex, const memory::ChunkView& parsed,
                           const memory::ChunkView& item) const override {
    const auto n = static_cast<std::uint32_t>(parsed.bytes / 4);
    return context.launch(normalize, device::LaunchGeometry{device::Dim3{1}},
                          {device::KernelArg::value(n), parsed.argument(device::ElementType::f32),
                           item.argument(device::ElementType::f32)});
  }
  device::Event compare(DeviceContext& context, ItemIndex, const memory::ChunkView& left, ItemIndex,
                        const memory::ChunkView& right,
                        const memory::ChunkView& comparison) const override {
    const auto n = static_cast<std::uint32_t>(std::min(left.bytes, right.bytes) / 4);
    return context.launch(
        dot, device::LaunchGeometry{device::Dim3{1}},
        {device::KernelArg::value(n), left.argument(device::ElementType::f32),
         right.argument(device::ElementType::f32), comparison.argument(device::ElementType::f32)});
  }
  Dot postprocess(ItemIndex left, ItemIndex right,
                  std::span<const std::byte> comparison) const override {
    if (fail_at_ && *fail_at_ == std::pair{left, right})
      throw Error("planted failure at pair " + std::to_string(left) + "," + std::to_string(right));
    Dot result{};
    std::memcpy(&result.value, comparison.data(), sizeof result.value);
    return result;
  }
  bool wants(ItemIndex left, ItemIndex right) const override {
    return !filter_ || filter_(left, right);
  }

  // Postprocessing this pair throws (an interrupted run).
  void fail_at(ItemIndex left, ItemIndex right) { fail_at_ = std::pair{left, right}; }
  void filter(std::function<bool(ItemIndex, ItemIndex)> keep) { filter_ = std::move(keep); }

  // Every result, computed directly from the files.
  std::map<std::pair<ItemIndex, ItemIndex>, float> reference(
      const std::vector<std::pair<ItemIndex, ItemIndex>>& pairs) const {
    std::map<std::pair<ItemIndex, ItemIndex>, float> out;
    for (const auto& [a, b] : pairs) {
      const std::vector<float> x = normalized(a), y = normalized(b);
      double sum = 0;
      for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i)
        sum += double(x[i]) * y[i];
      out[{a, b}] = static_cast<float>(sum);
    }
    return out;
  }

 private:
  std::vector<float> normalized(ItemIndex item) const {
    std::ifstream in(file_of(item), std::ios::binary);
    std::vector<float> v(std::filesystem::file_size(file_of(item)) / 4);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
    double sum = 0;
    for (float x : v)
      sum += double(x) * x;
    for (float& x : v)
      x = static_cast<float>(x * (1.0 / std::sqrt(sum)));
    return v;
  }

  std::filesystem::path dir_;
  ItemIndex items_;
  device::KernelDefinition normalize = normalize_kernel();
  device::KernelDefinition dot = dot_kernel();
  std::optional<std::pair<ItemIndex, ItemIndex>> fail_at_;
  std::function<bool(ItemIndex, ItemIndex)> filter_;
};

}  // namespace strata::allpairs::testing
