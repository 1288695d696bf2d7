// Chunk transfers between two ranks against a raw MPI ping-pong in the same run, and the control
// round trip against a raw 8-byte MPI ping-pong. Run with exactly two ranks (mpirun -n 2).
//
// Raw: MPI_Send/MPI_Recv ping-pong on the main thread, before and after the Strata phase (MPI is
// initialized by this program, so the Strata network thread is not running then).
// Strata: a chunk of SIZE bytes bounces between the ranks: the driver plans a read-write operation
// on rank 1, then on rank 0, and so on; each plans a matched send/receive of the chunk (the other
// rank's copy is then dropped). Bandwidth = bytes moved / time for all steps.
// Step: the same bounce with a 4 KiB chunk (seconds per step: what a step costs besides bytes).
// Control: rank 0 posts a message; rank 1's handler answers; rank 0 waits for the answer.
// Late sender: rank 0 posts a receive of SIZE bytes and asks rank 1 to send them 50 ms later; the
// bandwidth counts the time after those 50 ms, and rank 0's process CPU time over the first 40 ms
// (every thread: the network thread polling for the receive, idle workers) is reported per
// second waited — what a rank waiting on a peer takes from the cores its kernels run on.
// Prints one JSON object on rank 0.

#include <mpi.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_json.hpp"
#include "strata/cluster/message_kinds.hpp"
#include "strata/node/node.hpp"

