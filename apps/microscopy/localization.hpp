#pragma once
// A localization: one detected fluorophore position (nm) with its localization uncertainty.

#include <vector>

namespace strata::apps::microscopy {

// One localization of a particle: position in nm and its uncertainty (standard deviation, nm).
struct Localization {
  float x = 0;
  float y = 0;
  float sigma = 0;
};

// A particle: every localization picked around one structure.
using Particle = std::vector<Localization>;

}  // namespace strata::apps::microscopy
