#include "microscopy/particle_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "strata/allpairs/application.hpp"

namespace strata::apps::microscopy {
namespace {

// Localization counts are stored as floats on the device: they must be exact.
constexpr std::size_t max_localizations = std::size_t{1} << 24;

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
  throw allpairs::InputError(fmt::format("{}: {}", file.string(), what));
}

float coordinate(const nlohmann::json& value, std::size_t index, const char* name,
                 const std::filesystem::path& file) {
  if (!value.is_number())
    fail(file,
         fmt::format("localization {}: {} is not a number ({})", index, name, value.type_name()));
  const double number = value.get<double>();
  if (!std::isfinite(number) || std::abs(number) > std::numeric_limits<float>::max())
    fail(file, fmt::format("localization {}: {} = {} is out of range", index, name, number));
  return static_cast<float>(number);
}

}  // namespace

Particle parse_particle(std::string_view text, const std::filesystem::path& file) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& error) {
    fail(file, fmt::format("malformed JSON: {}", error.what()));
  }
  if (!root.is_object())
    fail(file, fmt::format("expected an object with a \"localizations\" array, found {}",
                           root.type_name()));
  const auto found = root.find("localizations");
  if (found == root.end()) fail(file, "missing field \"localizations\"");
  if (!found->is_array())
    fail(file, fmt::format("\"localizations\" is {}, not an array", found->type_name()));
  if (found->empty()) fail(file, "the particle has no localizations");
  if (found->size() >= max_localizations)
    fail(file, fmt::format("{} localizations, more than the {} supported", found->size(),
                           max_localizations - 1));

  Particle particle;
  particle.reserve(found->size());
  for (std::size_t k = 0; k < found->size(); ++k) {
    const nlohmann::json& entry = (*found)[k];
    if (!entry.is_array() || entry.size() != 3)
      fail(file, fmt::format("localization {}: expected [x, y, sigma], found {}", k,
                             entry.dump().substr(0, 60)));
    Localization localization{coordinate(entry[0], k, "x", file),
                              coordinate(entry[1], k, "y", file),
                              coordinate(entry[2], k, "sigma", file)};
    if (!(localization.sigma > 0))
      fail(file, fmt::format("localization {}: sigma = {} is not positive", k, localization.sigma));
    particle.push_back(localization);
  }
  return particle;
}

std::string particle_to_json(const Particle& particle) {
  // One localization per line, so that a parse error's line number points at it.
  std::string text = "{\"localizations\": [\n";
  for (std::size_t k = 0; k < particle.size(); ++k) {
    const Localization& l = particle[k];
    text += fmt::format("  [{:.3f}, {:.3f}, {:.3f}]{}\n", l.x, l.y, l.sigma,
                        k + 1 < particle.size() ? "," : "");
  }
  text += "]}\n";
  return text;
}

}  // namespace strata::apps::microscopy