namespace {

using strata::bench::json_list;

using Clock = std::chrono::steady_clock;
using strata::cluster::Driver;
using strata::cluster::MessageKind;

constexpr MessageKind ping_kind = strata::cluster::kinds::user_kinds;
constexpr MessageKind pong_kind = strata::cluster::kinds::user_kinds + 1;
constexpr MessageKind bounce_kind = strata::cluster::kinds::user_kinds + 2;
constexpr MessageKind late_kind = strata::cluster::kinds::user_kinds + 3;
constexpr auto late_delay = std::chrono::milliseconds(50);

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

int steps_for(std::uint64_t bytes) {
  return bytes >= (64u << 20) ? 8 : 50;
}

// One-way bandwidth of a ping-pong of `bytes` (bytes/s): 2 messages per round trip. Each message
// uses the next of `buffers` (one buffer: the same memory every time, hot in cache when it fits).
double raw_bandwidth(int rank, std::uint64_t bytes, std::vector<std::vector<char>>& buffers) {
  const int rounds = steps_for(bytes) / 2;
  std::size_t next = 0;
  const int other = 1 - rank;
  const int count = static_cast<int>(bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = Clock::now();
  for (int i = 0; i < rounds; ++i) {
    char* first = buffers[next++ % buffers.size()].data();
    char* second = buffers[next++ % buffers.size()].data();
    if (rank == 0) {
      MPI_Send(first, count, MPI_BYTE, other, 0, MPI_COMM_WORLD);
      MPI_Recv(second, count, MPI_BYTE, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(first, count, MPI_BYTE, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(second, count, MPI_BYTE, other, 0, MPI_COMM_WORLD);
    }
  }
  return 2.0 * rounds * static_cast<double>(bytes) / seconds_since(start);
}

// Round-trip time of an 8-byte ping-pong (seconds).
double raw_round_trip(int rank, int rounds) {
  char byte[8] = {};
  const int other = 1 - rank;
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = Clock::now();
  for (int i = 0; i < rounds; ++i) {
    if (rank == 0) {
      MPI_Send(byte, 8, MPI_BYTE, other, 1, MPI_COMM_WORLD);
      MPI_Recv(byte, 8, MPI_BYTE, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(byte, 8, MPI_BYTE, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(byte, 8, MPI_BYTE, other, 1, MPI_COMM_WORLD);
    }
  }
  return seconds_since(start) / rounds;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "cluster_transfer: run with exactly 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  int repetitions = 7;
  std::uint64_t piece_mib = 8;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--repetitions") repetitions = std::atoi(argv[i + 1]);
    if (flag == "--piece-mib") piece_mib = std::strtoull(argv[i + 1], nullptr, 10);
  }
  const std::vector<std::uint64_t> sizes{4ull << 20, 64ull << 20};
  constexpr int latency_rounds = 2000;

  std::map<std::string, std::vector<double>> results;  // name -> one value per repetition
  // Raw with one buffer (what a ping-pong usually measures) and rotating over 8 buffers of 64 MiB
  // (memory not in cache, as a chunk moving between ranks is).
  std::vector<std::vector<char>> one(1, std::vector<char>(sizes.back(), 1));
  std::vector<std::vector<char>> rotating(8, std::vector<char>(sizes.back(), 1));
  auto raw_phase = [&](int reps) {
    for (int r = 0; r < reps; ++r) {
      for (std::uint64_t bytes : sizes) {
        const std::string mib = std::to_string(bytes >> 20) + "MiB";
        results["raw_" + mib].push_back(raw_bandwidth(rank, bytes, one));
        results["raw_rotating_" + mib].push_back(raw_bandwidth(rank, bytes, rotating));
      }
      results["raw_round_trip"].push_back(raw_round_trip(rank, latency_rounds));
    }
  };
  raw_phase((repetitions + 1) / 2);

  {
    strata::node::NodeOptions options;
    options.config.section<strata::memory::MemorySettings>().host_capacity = 1ull << 30;
    options.config.section<strata::cluster::ClusterSettings>().network_piece_bytes = piece_mib
                                                                                     << 20;
    strata::node::Node node(argc, argv, options);
    strata::cluster::Program& program = node.program();
    program.define("init", [](strata::cluster::OperationContext& context) {
      auto bytes = context.chunk(0);
      std::fill(bytes.begin(), bytes.end(), std::byte{7});
    });
    program.define("look", [](strata::cluster::OperationContext& context) {
      if (context.chunk(0)[0] != std::byte{7}) throw std::runtime_error("wrong bytes arrived");
    });
    program.define("touch", [](strata::cluster::OperationContext& context) {
      context.chunk(0)[0] = std::byte{static_cast<unsigned char>(context.rank())};
    });
    std::mutex lock;
    std::condition_variable answered;
    bool pong = false;
    // The answer rank 0 waits for (a pong, a transfer's completion), and the wait for it.
    const auto answer = [&] {
      std::lock_guard guard(lock);
      pong = true;
      answered.notify_all();
    };
    const auto await_answer = [&] {
      std::unique_lock guard(lock);
      answered.wait(guard, [&] { return pong; });
      pong = false;
    };
    strata::cluster::Network& network = program.network();
    network.on(ping_kind, [&network](int source, std::span<const std::byte>) {
      network.post(source, pong_kind, {});
    });
    network.on(pong_kind, [&](int, std::span<const std::byte>) { answer(); });
    // Network alone: rank 0 announces a transfer id, sends SIZE bytes; rank 1 receives them and
    // sends them back (no tasks, no memory manager).
    std::vector<std::byte> bounce_buffer(sizes.back());
    network.on(bounce_kind, [&](int source, std::span<const std::byte> payload) {
      const auto [id, bytes] =
          strata::cluster::decode<std::pair<std::uint64_t, std::uint64_t>>(payload, "a bounce");
      std::span<std::byte> data(bounce_buffer.data(), bytes);
      network.receive(source, id, data, [&network, source, id, data](std::exception_ptr) {
        network.send(source, id + 1, data, [](std::exception_ptr) {});
      });
    });
    std::uint64_t next_transfer = 1ull << 40;
    auto network_bandwidth = [&](std::uint64_t bytes) {
      const int rounds = steps_for(bytes) / 2;
      std::span<std::byte> data(bounce_buffer.data(), bytes);
      const auto start = Clock::now();
      for (int i = 0; i < rounds; ++i) {
        const std::uint64_t id = next_transfer;
        next_transfer += 2;
        network.post_value(1, bounce_kind, std::pair<std::uint64_t, std::uint64_t>(id, bytes));
        network.send(1, id, data, [](std::exception_ptr) {});
        network.receive(1, id + 1, data, [&](std::exception_ptr) { answer(); });
        await_answer();
      }
      return 2.0 * rounds * static_cast<double>(bytes) / seconds_since(start);
    };
    // Late sender: rank 1 sends from its own thread after the delay (a handler must not block
    // the network thread).
    std::vector<std::thread> late_senders;
    network.on(late_kind, [&](int source, std::span<const std::byte> payload) {
      const auto [id, bytes] =
          strata::cluster::decode<std::pair<std::uint64_t, std::uint64_t>>(payload, "a late send");
      std::span<std::byte> data(bounce_buffer.data(), bytes);
      late_senders.emplace_back([&network, source, id, data] {
        std::this_thread::sleep_for(late_delay);
        network.send(source, id, data, [](std::exception_ptr) {});
      });
    });
    // Returns {bytes/s after the delay, process CPU seconds per second over the first 40 ms of
    // the wait (before any byte comes: moving them takes CPU time too)}.
    auto late_sender = [&](std::uint64_t bytes) {
      std::span<std::byte> data(bounce_buffer.data(), bytes);
      const std::uint64_t id = next_transfer;
      next_transfer += 2;
      const double cpu_start = process_cpu_seconds();
      const auto start = Clock::now();
      network.receive(1, id, data, [&](std::exception_ptr) { answer(); });
      network.post_value(1, late_kind, std::pair<std::uint64_t, std::uint64_t>(id, bytes));
      std::this_thread::sleep_for(late_delay - std::chrono::milliseconds(10));
      const double waiting_cpu = (process_cpu_seconds() - cpu_start) / seconds_since(start);
      await_answer();
      const double moving =
          seconds_since(start) - std::chrono::duration<double>(late_delay).count();
      return std::pair<double, double>(static_cast<double>(bytes) / moving, waiting_cpu);
    };
    const int status = program.run([&](Driver& driver) {
      for (int r = 0; r < repetitions; ++r) {
        for (std::uint64_t bytes : sizes) {
          auto chunk = driver.create_chunk("bounce", bytes, 0);
          driver.write(chunk, std::vector<std::byte>(bytes, std::byte{1}));
          driver.wait_all();
          const int steps = steps_for(bytes);
          const auto start = Clock::now();
          for (int s = 0; s < steps; ++s) {
            driver.run(s % 2 == 0 ? 1 : 0, "touch", {{chunk, strata::runtime::Access::read_write}});
          }
          driver.wait_all();
          results["strata_" + std::to_string(bytes >> 20) + "MiB"].push_back(
              static_cast<double>(steps) * static_cast<double>(bytes) / seconds_since(start));
          driver.destroy(chunk);
        }
        // The fixed cost of one bounce step (planning, control messages, tasks, wake-ups): the
        // same bounce with a 4 KiB chunk, whose bytes take no measurable time to move.
        {
          constexpr std::uint64_t small_bytes = 4096;
          constexpr int small_steps = 200;
          auto chunk = driver.create_chunk("bounce 4 KiB", small_bytes, 0);
          driver.write(chunk, std::vector<std::byte>(small_bytes, std::byte{1}));
          driver.wait_all();
          const auto start = Clock::now();
          for (int s = 0; s < small_steps; ++s) {
            driver.run(s % 2 == 0 ? 1 : 0, "touch", {{chunk, strata::runtime::Access::read_write}});
          }
          driver.wait_all();
          results["strata_step_4KiB"].push_back(seconds_since(start) / small_steps);
          driver.destroy(chunk);
        }
        // Streaming: chunks written on rank 1 are all read on rank 0 at once, so their
        // transfers overlap each other and the tasks around them.
        for (std::uint64_t bytes : sizes) {
          const int count = static_cast<int>((256ull << 20) / bytes);
          std::vector<strata::cluster::ChunkRef> chunks;
          for (int c = 0; c < count; ++c) {
            chunks.push_back(driver.create_chunk("stream", bytes, 1));
            driver.run(1, "init", {{chunks.back(), strata::runtime::Access::write}});
          }
          driver.wait_all();
          const auto start = Clock::now();
          for (auto chunk : chunks)
            driver.run(0, "look", {{chunk, strata::runtime::Access::read}});
          driver.wait_all();
          results["strata_stream_" + std::to_string(bytes >> 20) + "MiB"].push_back(
              static_cast<double>(count) * static_cast<double>(bytes) / seconds_since(start));
          for (auto chunk : chunks)
            driver.destroy(chunk);
        }
        const auto start = Clock::now();
        for (int i = 0; i < latency_rounds; ++i) {
          network.post(1, ping_kind, {});
          await_answer();
        }
        results["strata_round_trip"].push_back(seconds_since(start) / latency_rounds);
        for (std::uint64_t bytes : sizes) {
          results["network_" + std::to_string(bytes >> 20) + "MiB"].push_back(
              network_bandwidth(bytes));
          const auto [bandwidth, cpu_share] = late_sender(bytes);
          results["late_" + std::to_string(bytes >> 20) + "MiB"].push_back(bandwidth);
          results["late_waiting_cpu_" + std::to_string(bytes >> 20) + "MiB"].push_back(cpu_share);
        }
      }
    });
    for (std::thread& sender : late_senders)
      sender.join();
    if (status != 0) {
      MPI_Abort(MPI_COMM_WORLD, status);
    }
  }

  raw_phase(repetitions / 2);
  if (rank == 0) {
    std::printf("{\"repetitions\": %d, \"piece_bytes\": %llu, \"latency_rounds\": %d", repetitions,
                static_cast<unsigned long long>(piece_mib << 20), latency_rounds);
    for (const auto& [name, values] : results) {
      std::printf(", \"%s\": %s", name.c_str(), json_list(values).c_str());
    }
    std::printf("}\n");
  }
  MPI_Finalize();
  return 0;
}
