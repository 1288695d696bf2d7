// The HDF5 box store against raw HDF5 hyperslab I/O of the same boxes, and its staged writes
// against synchronous ones in a pipeline that computes each tile and writes it (the region-
// templates paper's mark for staging: 1.13x). A field of f32 cut into square tiles; raw HDF5
// writes and reads the tiles as hyperslabs of one dataset in one file, the store writes one file
// per tile. Every read is checked.
// Usage: bench_box_store [--side N] [--tile T] [--repetitions R] [--sweeps S] [--dir D]
//                        [--out PREFIX]   (PREFIX.md, PREFIX.json)

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_json.hpp"
#include "bench_timing.hpp"
#include "strata/base/error.hpp"
#include "strata/store/hdf5_box_store.hpp"

namespace {

namespace bench = strata::bench;
namespace store = strata::store;
using strata::Error;
using strata::store::Region;

struct Series {
  std::string label;
  std::vector<double> seconds;
};

struct Field {
  std::uint64_t side = 8192;
  std::uint64_t tile = 1024;
  std::uint64_t tiles_per_side() const { return side / tile; }
  Region box(std::uint64_t t) const {
    const std::uint64_t row = t / tiles_per_side(), col = t % tiles_per_side();
    return Region::of(std::array<std::uint64_t, 2>{row * tile, col * tile},
                      std::array<std::uint64_t, 2>{(row + 1) * tile, (col + 1) * tile});
  }
  std::uint64_t count() const { return tiles_per_side() * tiles_per_side(); }
};

std::vector<float> tile_values(std::uint64_t t, std::uint64_t elements) {
  std::vector<float> values(elements);
  for (std::uint64_t i = 0; i < elements; ++i)
    values[i] = static_cast<float>(t * 7 + i % 1013);
  return values;
}

void check(bool ok, const char* what) {
  if (!ok) throw Error(std::string("a read gave other values: ") + what);
}

// Raw HDF5: one file, one dataset of the whole field, a hyperslab write or read per tile.
void raw_write(const std::string& path, const Field& field,
               const std::vector<std::vector<float>>& tiles) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t dims[2] = {field.side, field.side};
  const hid_t space = H5Screate_simple(2, dims, nullptr);
  const hid_t dataset =
      H5Dcreate2(file, "/data", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t count[2] = {field.tile, field.tile};
  const hid_t memory = H5Screate_simple(2, count, nullptr);
  for (std::uint64_t t = 0; t < field.count(); ++t) {
    const Region box = field.box(t);
    const hsize_t start[2] = {box.lo[0], box.lo[1]};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    if (H5Dwrite(dataset, H5T_NATIVE_FLOAT, memory, space, H5P_DEFAULT, tiles[t].data()) < 0)
      throw Error("raw HDF5 write failed");
  }
  H5Sclose(memory);
  H5Dclose(dataset);
  H5Sclose(space);
  H5Fclose(file);
}

void raw_read(const std::string& path, const Field& field,
              const std::vector<std::vector<float>>& tiles) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t dataset = H5Dopen2(file, "/data", H5P_DEFAULT);
  const hid_t space = H5Dget_space(dataset);
  const hsize_t count[2] = {field.tile, field.tile};
  const hid_t memory = H5Screate_simple(2, count, nullptr);
  std::vector<float> out(field.tile * field.tile);
  for (std::uint64_t t = 0; t < field.count(); ++t) {
    const Region box = field.box(t);
    const hsize_t start[2] = {box.lo[0], box.lo[1]};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    if (H5Dread(dataset, H5T_NATIVE_FLOAT, memory, space, H5P_DEFAULT, out.data()) < 0)
      throw Error("raw HDF5 read failed");
    check(out == tiles[t], "raw HDF5");
  }
  H5Sclose(memory);
  H5Sclose(space);
  H5Dclose(dataset);
  H5Fclose(file);
}

// The pipeline's compute: `sweeps` passes of a 5-point smoothing over the tile.
void smooth(std::vector<float>& values, std::vector<float>& scratch, std::uint64_t side,
            int sweeps) {
  scratch.resize(values.size());
  for (int s = 0; s < sweeps; ++s) {
    for (std::uint64_t r = 0; r < side; ++r) {
      for (std::uint64_t c = 0; c < side; ++c) {
        const float up = values[(r == 0 ? r : r - 1) * side + c];
        const float down = values[(r + 1 == side ? r : r + 1) * side + c];
        const float left = values[r * side + (c == 0 ? c : c - 1)];
        const float right = values[r * side + (c + 1 == side ? c : c + 1)];
        scratch[r * side + c] = 0.2f * (values[r * side + c] + up + down + left + right);
      }
    }
    values.swap(scratch);
  }
}

}  // namespace

