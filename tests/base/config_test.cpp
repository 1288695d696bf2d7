// The configuration table: typed settings, validation with named errors, environment variables.

#include "strata/base/config.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <string_view>

#include "strata/base/error.hpp"

namespace strata {
namespace {

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, SetsTypedValuesByName) {
  Config config;
  config.set("cpu_threads", "3");
  config.set("staging_max_bytes", "256MiB");
  config.set("trace", "/tmp/x.json");
  config.set("log_level", "debug");
  EXPECT_EQ(config.cpu_threads, 3u);
  EXPECT_EQ(config.staging_max_bytes, 256u << 20);
  EXPECT_EQ(config.trace, "/tmp/x.json");
  EXPECT_EQ(config.get("log_level"), "debug");
  EXPECT_EQ(config.get("staging_max_bytes"), "256.00 MiB");
}

TEST(Config, UnknownSettingIsAnErrorNamingIt) {
  Config config;
  const std::string message = error_of([&] { config.set("cpu_thread", "2", "--cpu-thread"); });
  EXPECT_NE(message.find("unknown setting 'cpu_thread'"), std::string::npos) << message;
  EXPECT_NE(message.find("--cpu-thread"), std::string::npos) << message;
  EXPECT_NE(message.find("cpu_threads"), std::string::npos) << "lists known settings: " << message;
}

TEST(Config, MalformedValueIsAnErrorNamingSettingAndValue) {
  Config config;
  std::string message = error_of([&] { config.set("io_threads", "many", "STRATA_IO_THREADS"); });
  EXPECT_NE(message.find("io_threads"), std::string::npos) << message;
  EXPECT_NE(message.find("'many'"), std::string::npos) << message;
  EXPECT_NE(message.find("STRATA_IO_THREADS"), std::string::npos) << message;
  EXPECT_NE(error_of([&] { config.set("io_threads", "0"); }), "");
  EXPECT_NE(error_of([&] { config.set("staging_max_bytes", "lots"); }), "");
  EXPECT_NE(error_of([&] { config.set("log_level", "loud"); }), "");
  EXPECT_EQ(config.io_threads, Config().io_threads)
      << "a rejected value leaves the setting as it was";
}

TEST(Config, ReadsStrataEnvironmentVariables) {
  ScopedEnv threads("STRATA_CPU_THREADS", "5");
  ScopedEnv budget("STRATA_STAGING_MAX_TASKS", "7");
  const Config config = Config::from_environment();
  EXPECT_EQ(config.cpu_threads, 5u);
  EXPECT_EQ(config.staging_max_tasks, 7u);
  EXPECT_EQ(config.effective_cpu_threads(), 5u);
}

TEST(Config, UnknownStrataEnvironmentVariableIsAnError) {
  ScopedEnv typo("STRATA_CPU_THREDS", "5");
  const std::string message = error_of([] { Config::from_environment(); });
  EXPECT_NE(message.find("STRATA_CPU_THREDS"), std::string::npos) << message;
}

TEST(Config, TableNamesEverySettingOnceWithEnvironmentAndFlag) {
  std::set<std::string> names;
  Config config;
  for (const SettingInfo& info : settings()) {
    EXPECT_TRUE(names.insert(std::string(info.name)).second) << info.name;
    EXPECT_FALSE(info.help.empty()) << info.name;
    EXPECT_EQ(info.environment_variable().rfind("STRATA_", 0), 0u);
    EXPECT_EQ(info.flag().rfind("--", 0), 0u);
    // Every setting round-trips through its text form.
    config.set(info.name, config.get(info.name));
  }
  EXPECT_TRUE(names.count("trace"));
  EXPECT_EQ(settings()[0].environment_variable(), "STRATA_CPU_THREADS");
  EXPECT_EQ(settings()[0].flag(), "--cpu-threads");
}

// Numbers of up to 128 bits, so test values can reach past 2^64 without wrapping themselves.
__extension__ using Wide = unsigned __int128;

std::string decimal(Wide value) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  } while (value != 0);
  return digits;
}

// A numeric setting as these tests see it: its accepted range and its field, read in 64 bits.
struct NumericSetting {
  std::string_view name;
  bool bytes;  // a byte size (with units) rather than a plain count
  std::uint64_t min;
  std::uint64_t max;
  std::uint64_t (*field)(const Config&);
};

constexpr std::uint64_t uint_max = std::numeric_limits<unsigned>::max();
constexpr std::uint64_t uint64_max = std::numeric_limits<std::uint64_t>::max();

