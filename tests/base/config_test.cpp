// The configuration table: typed settings, validation with named errors, environment variables.

#include "strata/base/config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

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

}  // namespace
}  // namespace strata
