#include "cluster_test_support.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "strata/cluster/remote_chunks.hpp"
#include "strata/cluster/work_stealing.hpp"

namespace strata::cluster::testing {

std::atomic<bool> hold_released{false};
std::atomic<std::uint64_t> held_ran{0};

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

std::vector<std::uint64_t> filled(std::size_t words, std::uint64_t seed) {
  std::vector<std::uint64_t> out(words);
  for (std::size_t i = 0; i < words; ++i)
    out[i] = seed * 1000003 + i;
  return out;
}

std::vector<std::uint64_t> stage_mixed(std::size_t words,
                                       const std::vector<std::span<const std::uint64_t>>& inputs,
                                       const StageMixArgs& args) {
  std::vector<std::uint64_t> first(words), second(words), out(words);
  mix(first, inputs, MixArgs{args.seed, false});
  mix(second, inputs, MixArgs{args.seed + 1, false});
  for (std::size_t i = 0; i < words; ++i)
    out[i] = first[i] ^ (second[i] * 5);
  return out;
}

namespace {
// The words of `data` in the running task (which declared it).
std::span<std::uint64_t> words_of(runtime::ChunkStaging& staging, runtime::TaskContext& task,
                                  const runtime::DataHandle& data) {
  const memory::ChunkView view = staging.view(task, data);
  return {static_cast<std::uint64_t*>(view.host), view.bytes / 8};
}

void define_mix_stage(Program& program) {
  program.define_stage("mix_stage", [](StageContext& stage) {
    const auto args = stage.args<StageMixArgs>();
    const std::uint64_t bytes = stage.bytes(0);
    std::vector<runtime::DataHandle> inputs;
    for (std::size_t i = 1; i < stage.chunk_count(); ++i)
      inputs.push_back(stage.chunk(i));
    const runtime::DataHandle first = stage.scratch("first", bytes);
    const runtime::DataHandle second = stage.scratch("second", bytes);
    runtime::ChunkStaging& staging = stage.staging();
    auto half = [&staging, inputs](runtime::DataHandle out, std::uint64_t seed) {
      return [&staging, inputs, out, seed](runtime::TaskContext& task) {
        std::vector<std::span<const std::uint64_t>> in;
        for (const runtime::DataHandle& input : inputs)
          in.push_back(words_of(staging, task, input));
        mix(words_of(staging, task, out), in, MixArgs{seed, false});
      };
    };
    runtime::TaskSpec one("first half");
    runtime::TaskSpec two("second half");
    two.on(stage.runtime().cpu()).on(stage.runtime().io());
    for (const runtime::DataHandle& input : inputs) {
      one.reads(input);
      two.reads(input);
    }
    one.writes(first);
    two.writes(second);
    stage.submit(std::move(one), half(first, args.seed));
    stage.submit(std::move(two), half(second, args.seed + 1));
    const runtime::DataHandle out = stage.chunk(0);
    stage.submit(runtime::TaskSpec("combine").reads(first).reads(second).writes(out),
                 [&staging, first, second, out, sleep = args.sleep_us](runtime::TaskContext& task) {
                   const auto a = words_of(staging, task, first);
                   const auto b = words_of(staging, task, second);
                   const auto o = words_of(staging, task, out);
                   for (std::size_t i = 0; i < o.size(); ++i)
                     o[i] = a[i] ^ (b[i] * 5);
                   std::this_thread::sleep_for(std::chrono::microseconds(sleep));
                 });
  });
}
}  // namespace

void define_operations(Program& program) {
  define_mix_stage(program);
  // A kind of plan operation of the tests' own: multiplies the words of accesses[0] in place.
  program.define_kind("scale", [](PlanContext& context, const PlanOp& op) {
    const runtime::DataHandle data = context.chunk(op.accesses.at(0));
    const auto factor = decode<std::uint64_t>(
        std::as_bytes(std::span(op.args.data(), op.args.size())), "a scale factor");
    runtime::ChunkStaging& staging = context.staging();
    context.submit(
        runtime::TaskSpec("scale").updates(data),
        [&staging, data, factor](runtime::TaskContext& task) {
          const memory::ChunkView view = staging.view(task, data);
          auto* words = static_cast<std::uint64_t*>(view.host);
          for (std::size_t i = 0; i < view.bytes / 8; ++i)
            words[i] *= factor;
        },
        op.accesses);
  });
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
  // One round of stealing over ranges of units: a worker splits its range in halves, keeps
  // one and pushes the other, until a range is small enough to do. Rank 0, where all work
  // starts, is slow (the whole round alone would take it 0.4 s), so the others steal.
  auto pool = std::make_shared<WorkStealing>(program.network(), 2, steal_units);
  program.define("steal_round", [pool](OperationContext& context) {
    auto result = context.chunk(0);
    std::memset(result.data(), 0, result.size());
    if (context.rank() == 0) {
      pool->push(0, StealableWork{steal_units, "0 " + std::to_string(steal_units)});
    }
    const std::uint64_t unit_micros = context.rank() == 0 ? 20 : 1;
    auto work = [&](unsigned worker) {
      while (auto piece = pool->take(worker)) {
        std::uint64_t lo = 0;
        std::uint64_t hi = 0;
        std::sscanf(piece->payload.c_str(), "%lu %lu", &lo, &hi);
        while (hi - lo > 64) {
          const std::uint64_t mid = lo + (hi - lo) / 2;
          pool->push(worker,
                     StealableWork{hi - mid, std::to_string(mid) + " " + std::to_string(hi)});
          hi = mid;
        }
        const auto busy_until =
            std::chrono::steady_clock::now() + std::chrono::microseconds((hi - lo) * unit_micros);
        while (std::chrono::steady_clock::now() < busy_until) {
        }
        for (std::uint64_t unit = lo; unit < hi; ++unit) {
          result[unit] =
              std::byte{static_cast<unsigned char>(std::to_integer<int>(result[unit]) + 1)};
        }
        pool->finished(hi - lo);
      }
    };
    std::thread helper(work, 1);
    work(0);
    helper.join();
    const std::uint64_t remote = pool->stats().remote_steals;
    std::memcpy(result.data() + steal_units, &remote, sizeof remote);
  });
  // Pulled copies: every rank offers a chunk of its memory manager under key 100 + rank, then
  // fetches its right neighbour's and checks it. Chunk 0 gets the words "ok" checked.
  auto remote = std::make_shared<RemoteChunks>(program.network(), program.memory());
  memory::MemoryManager& memory = program.memory();
  program.define("remote_offer", [remote, &memory](OperationContext& context) {
    std::vector<std::uint64_t> words(1000 + 10 * context.rank());
    for (std::size_t i = 0; i < words.size(); ++i)
      words[i] = context.rank() * 1000003 + i;
    const std::vector<std::byte> bytes = as_bytes(words);
    remote->offer(
        100 + context.rank(),
        memory.create_chunk("offered by " + std::to_string(context.rank()), bytes.size(), bytes));
  });
  program.define("remote_pull", [remote, &memory](OperationContext& context) {
    auto checked = context.chunk_as<std::uint64_t>(0);
    std::fill(checked.begin(), checked.end(), 0);
    const int size = static_cast<int>(checked.size());
    for (int holder = 0; holder < size; ++holder) {
      if (holder == context.rank()) continue;
      const memory::ChunkId replica = remote->fetch(holder, 100 + holder);
      std::vector<std::byte> bytes(memory.chunk_bytes(replica));
      memory.read(replica, bytes);
      const std::vector<std::uint64_t> words = as_words(bytes);
      bool right = words.size() == static_cast<std::size_t>(1000 + 10 * holder);
      for (std::size_t i = 0; right && i < words.size(); ++i) {
        right = words[i] == holder * 1000003 + i;
      }
      memory.destroy_chunk(replica);
      checked[holder] = right ? 1 : 2;
      try {
        remote->fetch(holder, 999);
        checked[holder] = 3;  // a key nobody offers must fail
      } catch (const NotOffered&) {
      }
    }
  });
  program.define("hold", [](OperationContext&) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!hold_released.load() && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    held_ran.fetch_add(1);
  });
  program.define("fail", [](OperationContext& context) {
    throw std::runtime_error("planted failure on rank " + std::to_string(context.rank()));
  });
}

}  // namespace strata::cluster::testing
