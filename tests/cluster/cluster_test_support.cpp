#include "cluster_test_support.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace strata::cluster::testing {

namespace {
std::uint64_t scramble(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}
}  // namespace

void mix(std::span<std::uint64_t> out, const std::vector<std::span<const std::uint64_t>>& inputs,
         const MixArgs& args) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint64_t value = scramble(args.seed + i);
    if (args.update) value ^= out[i] * 3;
    for (const auto& input : inputs) {
      if (!input.empty()) value += scramble(input[i % input.size()]);
    }
    out[i] = value;
  }
}

std::vector<std::byte> as_bytes(const std::vector<std::uint64_t>& words) {
  std::vector<std::byte> bytes(words.size() * sizeof(std::uint64_t));
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

std::vector<std::uint64_t> as_words(const std::vector<std::byte>& bytes) {
  std::vector<std::uint64_t> words(bytes.size() / sizeof(std::uint64_t));
  std::memcpy(words.data(), bytes.data(), words.size() * sizeof(std::uint64_t));
  return words;
}

void define_operations(Program& program) {
  program.define("fill", [](OperationContext& context) {
    const auto seed = context.args<std::uint64_t>();
    auto out = context.chunk_as<std::uint64_t>(0);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = seed * 1000003 + i;
  });
  program.define("mix", [](OperationContext& context) {
    const auto args = context.args<MixArgs>();
    std::vector<std::span<const std::uint64_t>> inputs;
    for (std::size_t i = 1; i < context.chunk_count(); ++i) {
      inputs.push_back(context.chunk_as<std::uint64_t>(i));
    }
    mix(context.chunk_as<std::uint64_t>(0), inputs, args);
  });
  program.define("fail", [](OperationContext& context) {
    throw std::runtime_error("planted failure on rank " + std::to_string(context.rank()));
  });
}

}  // namespace strata::cluster::testing
