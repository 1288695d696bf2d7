// generate(): photos from simulated cameras with planted sensor fingerprints, and the truth.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "camera/camera_app.hpp"
#include "camera/image_set.hpp"
#include "camera/jpeg_codec.hpp"
#include "camera/random_stream.hpp"
#include "camera/scene.hpp"
#include "camera/sensor.hpp"

namespace strata::apps::camera {
namespace {

// Stream ids of the generator's random streams (with the seed): one purpose each.
enum Stream : std::uint64_t {
  assignment = 1,
  fingerprint = 2,
  model_pattern = 3,
  photo = 4,
  model_grid = 5
};

void check(const GenerateOptions& options) {
  const auto refuse = [](const std::string& why) { throw Error("camera generator: " + why); };
  if (options.items < 2) refuse(fmt::format("items = {}: at least 2 photos", options.items));
  if (options.cameras < 1 || options.cameras > options.items)
    refuse(
        fmt::format("cameras = {}: between 1 and the {} photos", options.cameras, options.items));
  if (options.width < 8 || options.height < 8)
    refuse(fmt::format("{}x{} pixels: at least 8x8", options.width, options.height));
  if (std::uint64_t{options.width} * options.height > (std::uint64_t{1} << 30))
    refuse(fmt::format("{}x{} pixels: at most 2^30", options.width, options.height));
  if (options.quality < 1 || options.quality > 100)
    refuse(fmt::format("quality = {}: between 1 and 100", options.quality));
  if (!(options.prnu_sigma >= 0.0f && options.prnu_sigma < 0.5f))
    refuse(fmt::format("prnu_sigma = {}: between 0 and 0.5", options.prnu_sigma));
  if (!(options.grid_sigma >= 0.0f && options.grid_sigma <= 64.0f))
    refuse(fmt::format("grid_sigma = {}: between 0 and 64 grey levels", options.grid_sigma));
}

// Runs body(0 .. count-1) on `threads` threads; rethrows the first failure.
void parallel_for(std::size_t count, unsigned threads,
                  const std::function<void(std::size_t)>& body) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  const auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        body(i);
      } catch (...) {
        const std::lock_guard guard(failure_lock);
        if (!failure) failure = std::current_exception();
        next = count;
      }
    }
  };
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < std::min<std::size_t>(threads, count); ++t)
    pool.emplace_back(work);
  work();
  pool.clear();  // joins
  if (failure) std::rethrow_exception(failure);
}

// Which camera takes each photo: as even as possible, in a random order.
std::vector<std::size_t> assign_cameras(const GenerateOptions& options) {
  std::vector<std::size_t> camera_of(options.items);
  for (std::size_t i = 0; i < camera_of.size(); ++i)
    camera_of[i] = i % options.cameras;
  RandomStream random(options.seed, {assignment});
  for (std::size_t i = camera_of.size(); i > 1; --i)
    std::swap(camera_of[i - 1], camera_of[random.below(i)]);
  return camera_of;
}

std::string photo_name(std::size_t index, std::size_t items) {
  const std::size_t digits = std::max<std::size_t>(4, fmt::format("{}", items - 1).size());
  return fmt::format("photo_{:0{}}.jpg", index, digits);
}

// Greyscale from RGB with JPEG's luminance weights.
std::vector<std::uint8_t> to_grey(const std::vector<std::uint8_t>& rgb) {
  std::vector<std::uint8_t> grey(rgb.size() / 3);
  for (std::size_t p = 0; p < grey.size(); ++p) {
    const double y = 0.299 * rgb[3 * p] + 0.587 * rgb[3 * p + 1] + 0.114 * rgb[3 * p + 2];
    grey[p] = static_cast<std::uint8_t>(std::clamp(std::lround(y), 0l, 255l));
  }
  return grey;
}

void write_file(const std::filesystem::path& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.flush();
  if (!out) throw Error(path.string() + ": cannot write the generated photo");
}

void refuse_foreign_photos(const std::filesystem::path& dir, const std::set<std::string>& names) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) return;
  std::vector<std::filesystem::path> existing;
  try {
    existing = list_images(dir);
  } catch (const allpairs::InputError&) {
    return;  // no photos there
  }
  for (const auto& path : existing) {
    if (!names.contains(path.filename().string()))
      throw Error(
          fmt::format("camera generator: {} already holds other photos ({}); generate "
                      "into an empty directory",
                      dir.string(), path.filename().string()));
  }
}

}  // namespace

void generate(const std::filesystem::path& dir, const GenerateOptions& options) {
  check(options);
  const unsigned threads =
      options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> names(options.items);
  for (std::size_t i = 0; i < names.size(); ++i)
    names[i] = photo_name(i, options.items);
  refuse_foreign_photos(dir, std::set<std::string>(names.begin(), names.end()));
  std::filesystem::create_directories(dir);

  const SensorSettings settings{.prnu_sigma = options.prnu_sigma,
                                .grid_pattern_sigma = options.grid_sigma};
  RandomStream pattern_random(options.seed, {model_pattern});
  LinearPattern pattern = draw_linear_pattern(options.width, options.height,
                                              settings.linear_pattern_sigma, pattern_random);
  if (settings.grid_pattern_sigma > 0.0f) {
    RandomStream grid_random(options.seed, {model_grid});
    pattern.grid = draw_grid_pattern(settings.grid_pattern_sigma, grid_random);
  }
  std::vector<Sensor> sensors(options.cameras);
  parallel_for(sensors.size(), threads, [&](std::size_t c) {
    RandomStream random(options.seed, {fingerprint, c});
    sensors[c] = draw_sensor(options.width, options.height, settings.prnu_sigma, random);
  });

  const std::vector<std::size_t> camera_of = assign_cameras(options);
  parallel_for(options.items, threads, [&](std::size_t i) {
    RandomStream random(options.seed, {photo, i});
    const RgbImage scene = render_scene(options.width, options.height, random);
    const std::vector<std::uint8_t> rgb =
        expose(scene, sensors[camera_of[i]], pattern, settings, random);
    const std::vector<unsigned char> jpeg =
        options.color
            ? encode_jpeg(rgb, options.width, options.height, 3, options.quality)
            : encode_jpeg(to_grey(rgb), options.width, options.height, 1, options.quality);
    write_file(dir / names[i], jpeg);
  });

  std::vector<TruthEntry> truth(options.items);
  for (std::size_t i = 0; i < truth.size(); ++i)
    truth[i] = {names[i], fmt::format("camera_{:02}", camera_of[i])};
  write_truth(dir, truth);
}

}  // namespace strata::apps::camera
