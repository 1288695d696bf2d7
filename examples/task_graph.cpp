// A runnable tour of the task runtime (docs/runtime.md): a small image-like pipeline with
// data accesses, an I/O stage, a reduction, a failure that is reported, and the summary.

#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "strata/runtime/runtime.hpp"

using namespace strata::runtime;

int main() {
  Runtime rt;  // settings from STRATA_* environment variables (see `strata config`)

  constexpr int tiles = 16;
  constexpr int tile_size = 1 << 16;
  std::vector<std::vector<float>> pixels(tiles);
  std::vector<DataHandle> tile_data;
  for (int t = 0; t < tiles; ++t) {
    tile_data.push_back(rt.create_data("tile " + std::to_string(t), tile_size * sizeof(float)));
  }
  double total = 0;
  DataHandle total_data = rt.create_data("total");

  for (int t = 0; t < tiles; ++t) {
    // "Load" on the I/O pool, then two compute steps that follow it through the tile's data.
    rt.submit(TaskSpec("load " + std::to_string(t)).on(rt.io()).writes(tile_data[t]),
              [&, t] { pixels[t].assign(tile_size, static_cast<float>(t)); });
    rt.submit(TaskSpec("scale").updates(tile_data[t]), [&, t] {
      for (float& p : pixels[t])
        p = p * 2.0f + 1.0f;
    });
    // Reductions into one total commute: they run in any order, never at the same time.
    rt.submit(TaskSpec("sum").reads(tile_data[t]).reduces(total_data),
              [&, t] { total += std::accumulate(pixels[t].begin(), pixels[t].end(), 0.0); });
  }
  double reported = 0;
  rt.submit(TaskSpec("report").reads(total_data), [&] { reported = total; });
  rt.wait_all();

  double expected = 0;
  for (int t = 0; t < tiles; ++t)
    expected += (2.0 * t + 1.0) * tile_size;
  std::printf("total %.0f (expected %.0f)\n", reported, expected);

  // A failing task: its dependents do not run and wait_all() names it.
  TaskHandle broken =
      rt.submit(TaskSpec("decode tile 99"), [] { throw std::runtime_error("truncated stream"); });
  rt.submit(TaskSpec("use tile 99").after(broken), [] {});
  bool caught = false;
  try {
    rt.wait_all();
  } catch (const TaskFailed& e) {
    caught = e.task() == "decode tile 99";
    std::printf("caught: %s\n", e.what());
  }

  std::fputs(rt.summary().format().c_str(), stdout);
  return reported == expected && caught ? 0 : 1;
}
