#pragma once
// Strata's configuration: a value for every setting of the one table (setting_table.hpp), held as
// one typed section struct per layer (runtime::RuntimeSettings, memory::MemorySettings, ...).

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <typeindex>
#include <vector>

namespace strata {

// What apply_environment() does with a STRATA_* variable that names no declared setting.
enum class UnknownSettings {
  warn,   // log a warning naming it and ignore it (the default for programs)
  error,  // throw ConfigError naming it (the `strata` tool, which links every layer)
};

// Values of the settings. Code reads and writes a layer's section by type,
// `config.section<runtime::RuntimeSettings>().cpu_threads = 8`, or any setting by name with
// set()/get(); apply_environment() reads STRATA_* variables and the CLI maps --name flags onto
// set(). A section never touched holds its defaults. docs/configuration.md lists the settings.
class Config {
 public:
  Config() = default;
  Config(const Config& other);
  Config& operator=(const Config& other);
  Config(Config&&) noexcept = default;
  Config& operator=(Config&&) noexcept = default;
  ~Config() = default;

  // The section of type Section (a struct of fields with defaults, declared by its layer).
  template <class Section>
  Section& section();
  template <class Section>
  const Section& section() const;

  // Sets a setting from text; throws ConfigError naming the setting when unknown or malformed.
  // `source` says where the value came from ("STRATA_CPU_THREADS", "--cpu-threads", ...).
  void set(std::string_view name, std::string_view value, std::string_view source = "code");
  // The current value of a setting as text; throws ConfigError when unknown.
  std::string get(std::string_view name) const;
  // Applies every STRATA_* environment variable. One that names no setting of this program (a
  // misspelling, or a setting of a layer the program does not link) is handled as `unknown`
  // says; returns the variables ignored that way.
  std::vector<std::string> apply_environment(UnknownSettings unknown = UnknownSettings::warn);
  // Defaults overridden by the environment.
  static Config from_environment(UnknownSettings unknown = UnknownSettings::warn);

 private:
  struct Stored {
    Stored() = default;
    Stored(const Stored&) = default;
    Stored& operator=(const Stored&) = default;
    virtual ~Stored() = default;
    virtual std::unique_ptr<Stored> clone() const = 0;
  };
  template <class Section>
  struct StoredSection final : Stored {
    Section value{};
    std::unique_ptr<Stored> clone() const override {
      return std::make_unique<StoredSection>(*this);
    }
  };

  std::map<std::type_index, std::unique_ptr<Stored>> sections_;
};

template <class Section>
Section& Config::section() {
  auto& stored = sections_[std::type_index(typeid(Section))];
  if (!stored) stored = std::make_unique<StoredSection<Section>>();
  return static_cast<StoredSection<Section>&>(*stored).value;
}

template <class Section>
const Section& Config::section() const {
  const auto found = sections_.find(std::type_index(typeid(Section)));
  if (found == sections_.end()) {
    static const Section defaults{};
    return defaults;
  }
  return static_cast<const StoredSection<Section>&>(*found->second).value;
}

}  // namespace strata
