#pragma once
// The known structures particles are sampled from: the binding sites of a 2-D template.

#include <string>
#include <string_view>
#include <vector>

namespace strata::apps::microscopy {

// Which template: an NPC-like ring of eight corners (rotations are known modulo 45 degrees), the
// structure Heydarian et al. simulate, or an asymmetric letter (every rotation distinguishable).
enum class Structure { ring, letter };

std::string_view to_string(Structure structure);
// "ring" or "letter"; anything else is an Error listing the choices.
Structure structure_from_string(std::string_view name);

// One binding site of a template, in nm.
struct Site {
  double x = 0;
  double y = 0;
};

// A template's binding sites, centred at their centroid, and its rotational symmetry.
struct SiteTemplate {
  Structure structure = Structure::ring;
  std::vector<Site> sites;
  // Order of rotational symmetry: the template is unchanged by a rotation of 360/symmetry deg.
  int symmetry = 1;
  // Distance of the farthest site from the centre (nm).
  double radius = 0;
};

SiteTemplate make_template(Structure structure);

}  // namespace strata::apps::microscopy