const std::array<NumericSetting, 9> numeric_settings{{
    {"cpu_threads", false, 0, uint_max,
     [](const Config& c) -> std::uint64_t { return c.cpu_threads; }},
    {"io_threads", false, 1, uint_max,
     [](const Config& c) -> std::uint64_t { return c.io_threads; }},
    {"max_tasks_in_flight", false, 1, uint64_max,
     [](const Config& c) -> std::uint64_t { return c.max_tasks_in_flight; }},
    {"staging_max_bytes", true, 1, uint64_max,
     [](const Config& c) -> std::uint64_t { return c.staging_max_bytes; }},
    {"staging_max_tasks", false, 1, uint64_max,
     [](const Config& c) -> std::uint64_t { return c.staging_max_tasks; }},
    {"host_capacity", true, 1, uint64_max,
     [](const Config& c) -> std::uint64_t { return c.host_capacity; }},
    {"device_capacity", true, 0, uint64_max,
     [](const Config& c) -> std::uint64_t { return c.device_capacity; }},
    {"spill_capacity", true, 0, uint64_max,
     [](const Config& c) -> std::uint64_t { return c.spill_capacity; }},
    {"network_piece_bytes", true, 1, uint64_max,
     [](const Config& c) -> std::uint64_t { return c.network_piece_bytes; }},
}};

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Checks one value against the reference: accepted iff `expected` lies in the setting's range,
// then stored exactly (and read back by get() to the same value); otherwise a ConfigError that
// names the setting and the value, and the field keeps its old value.
// Returns whether the value was accepted.
bool expect_reference(const NumericSetting& setting, const std::string& text, bool well_formed,
                      Wide expected) {
  Config config;
  const std::uint64_t before = setting.field(config);
  const std::string message = error_of([&] { config.set(setting.name, text, "STRATA_TEST"); });
  if (well_formed && expected >= setting.min && expected <= setting.max) {
    EXPECT_EQ(message, "") << setting.name << " = '" << text << "'";
    EXPECT_EQ(setting.field(config), static_cast<std::uint64_t>(expected))
        << setting.name << " = '" << text << "'";
    if (!message.empty()) return false;
    Config again;
    again.set(setting.name, config.get(setting.name));
    EXPECT_EQ(setting.field(again), setting.field(config))
        << setting.name << " reads back '" << config.get(setting.name) << "'";
    return true;
  }
  EXPECT_NE(message, "") << setting.name << " accepted '" << text << "'";
  EXPECT_TRUE(contains(message, fmt::format("'{}'", setting.name))) << message;
  EXPECT_TRUE(contains(message, fmt::format("'{}'", text))) << message;
  EXPECT_TRUE(contains(message, "STRATA_TEST")) << message;
  if (well_formed) {
    EXPECT_TRUE(contains(message, fmt::format("from {} to {}", setting.min, setting.max)))
        << "names the accepted range: " << message;
  }
  EXPECT_EQ(setting.field(config), before) << "a rejected value leaves the setting as it was";
  return false;
}

// Issue 14: these two used to wrap around to 1 and 0 when narrowed to unsigned.
TEST(Config, ThreadCountsBeyondUnsignedAreRefusedNotWrapped) {
  {
    ScopedEnv threads("STRATA_CPU_THREADS", "4294967297");
    const std::string message = error_of([] { Config::from_environment(); });
    EXPECT_EQ(message,
              "setting 'cpu_threads' from STRATA_CPU_THREADS: '4294967297' is out of range: "
              "expected an integer from 0 to 4294967295");
  }
  {
    ScopedEnv threads("STRATA_IO_THREADS", "4294967296");
    const std::string message = error_of([] { Config::from_environment(); });
    EXPECT_EQ(message,
              "setting 'io_threads' from STRATA_IO_THREADS: '4294967296' is out of range: "
              "expected an integer from 1 to 4294967295");
  }
  Config config;
  EXPECT_TRUE(contains(error_of([&] { config.set("cpu_threads", "4294967297", "--cpu-threads"); }),
                       "--cpu-threads"));
  EXPECT_EQ(config.cpu_threads, Config().cpu_threads);
  EXPECT_NE(error_of([&] { config.set("io_threads", "4294967296", "--io-threads"); }), "");
  EXPECT_EQ(config.io_threads, Config().io_threads);
}

// The table's numeric settings are exactly those above, and each one's help states its range.
TEST(Config, NumericSettingsAreAllCheckedAndDocumentTheirRange) {
  std::set<std::string_view> numeric;
  for (const SettingInfo& info : settings()) {
    if (info.type == "count" || info.type == "bytes") numeric.insert(info.name);
  }
  std::set<std::string_view> tested;
  for (const NumericSetting& setting : numeric_settings) {
    tested.insert(setting.name);
    for (const SettingInfo& info : settings()) {
      if (info.name != setting.name) continue;
      EXPECT_EQ(info.type == "bytes", setting.bytes) << info.name;
      EXPECT_TRUE(contains(std::string(info.help), std::to_string(setting.max))) << info.help;
    }
  }
  EXPECT_EQ(numeric, tested);
}

