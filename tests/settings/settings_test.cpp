// Every layer's settings in the one table: each layer's section is declared once, every numeric
// setting is range-checked against the reference and documents its range, and the environment
// reaches the sections that code reads.

#include "strata/cluster/settings.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "../base/setting_reference.hpp"
#include "strata/allpairs/engine.hpp"
#include "strata/allpairs/settings.hpp"
#include "strata/array/settings.hpp"
#include "strata/base/config.hpp"
#include "strata/base/setting_table.hpp"
#include "strata/device/settings.hpp"
#include "strata/memory/settings.hpp"
#include "strata/runtime/settings.hpp"

namespace strata {
namespace {

using testing::error_of;
using testing::uint64_max;
using testing::uint_max;

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

template <class Section, auto Member>
std::uint64_t field(const Config& config) {
  return config.section<Section>().*Member;
}

using allpairs::AllPairsSettings;
using array::ArraySettings;
using cluster::ClusterSettings;
using memory::MemorySettings;
using runtime::RuntimeSettings;

const std::array<testing::NumericSetting, 15> numeric_settings{{
    {"cpu_threads", false, 0, uint_max, field<RuntimeSettings, &RuntimeSettings::cpu_threads>},
    {"io_threads", false, 1, uint_max, field<RuntimeSettings, &RuntimeSettings::io_threads>},
    {"max_tasks_in_flight", false, 1, uint64_max,
     field<RuntimeSettings, &RuntimeSettings::max_tasks_in_flight>},
    {"staging_max_bytes", true, 1, uint64_max,
     field<RuntimeSettings, &RuntimeSettings::staging_max_bytes>},
    {"staging_max_tasks", false, 1, uint64_max,
     field<RuntimeSettings, &RuntimeSettings::staging_max_tasks>},
    {"transfer_impact_percent", false, 1, 100,
     field<RuntimeSettings, &RuntimeSettings::transfer_impact_percent>},
    {"host_capacity", true, 1, uint64_max, field<MemorySettings, &MemorySettings::host_capacity>},
    {"device_capacity", true, 0, uint64_max,
     field<MemorySettings, &MemorySettings::device_capacity>},
    {"spill_capacity", true, 0, uint64_max, field<MemorySettings, &MemorySettings::spill_capacity>},
    {"network_piece_bytes", true, 1, uint64_max,
     field<ClusterSettings, &ClusterSettings::network_piece_bytes>},
    {"plan_window", false, 1, uint64_max, field<ClusterSettings, &ClusterSettings::plan_window>},
    {"allpairs_hops", false, 1, 1024, field<AllPairsSettings, &AllPairsSettings::hops>},
    {"allpairs_jobs_per_device", false, 1, 65536,
     field<AllPairsSettings, &AllPairsSettings::jobs_per_device>},
    {"allpairs_leaf", false, 1, 1000000, field<AllPairsSettings, &AllPairsSettings::leaf>},
    {"array_batch_bytes", true, 0, uint64_max,
     field<ArraySettings, &ArraySettings::array_batch_bytes>},
}};

TEST(Settings, EveryLayerDeclaresItsSectionInLayerOrder) {
  std::vector<std::string_view> sections;
  for (const SettingsSection& section : setting_sections())
    sections.push_back(section.name);
  EXPECT_EQ(sections, (std::vector<std::string_view>{"base", "device", "memory", "runtime",
                                                     "cluster", "allpairs", "array"}));
  std::set<std::string> names;
  Config config;
  for (const SettingInfo& info : settings()) {
    EXPECT_TRUE(names.insert(std::string(info.name)).second) << info.name;
    EXPECT_FALSE(info.help.empty()) << info.name;
    config.set(info.name, config.get(info.name));  // round-trips through its text form
  }
  EXPECT_TRUE(names.count("trace"));
  EXPECT_TRUE(names.count("backends"));
  EXPECT_TRUE(names.count("spill_dir"));
}

TEST(Settings, EnvironmentReachesTheSectionsCodeReads) {
  ScopedEnv threads("STRATA_CPU_THREADS", "5");
  ScopedEnv budget("STRATA_STAGING_MAX_TASKS", "7");
  ScopedEnv backends("STRATA_BACKENDS", "cpu");
  ScopedEnv spill("STRATA_SPILL_DIR", "/var/tmp");
  ScopedEnv piece("STRATA_NETWORK_PIECE_BYTES", "1MiB");
  const Config config = Config::from_environment(UnknownSettings::error);
  EXPECT_EQ(config.section<RuntimeSettings>().cpu_threads, 5u);
  EXPECT_EQ(config.section<RuntimeSettings>().effective_cpu_threads(), 5u);
  EXPECT_EQ(config.section<RuntimeSettings>().staging_max_tasks, 7u);
  EXPECT_EQ(config.section<device::DeviceSettings>().backends, "cpu");
  EXPECT_EQ(config.section<MemorySettings>().spill_dir, "/var/tmp");
  EXPECT_EQ(config.section<ClusterSettings>().network_piece_bytes, 1u << 20);
}

TEST(Settings, EnvironmentReachesTheAllPairsOptions) {
  ScopedEnv device("STRATA_ALLPAIRS_DEVICE_CACHE", "256MiB");
  ScopedEnv host("STRATA_ALLPAIRS_HOST_CACHE", "40 slots");
  ScopedEnv distributed("STRATA_ALLPAIRS_DISTRIBUTED_CACHE", "off");
  ScopedEnv hops("STRATA_ALLPAIRS_HOPS", "3");
  ScopedEnv jobs("STRATA_ALLPAIRS_JOBS_PER_DEVICE", "5");
  ScopedEnv leaf("STRATA_ALLPAIRS_LEAF", "7");
  const allpairs::EngineOptions options =
      allpairs::EngineOptions::from(Config::from_environment(UnknownSettings::error));
  EXPECT_EQ(options.config.section<AllPairsSettings>().host_cache, "40 slots");
  EXPECT_EQ(options.cache.device_bytes, 256u << 20);
  EXPECT_EQ(options.cache.device_slots, 0u);
  EXPECT_EQ(options.cache.host_bytes, 0u);
  EXPECT_EQ(options.cache.host_slots, 40u);
  EXPECT_FALSE(options.cache.distributed);
  EXPECT_EQ(options.cache.hops, 3u);
  EXPECT_EQ(options.jobs_per_device, 5u);
  EXPECT_EQ(options.leaf, 7u);
}

// Cache sizes are bytes or slots; a malformed one, 0 bytes or fewer than 2 slots is an error
// naming the setting, the value and where it came from.
TEST(Settings, AllPairsCacheSizesAreBytesOrSlots) {
  Config config;
  for (const char* size : {"", "1", "256MiB", "1.5 GiB", "2 slots", "40slots", "40   slots"}) {
    config.set("allpairs_device_cache", size);
    EXPECT_EQ(config.get("allpairs_device_cache"), size);
  }
  config.set("allpairs_host_cache", "40slots");
  EXPECT_EQ(allpairs::CacheOptions::from(config).host_slots, 40u);
  EXPECT_EQ(error_of([&] { config.set("allpairs_host_cache", "1 slot", "--host-cache"); }),
            "setting 'allpairs_host_cache' from --host-cache: '1 slot' is not at least 2 slots (a "
            "pair needs both its items in the cache)");
  EXPECT_EQ(error_of([&] { config.set("allpairs_device_cache", "0B", "STRATA_X"); }),
            "setting 'allpairs_device_cache' from STRATA_X: '0B' is not more than 0 bytes, or at "
            "least 2 slots");
  for (const char* bad :
       {"lots", "slots", "x slots", "-3 slots", "40 slotsx", "5 sluts", "1e400"}) {
    const std::string message =
        error_of([&] { config.set("allpairs_device_cache", bad, "STRATA_X"); });
    EXPECT_EQ(message, "setting 'allpairs_device_cache' from STRATA_X: '" + std::string(bad) +
                           "' is not bytes (256MiB) or slots (40 slots)");
  }
  EXPECT_EQ(config.get("allpairs_device_cache"), "40   slots") << "refused values change nothing";
  EXPECT_EQ(error_of([&] { config.set("allpairs_distributed_cache", "maybe"); }),
            "setting 'allpairs_distributed_cache' from code: 'maybe' is not on or off");
  // A value code wrote into the section bypasses set(); using it is still an error naming it.
  config.section<AllPairsSettings>().host_cache = "half";
  EXPECT_NE(error_of([&] { allpairs::CacheOptions::from(config); }).find("allpairs_host_cache"),
            std::string::npos);
}

TEST(Settings, ChoicesAndListsAreChecked) {
  Config config;
  EXPECT_NE(error_of([&] { config.set("backends", "cpu,vulkan", "--backends"); }), "");
  EXPECT_NE(error_of([&] { config.set("backends", ""); }), "");
  EXPECT_NE(error_of([&] { config.set("opencl_device_type", "fpga"); }), "");
  EXPECT_NE(error_of([&] { config.set("kernel_cache_dir", ""); }), "");
  config.set("backends", "cuda,cpu");
  EXPECT_EQ(config.section<device::DeviceSettings>().backends, "cuda,cpu");
}

// Issue 14: these two used to wrap around to 1 and 0 when narrowed to unsigned.
TEST(Settings, ThreadCountsBeyondUnsignedAreRefusedNotWrapped) {
  {
    ScopedEnv threads("STRATA_CPU_THREADS", "4294967297");
    EXPECT_EQ(error_of([] { Config::from_environment(); }),
              "setting 'cpu_threads' from STRATA_CPU_THREADS: '4294967297' is out of range: "
              "expected an integer from 0 to 4294967295");
  }
  {
    ScopedEnv threads("STRATA_IO_THREADS", "4294967296");
    EXPECT_EQ(error_of([] { Config::from_environment(); }),
              "setting 'io_threads' from STRATA_IO_THREADS: '4294967296' is out of range: "
              "expected an integer from 1 to 4294967295");
  }
}

// The table's numeric settings are exactly those above, and each one's help states its range.
TEST(Settings, NumericSettingsAreAllCheckedAndDocumentTheirRange) {
  std::set<std::string_view> numeric;
  for (const SettingInfo& info : settings()) {
    if (info.type == "count" || info.type == "bytes") numeric.insert(info.name);
  }
  std::set<std::string_view> tested;
  for (const auto& setting : numeric_settings) {
    tested.insert(setting.name);
    const SettingInfo* info = find_setting(setting.name);
    ASSERT_NE(info, nullptr) << setting.name;
    EXPECT_EQ(info->type == "bytes", setting.bytes) << info->name;
    EXPECT_TRUE(testing::contains(std::string(info->help), std::to_string(setting.max)))
        << info->help;
  }
  EXPECT_EQ(numeric, tested);
}

TEST(Settings, NumericSettingsAcceptTheirTypesMaximumAndRefuseOneMore) {
  for (const auto& setting : numeric_settings) {
    SCOPED_TRACE(setting.name);
    testing::expect_limits_match_reference(setting);
  }
}

TEST(Settings, RandomValuesAroundTypeLimitsMatchTheReference) {
  for (const auto& setting : numeric_settings) {
    SCOPED_TRACE(setting.name);
    testing::expect_random_values_match_reference(setting);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace strata
