#pragma once
// The particle file format: {"localizations": [[x, y, sigma], ...]} (nm), one particle per file.

#include <filesystem>
#include <string>
#include <string_view>

#include "microscopy/localization.hpp"

namespace strata::apps::microscopy {

// Parses a particle file's text; malformed JSON, a missing field, a non-numeric or non-finite
// value, a non-positive sigma or an empty particle throw allpairs::InputError naming `file`
// (and the line, or the localization, that is wrong).
Particle parse_particle(std::string_view text, const std::filesystem::path& file);

// The file text of a particle (three decimals, one localization per line).
std::string particle_to_json(const Particle& particle);

}  // namespace strata::apps::microscopy
