// The configuration table's machinery: sections declared by a layer (here a test section),
// typed values set by name, validation with named errors, environment variables.

#include "strata/base/config.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "setting_reference.hpp"
#include "strata/base/setting_kinds.hpp"
#include "strata/base/setting_table.hpp"
#include "strata/base/settings.hpp"

namespace strata {
namespace {

using testing::error_of;

// A section as a layer declares one, with every kind of setting.
struct TestSettings {
  unsigned threads = 0;
  unsigned workers = 2;
  std::uint64_t tasks = 64;
  std::uint8_t small = 3;
  std::uint64_t budget = 1ull << 30;
  std::uint64_t room = 0;
  std::string path = "out.json";
  std::string mode = "fast";
  unsigned hops = 1;
  bool fast = true;
};

void check_not_empty(std::string_view name, std::string_view value, std::string_view source) {
  if (value.empty()) setting_malformed(name, value, source, "a file name");
}

[[maybe_unused]] const bool test_settings_declared = declare_settings(
    {"test",
     Layer::front_end,
     "settings of this test",
     {
         count_setting<&TestSettings::threads>("test_threads", 0, "Threads, 0 to 4294967295."),
         count_setting<&TestSettings::workers>("test_workers", 1, "Workers, 1 to 4294967295."),
         count_setting<&TestSettings::tasks>("test_tasks", 1, "Tasks, 1 to 18446744073709551615."),
         count_setting<&TestSettings::small>("test_small", 0, "A byte, 0 to 255."),
         bytes_setting<&TestSettings::budget>("test_budget", 1,
                                              "Bytes, 1 B to 18446744073709551615 B."),
         bytes_setting<&TestSettings::room>("test_room", 0,
                                            "Bytes, 0 B to 18446744073709551615 B."),
         text_setting<&TestSettings::path>("test_path", "path", "A file.", check_not_empty),
         choice_setting<&TestSettings::mode>("test_mode", "choice", {"fast", "slow"},
                                             "fast or slow."),
         count_setting<&TestSettings::hops>("test_hops", 1, 1024, "Hops, 1 to 1024."),
         switch_setting<&TestSettings::fast>("test_fast", "Fast, on or off."),
     }});

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

TEST(Config, SetsTypedValuesByName) {
  Config config;
  config.set("test_threads", "3");
  config.set("test_budget", "256MiB");
  config.set("test_path", "/tmp/x.json");
  config.set("log_level", "debug");
  const auto& test = config.section<TestSettings>();
  EXPECT_EQ(test.threads, 3u);
  EXPECT_EQ(test.budget, 256u << 20);
  EXPECT_EQ(test.path, "/tmp/x.json");
  EXPECT_EQ(config.section<BaseSettings>().log_level, "debug");
  EXPECT_EQ(config.get("log_level"), "debug");
  EXPECT_EQ(config.get("test_budget"), "256.00 MiB");
}

TEST(Config, SectionsReadFromCodeAndByNameAlike) {
  Config config;
  EXPECT_EQ(config.get("test_mode"), "fast") << "an untouched section holds its defaults";
  config.section<TestSettings>().mode = "slow";
  EXPECT_EQ(config.get("test_mode"), "slow");
  const Config copy = config;
  config.set("test_mode", "fast");
  EXPECT_EQ(copy.section<TestSettings>().mode, "slow") << "a copy owns its sections";
  const Config untouched;
  EXPECT_EQ(untouched.section<TestSettings>().workers, 2u);
}

TEST(Config, UnknownSettingIsAnErrorNamingIt) {
  Config config;
  const std::string message = error_of([&] { config.set("test_thread", "2", "--test-thread"); });
  EXPECT_NE(message.find("unknown setting 'test_thread'"), std::string::npos) << message;
  EXPECT_NE(message.find("--test-thread"), std::string::npos) << message;
  EXPECT_NE(message.find("test_threads"), std::string::npos) << "lists known settings: " << message;
}

TEST(Config, MalformedValueIsAnErrorNamingSettingAndValue) {
  Config config;
  std::string message =
      error_of([&] { config.set("test_workers", "many", "STRATA_TEST_WORKERS"); });
  EXPECT_NE(message.find("test_workers"), std::string::npos) << message;
  EXPECT_NE(message.find("'many'"), std::string::npos) << message;
  EXPECT_NE(message.find("STRATA_TEST_WORKERS"), std::string::npos) << message;
  EXPECT_NE(error_of([&] { config.set("test_workers", "0"); }), "");
  EXPECT_NE(error_of([&] { config.set("test_budget", "lots"); }), "");
  EXPECT_NE(error_of([&] { config.set("log_level", "loud"); }), "");
  EXPECT_NE(error_of([&] { config.set("test_mode", "medium"); }), "");
  EXPECT_NE(error_of([&] { config.set("test_path", ""); }), "");
  EXPECT_EQ(config.section<TestSettings>().workers, TestSettings().workers)
      << "a rejected value leaves the setting as it was";
  EXPECT_EQ(config.get("test_mode"), "fast");
}

TEST(Config, ReadsStrataEnvironmentVariables) {
  ScopedEnv threads("STRATA_TEST_THREADS", "5");
  ScopedEnv tasks("STRATA_TEST_TASKS", "7");
  const Config config = Config::from_environment();
  EXPECT_EQ(config.section<TestSettings>().threads, 5u);
  EXPECT_EQ(config.section<TestSettings>().tasks, 7u);
}

// A variable naming no setting of this program: an error when asked (the CLI, which has every
// layer), otherwise a warning and ignored, so a setting of a layer the program lacks does not
// stop it. A malformed value of a known setting is an error either way.
TEST(Config, UnknownStrataEnvironmentVariableIsNamed) {
  ScopedEnv typo("STRATA_TEST_THREDS", "5");
  const std::string message = error_of([] { Config::from_environment(UnknownSettings::error); });
  EXPECT_NE(message.find("STRATA_TEST_THREDS"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown setting 'test_threds'"), std::string::npos) << message;

  Config config;
  const auto ignored = config.apply_environment();
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_EQ(ignored.front(), "STRATA_TEST_THREDS");
  ScopedEnv bad("STRATA_TEST_WORKERS", "0");
  EXPECT_NE(error_of([] { Config::from_environment(); }), "");
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
  // base's own section comes first; base alone knows no setting of another layer.
  ASSERT_EQ(setting_sections().size(), 2u);
  EXPECT_EQ(settings()[0].name, "log_level");
  EXPECT_EQ(settings()[0].section, "base");
  EXPECT_EQ(settings()[1].environment_variable(), "STRATA_TEST_THREADS");
  EXPECT_EQ(settings()[1].flag(), "--test-threads");
  EXPECT_EQ(settings()[1].section, "test");
  EXPECT_TRUE(declare_settings({"test", Layer::front_end, "again", {}}))
      << "a second declaration of a section changes nothing";
  EXPECT_EQ(settings().size(), names.size());
}

const std::array<testing::NumericSetting, 7> numeric_settings{{
    {"test_threads", false, 0, testing::uint_max,
     [](const Config& c) -> std::uint64_t { return c.section<TestSettings>().threads; }},
    {"test_workers", false, 1, testing::uint_max,
     [](const Config& c) -> std::uint64_t { return c.section<TestSettings>().workers; }},
    {"test_tasks", false, 1, testing::uint64_max,
     [](const Config& c) -> std::uint64_t { return c.section<TestSettings>().tasks; }},
    {"test_small", false, 0, 255,
     [](const Config& c) -> std::uint64_t { return c.section<TestSettings>().small; }},
    {"test_budget", true, 1, testing::uint64_max,
     [](const Config& c) -> std::uint64_t { return c.section<TestSettings>().budget; }},
    {"test_room", true, 0, testing::uint64_max,
     [](const Config& c) -> std::uint64_t { return c.section<TestSettings>().room; }},
    {"test_hops", false, 1, 1024,
     [](const Config& c) -> std::uint64_t { return c.section<TestSettings>().hops; }},
}};

// A count's range may end below its type's maximum; one beyond the type is a bug of the
// declaration, not of a value.
TEST(Config, CountRangesEndWhereDeclared) {
  Config config;
  EXPECT_EQ(error_of([&] { config.set("test_hops", "1025", "--test-hops"); }),
            "setting 'test_hops' from --test-hops: '1025' is out of range: expected an integer "
            "from 1 to 1024");
  config.set("test_hops", "1024");
  EXPECT_EQ(config.section<TestSettings>().hops, 1024u);
  EXPECT_THROW(count_setting<&TestSettings::small>("test_bad", 0, 256, "A byte."),
               std::logic_error);
  EXPECT_THROW(count_setting<&TestSettings::small>("test_bad", 5, 4, "A byte."), std::logic_error);
}

TEST(Config, SwitchesAreOnOrOff) {
  Config config;
  EXPECT_EQ(config.get("test_fast"), "on");
  for (const char* off : {"off", "false", "no", "0"}) {
    config.section<TestSettings>().fast = true;
    config.set("test_fast", off);
    EXPECT_FALSE(config.section<TestSettings>().fast) << off;
    EXPECT_EQ(config.get("test_fast"), "off");
  }
  for (const char* on : {"on", "true", "yes", "1"}) {
    config.set("test_fast", on);
    EXPECT_TRUE(config.section<TestSettings>().fast) << on;
  }
  EXPECT_EQ(error_of([&] { config.set("test_fast", "maybe", "STRATA_TEST_FAST"); }),
            "setting 'test_fast' from STRATA_TEST_FAST: 'maybe' is not on or off");
  EXPECT_TRUE(config.section<TestSettings>().fast);
}

// Issue 14: counts beyond the field's type used to wrap around when narrowed.
TEST(Config, CountsBeyondTheirTypeAreRefusedNotWrapped) {
  ScopedEnv threads("STRATA_TEST_THREADS", "4294967297");
  EXPECT_EQ(error_of([] { Config::from_environment(); }),
            "setting 'test_threads' from STRATA_TEST_THREADS: '4294967297' is out of range: "
            "expected an integer from 0 to 4294967295");
  Config config;
  EXPECT_EQ(error_of([&] { config.set("test_small", "256", "--test-small"); }),
            "setting 'test_small' from --test-small: '256' is out of range: expected an integer "
            "from 0 to 255");
  EXPECT_EQ(config.section<TestSettings>().small, 3u);
}

TEST(Config, NumericSettingsAcceptTheirTypesMaximumAndRefuseOneMore) {
  for (const auto& setting : numeric_settings) {
    SCOPED_TRACE(setting.name);
    testing::expect_limits_match_reference(setting);
  }
}

TEST(Config, HugeByteSizesAreRefusedNotWrapped) {
  using testing::expect_reference;
  using testing::Wide;
  const auto& bytes = numeric_settings[4];
  ASSERT_EQ(bytes.name, "test_budget");
  constexpr std::uint64_t max = testing::uint64_max;
  expect_reference(bytes, "18446744073709551615 GiB", true, Wide{max} << 30);
  expect_reference(bytes, "16777216TiB", true, Wide{1} << 64);
  expect_reference(bytes, "16777215 TiB", true, Wide{16777215} << 40);
  expect_reference(bytes, "18446744073709551615B", true, max);
  expect_reference(bytes, "9007199254740993", true, 9007199254740993ull);  // 2^53 + 1: exact
  expect_reference(bytes, "0.4B", true, 0);
  expect_reference(bytes, "1e400", false, 0);
}

// Every kind of numeric setting, with values around every relevant type's limits.
TEST(Config, RandomValuesAroundTypeLimitsMatchTheReference) {
  for (const auto& setting : numeric_settings) {
    SCOPED_TRACE(setting.name);
    testing::expect_random_values_match_reference(setting);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace strata
