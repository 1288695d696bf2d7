#include "test_support.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <mutex>

#include "strata/device/backends.hpp"

namespace strata::apps::camera::testing {

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          fmt::format("strata-camera-test-{}-{}", ::getpid(), counter++);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code error;
  std::filesystem::remove_all(path_, error);
}

std::vector<std::byte> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<std::byte> bytes(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i)
    bytes[i] = static_cast<std::byte>(chars[i]);
  return bytes;
}

void write_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

void write_bytes(const std::filesystem::path& path, std::span<const unsigned char> bytes) {
  write_bytes(path, std::as_bytes(bytes));
}

device::Device* test_device(const std::string& backend, std::string* why) {
  static std::mutex lock;
  static std::map<std::string, std::unique_ptr<device::Device>> devices;
  static std::map<std::string, std::string> status;
  const std::lock_guard guard(lock);
  if (!devices.contains(backend)) {
    if (backend == "cpu") {
      devices[backend] = device::make_cpu_device(device::default_block_runner());
    } else if (backend == "opencl" || backend == "cuda") {
      auto found = backend == "opencl"
                       ? device::discover_opencl_devices(
                             Config{}, std::make_shared<device::ProgramCache>(), status[backend])
                       : device::discover_cuda_devices(
                             Config{}, std::make_shared<device::ProgramCache>(), status[backend]);
      devices[backend] = found.empty() ? nullptr : std::move(found.front());
    } else {
      devices[backend] = nullptr;
    }
  }
  if (why != nullptr) *why = "no " + backend + " device: " + status[backend];
  return devices[backend].get();
}

device::DeviceBuffer KernelHarness::upload(std::span<const float> values) {
  device::DeviceBuffer buffer = device_.allocate(values.size_bytes());
  device_.queue(device::QueueKind::host_to_device)
      .copy_to_device(buffer, 0, values.data(), values.size_bytes())
      .wait();
  return buffer;
}

device::DeviceBuffer KernelHarness::zeros(std::size_t count) {
  const std::vector<float> values(count, 0.0f);
  return upload(values);
}

std::vector<float> KernelHarness::download(const device::DeviceBuffer& buffer, std::size_t count) {
  device_.queue(device::QueueKind::compute).finish();
  std::vector<float> values(count);
  device_.queue(device::QueueKind::device_to_host)
      .copy_to_host(values.data(), buffer, 0, count * sizeof(float))
      .wait();
  return values;
}

}  // namespace strata::apps::camera::testing