int main(int argc, char** argv) try {
  Field field;
  int repetitions = 5;
  int sweeps = 4;
  std::string dir = "/tmp/strata-bench-box-store";
  std::string out = "bench/results/box-store";
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw Error("option " + flag + " needs a value");
    const std::string value = argv[i + 1];
    if (flag == "--side") {
      field.side = std::stoull(value);
    } else if (flag == "--tile") {
      field.tile = std::stoull(value);
    } else if (flag == "--repetitions") {
      repetitions = std::stoi(value);
    } else if (flag == "--sweeps") {
      sweeps = std::stoi(value);
    } else if (flag == "--dir") {
      dir = value;
    } else if (flag == "--out") {
      out = value;
    } else {
      throw Error("unknown option " + flag);
    }
  }
  if (field.tile == 0 || field.side % field.tile != 0)
    throw Error("--side must be a multiple of --tile");
  const std::uint64_t elements = field.tile * field.tile;
  std::vector<std::vector<float>> tiles;
  for (std::uint64_t t = 0; t < field.count(); ++t)
    tiles.push_back(tile_values(t, elements));
  const store::DataKey key{"field", "pixels", 0, 0};
  const std::string raw_path = dir + "/raw.h5";
  const std::string store_dir = dir + "/store";
  std::filesystem::create_directories(dir);
  constexpr std::uint64_t staging_depth = 4;  // tiles staged at most: fresh pages cost faults
  const auto fresh_store = [&] { std::filesystem::remove_all(store_dir); };
  const auto store_write = [&](bool staged) {
    store::Hdf5StoreOptions options;
    options.staged = staged;
    options.queue_bytes = staging_depth * elements * sizeof(float);
    store::Hdf5BoxStore boxes(store_dir, options);
    for (std::uint64_t t = 0; t < field.count(); ++t)
      boxes.write_of<float>(key, field.box(t), tiles[t]);
    boxes.flush();
  };

  std::vector<Series> series;
  series.push_back({"raw HDF5 hyperslab writes",
                    bench::timed(
                        repetitions, [] {}, [&] { raw_write(raw_path, field, tiles); })});
  series.push_back({"store writes (synchronous)",
                    bench::timed(repetitions, fresh_store, [&] { store_write(false); })});
  series.push_back({"store writes (staged)",
                    bench::timed(repetitions, fresh_store, [&] { store_write(true); })});
  series.push_back({"raw HDF5 hyperslab reads",
                    bench::timed(
                        repetitions, [] {}, [&] { raw_read(raw_path, field, tiles); })});
  series.push_back(
      {"store reads", bench::timed(
                          repetitions, [] {},
                          [&] {
                            store::Hdf5BoxStore boxes(store_dir);
                            for (std::uint64_t t = 0; t < field.count(); ++t) {
                              check(boxes.read_as<float>(key, field.box(t)) == tiles[t], "store");
                            }
                          })});
  // Compute each tile, then write it: synchronous writes wait for the file, staged ones let the
  // next tile's compute run while an I/O thread writes.
  const auto pipeline = [&](bool staged, bool write, bool durable) {
    store::Hdf5StoreOptions options;
    options.staged = staged;
    options.durable = durable;
    options.queue_bytes = staging_depth * elements * sizeof(float);
    store::Hdf5BoxStore boxes(store_dir, options);
    std::vector<float> values, scratch;
    for (std::uint64_t t = 0; t < field.count(); ++t) {
      values = tiles[t];
      smooth(values, scratch, field.tile, sweeps);
      if (write) boxes.write_of<float>(key, field.box(t), values);
    }
    boxes.flush();
  };
  series.push_back({"pipeline: compute only", bench::timed(repetitions, fresh_store, [&] {
                      pipeline(false, false, false);
                    })});
  for (const bool durable : {false, true}) {
    const std::string synced = durable ? " (durable: fsync)" : "";
    series.push_back(
        {"pipeline: compute + synchronous writes" + synced,
         bench::timed(repetitions, fresh_store, [&] { pipeline(false, true, durable); })});
    series.push_back(
        {"pipeline: compute + staged writes" + synced,
         bench::timed(repetitions, fresh_store, [&] { pipeline(true, true, durable); })});
  }
  std::filesystem::remove_all(dir);

  // The report.
  const auto median_for = [&](const std::string& label) {
    for (const Series& s : series)
      if (s.label == label) return bench::median_of(s.seconds);
    return 0.0;
  };
  const double mib = static_cast<double>(field.side * field.side * sizeof(float)) / (1 << 20);
  std::string command = "build/release/bin/bench_box_store";
  for (int i = 1; i < argc; ++i)
    command += std::string(" ") + argv[i];
  const std::string date = bench::utc_date();
  std::string md = fmt::format(
      "# The HDF5 box store against raw HDF5 hyperslab I/O, and staged writes\n\nDate: {} (host "
      "`{}`), CPU: {}; HDF5 {}.{}.{}; files in {} (buffered I/O into the page cache, no fsync "
      "except in the durable rows)\n\n```\n{}\n```\n\nA {}x{} f32 field ({:.0f} MiB) in {} tiles "
      "of {}x{}. Raw HDF5 "
      "writes and reads each tile as a hyperslab of one dataset in one file (file created and "
      "closed inside the timing); the store writes one HDF5 file per tile (made beside its name, "
      "then renamed) and reads them back (store opened inside the timing). The pipeline smooths "
      "each tile ({} sweeps of a 5-point stencil) and writes it. {} repetitions; every read "
      "checked.\n\n",
      date, bench::host_name(), bench::cpu_model(), H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE,
      dir, command, field.side, field.side, mib, field.count(), field.tile, field.tile, sweeps,
      repetitions);
  md += "| what | median s | min – max s | MiB/s |\n| --- | ---: | ---: | ---: |\n";
  for (const Series& s : series) {
    const double median = bench::median_of(s.seconds);
    md += fmt::format("| {} | {:.4f} | {:.4f} – {:.4f} | {:.0f} |\n", s.label, median,
                      *std::min_element(s.seconds.begin(), s.seconds.end()),
                      *std::max_element(s.seconds.begin(), s.seconds.end()), mib / median);
  }
  const double write_ratio =
      median_for("raw HDF5 hyperslab writes") / median_for("store writes (synchronous)");
  const double read_ratio = median_for("raw HDF5 hyperslab reads") / median_for("store reads");
  const double staging = median_for("pipeline: compute + synchronous writes") /
                         median_for("pipeline: compute + staged writes");
  const double durable_staging =
      median_for("pipeline: compute + synchronous writes (durable: fsync)") /
      median_for("pipeline: compute + staged writes (durable: fsync)");
  md += fmt::format(
      "\nRatios of medians:\n\n- store writes at **{:.0f}%** of raw HDF5's speed (synchronous; "
      "goal ≥ 90%), staged {:.0f}%\n- store reads at **{:.0f}%** of raw HDF5's speed (goal ≥ "
      "90%)\n- staged writes in the pipeline: **{:.2f}x** over synchronous ones into the page "
      "cache, **{:.2f}x** with each file synced to the disk (the paper: 1.13x)\n",
      100 * write_ratio,
      100 * median_for("raw HDF5 hyperslab writes") / median_for("store writes (staged)"),
      100 * read_ratio, staging, durable_staging);
  std::ofstream(out + ".md") << md;
  std::string json = fmt::format(
      "{{\"date\": {}, \"host\": {}, \"cpu\": {}, \"command\": {}, \"side\": {}, \"tile\": {}, "
      "\"sweeps\": {}, \"series\": [",
      bench::json_string(date), bench::json_string(bench::host_name()),
      bench::json_string(bench::cpu_model()), bench::json_string(command), field.side, field.tile,
      sweeps);
  for (std::size_t i = 0; i < series.size(); ++i) {
    json += fmt::format("{}{{\"label\": {}, \"seconds\": {}}}", i ? ", " : "",
                        bench::json_string(series[i].label), bench::json_list(series[i].seconds));
  }
  std::ofstream(out + ".json") << json << "]}\n";
  std::fputs(md.c_str(), stdout);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_box_store: %s\n", e.what());
  return 1;
}
