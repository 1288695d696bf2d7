#include "test_support.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include "strata/device/backends.hpp"

namespace strata::apps::microscopy::testing {

device::Device* opencl_test_device(std::string& why) {
  static std::string status;
  static std::vector<std::unique_ptr<device::Device>> devices =
      device::discover_opencl_devices(Config{}, std::make_shared<device::ProgramCache>(), status);
  why = "no OpenCL device: " + status;
  return devices.empty() ? nullptr : devices.front().get();
}

device::Device* cuda_test_device(std::string& why) {
  static std::string status;
  static std::vector<std::unique_ptr<device::Device>> devices =
      device::discover_cuda_devices(Config{}, std::make_shared<device::ProgramCache>(), status);
  why = "no CUDA device: " + status;
  return devices.empty() ? nullptr : devices.front().get();
}

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          fmt::format("strata-microscopy-test-{}-{}", ::getpid(), counter++);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code error;
  std::filesystem::remove_all(path_, error);
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Particle centred(const Particle& particle) {
  double cx = 0;
  double cy = 0;
  for (const Localization& l : particle) {
    cx += l.x;
    cy += l.y;
  }
  cx /= static_cast<double>(particle.size());
  cy /= static_cast<double>(particle.size());
  Particle out = particle;
  for (Localization& l : out) {
    l.x = static_cast<float>(l.x - cx);
    l.y = static_cast<float>(l.y - cy);
  }
  return out;
}

Particle moved(const Particle& particle, double degrees, double tx, double ty) {
  const double angle = degrees * std::numbers::pi / 180.0;
  Particle out = particle;
  for (Localization& l : out) {
    const double x = l.x;
    const double y = l.y;
    l.x = static_cast<float>(std::cos(angle) * x - std::sin(angle) * y + tx);
    l.y = static_cast<float>(std::sin(angle) * x + std::cos(angle) * y + ty);
  }
  return out;
}

double reference_l2(const Particle& left, const Particle& right, double radians, double tx,
                    double ty, double scale) {
  double sum = 0;
  for (const Localization& a : left) {
    const double x = std::cos(radians) * a.x - std::sin(radians) * a.y + tx;
    const double y = std::sin(radians) * a.x + std::cos(radians) * a.y + ty;
    for (const Localization& b : right) {
      const double d2 = (x - b.x) * (x - b.x) + (y - b.y) * (y - b.y);
      const double w = double{a.sigma} * a.sigma + double{b.sigma} * b.sigma + scale * scale;
      sum += std::exp(-d2 / (2 * w));
    }
  }
  return sum;
}

std::pair<double, double> reference_translation_step(const Particle& left, const Particle& right,
                                                     double radians, double tx, double ty,
                                                     double scale) {
  double weight = 0;
  double offset_x = 0;
  double offset_y = 0;
  for (const Localization& a : left) {
    const double x = std::cos(radians) * a.x - std::sin(radians) * a.y;
    const double y = std::sin(radians) * a.x + std::cos(radians) * a.y;
    for (const Localization& b : right) {
      const double d2 = (x + tx - b.x) * (x + tx - b.x) + (y + ty - b.y) * (y + ty - b.y);
      const double w = double{a.sigma} * a.sigma + double{b.sigma} * b.sigma + scale * scale;
      const double g = std::exp(-d2 / (2 * w)) / w;
      weight += g;
      offset_x += g * (b.x - x);
      offset_y += g * (b.y - y);
    }
  }
  return {offset_x / weight, offset_y / weight};
}

double reference_bhattacharyya(const Particle& left, const Particle& right, double radians,
                               double tx, double ty) {
  double sum = 0;
  for (const Localization& a : left) {
    const double x = std::cos(radians) * a.x - std::sin(radians) * a.y + tx;
    const double y = std::sin(radians) * a.x + std::cos(radians) * a.y + ty;
    for (const Localization& b : right) {
      const double d2 = (x - b.x) * (x - b.x) + (y - b.y) * (y - b.y);
      const double v = double{a.sigma} * a.sigma + double{b.sigma} * b.sigma;
      sum += 2 * double{a.sigma} * b.sigma / v * std::exp(-d2 / (4 * v));
    }
  }
  return sum;
}

}  // namespace strata::apps::microscopy::testing