TEST(Config, NumericSettingsAcceptTheirTypesMaximumAndRefuseOneMore) {
  for (const NumericSetting& setting : numeric_settings) {
    SCOPED_TRACE(setting.name);
    expect_reference(setting, decimal(setting.max), true, setting.max);
    expect_reference(setting, decimal(Wide{setting.max} + 1), true, Wide{setting.max} + 1);
    expect_reference(setting, decimal(setting.min), true, setting.min);
    expect_reference(setting, "0", true, 0);
    if (setting.min > 0) expect_reference(setting, decimal(setting.min - 1), true, setting.min - 1);
    expect_reference(setting, "-1", false, 0);
    expect_reference(setting, "99999999999999999999", true,
                     Wide{99999999999999999ull} * 1000 + 999);
  }
}

TEST(Config, HugeByteSizesAreRefusedNotWrapped) {
  const NumericSetting& bytes = numeric_settings[3];
  ASSERT_EQ(bytes.name, "staging_max_bytes");
  expect_reference(bytes, "18446744073709551615 GiB", true, Wide{uint64_max} << 30);
  expect_reference(bytes, "16777216TiB", true, Wide{1} << 64);
  expect_reference(bytes, "16777215 TiB", true, Wide{16777215} << 40);
  expect_reference(bytes, "18446744073709551615B", true, uint64_max);
  expect_reference(bytes, "9007199254740993", true, 9007199254740993ull);  // 2^53 + 1: exact
  expect_reference(bytes, "0.4B", true, 0);
  expect_reference(bytes, "1e400", false, 0);
}

// A value around one of the limits that matter for 8- to 64-bit fields, as text and as the
// exact number it means. Byte sizes get a random unit and sometimes a decimal fraction.
struct Candidate {
  std::string text;
  bool well_formed = true;
  Wide value = 0;
};

struct ByteUnit {
  std::string_view name;
  std::uint64_t factor;
};

constexpr std::array<ByteUnit, 14> byte_units{{
    {"", 1},
    {"B", 1},
    {"K", 1ull << 10},
    {"KiB", 1ull << 10},
    {"KB", 1'000},
    {"M", 1ull << 20},
    {"MiB", 1ull << 20},
    {"MB", 1'000'000},
    {"G", 1ull << 30},
    {"GiB", 1ull << 30},
    {"GB", 1'000'000'000},
    {"T", 1ull << 40},
    {"TiB", 1ull << 40},
    {"TB", 1'000'000'000'000},
}};

Candidate random_candidate(std::mt19937_64& random, bool bytes) {
  static constexpr std::array<int, 8> limit_bits{0, 1, 8, 16, 31, 32, 63, 64};
  const int bits = limit_bits[random() % limit_bits.size()];
  const Wide limit = bits == 0 ? 0 : Wide{1} << bits;
  const auto delta = static_cast<int>(random() % 9) - 4;
  const ByteUnit unit = bytes ? byte_units[random() % byte_units.size()] : ByteUnit{"", 1};
  // The whole number of units nearest the limit, moved by delta; below zero it is negative text.
  const Wide near = limit / unit.factor;
  const bool negative = delta < 0 && near < Wide(-delta);
  const Wide whole = negative     ? Wide(-delta) - near
                     : delta >= 0 ? near + Wide(delta)
                                  : near - Wide(-delta);
  Candidate candidate;
  candidate.text = (negative ? "-" : "") + decimal(whole);
  candidate.value = whole * unit.factor;
  if (!negative && random() % 8 == 0)
    candidate.text.insert(0, "000");  // leading zeros change nothing
  if (bytes && random() % 3 == 0) {
    // A decimal fraction of the unit, rounded half up to whole bytes.
    const int digits = 1 + static_cast<int>(random() % 6);
    Wide scale = 1;
    for (int i = 0; i < digits; ++i)
      scale *= 10;
    const Wide numerator = random() % static_cast<std::uint64_t>(scale);
    std::string fraction = decimal(numerator);
    fraction.insert(0, static_cast<std::size_t>(digits) - fraction.size(), '0');
    candidate.text += "." + fraction;
    candidate.value += (2 * numerator * unit.factor + scale) / (2 * scale);
  }
  if (bytes) candidate.text += (random() % 2 == 0 ? "" : " ") + std::string(unit.name);
  candidate.well_formed = !negative;
  return candidate;
}

// Every numeric setting, with values around every relevant type's limits, against the reference.
TEST(Config, RandomValuesAroundTypeLimitsMatchTheReference) {
  for (const NumericSetting& setting : numeric_settings) {
    SCOPED_TRACE(setting.name);
    int accepted = 0;
    int rejected = 0;
    for (const std::uint64_t seed : {14ull, 4294967297ull}) {
      std::mt19937_64 random(seed);
      for (int iteration = 0; iteration < 1000; ++iteration) {
        const Candidate candidate = random_candidate(random, setting.bytes);
        const bool ok =
            expect_reference(setting, candidate.text, candidate.well_formed, candidate.value);
        (ok ? accepted : rejected) += 1;
        if (::testing::Test::HasFailure()) return;  // one clear failure, not thousands
      }
    }
    // The values straddle the limits: both outcomes occur often.
    EXPECT_GT(accepted, 200);
    EXPECT_GT(rejected, 200);
  }
}

}  // namespace
}  // namespace strata
