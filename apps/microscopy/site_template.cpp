#include "microscopy/site_template.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <numbers>

#include "strata/base/error.hpp"

namespace strata::apps::microscopy {
namespace {

// A letter "C" with a short top arm and a long bottom arm on an 8 x 6 grid of DNA-origami-like
// docking sites 10 nm apart (top row first): no rotation maps it onto itself, and its outline
// stays recognisable when a third of the sites are unlabelled (letters with closed or
// near-symmetric outlines, such as "R", do not).
constexpr std::array<std::string_view, 6> letter_rows = {
    "####....",  //
    "#.......",  //
    "#.......",  //
    "#.......",  //
    "#.......",  //
    "########",
};
constexpr double letter_spacing = 10.0;

// An NPC-like ring: eight corners on a 50 nm radius, two sites per corner 12 degrees apart.
constexpr int ring_corners = 8;
constexpr double ring_radius = 50.0;
constexpr double ring_site_offset_degrees = 6.0;

std::vector<Site> letter_sites() {
  std::vector<Site> sites;
  for (std::size_t row = 0; row < letter_rows.size(); ++row)
    for (std::size_t column = 0; column < letter_rows[row].size(); ++column)
      if (letter_rows[row][column] == '#')
        sites.push_back({static_cast<double>(column) * letter_spacing,
                         static_cast<double>(letter_rows.size() - 1 - row) * letter_spacing});
  return sites;
}

std::vector<Site> ring_sites() {
  std::vector<Site> sites;
  for (int corner = 0; corner < ring_corners; ++corner) {
    for (const double offset : {-ring_site_offset_degrees, ring_site_offset_degrees}) {
      const double angle = (360.0 * corner / ring_corners + offset) * std::numbers::pi / 180.0;
      sites.push_back({ring_radius * std::cos(angle), ring_radius * std::sin(angle)});
    }
  }
  return sites;
}

}  // namespace

std::string_view to_string(Structure structure) {
  return structure == Structure::letter ? "letter" : "ring";
}

Structure structure_from_string(std::string_view name) {
  if (name == "letter") return Structure::letter;
  if (name == "ring") return Structure::ring;
  throw Error(fmt::format("unknown structure '{}' (choose ring or letter)", name));
}

SiteTemplate make_template(Structure structure) {
  SiteTemplate result;
  result.structure = structure;
  result.sites = structure == Structure::letter ? letter_sites() : ring_sites();
  result.symmetry = structure == Structure::letter ? 1 : ring_corners;
  double cx = 0;
  double cy = 0;
  for (const Site& site : result.sites) {
    cx += site.x;
    cy += site.y;
  }
  cx /= static_cast<double>(result.sites.size());
  cy /= static_cast<double>(result.sites.size());
  for (Site& site : result.sites) {
    site.x -= cx;
    site.y -= cy;
    result.radius = std::max(result.radius, std::hypot(site.x, site.y));
  }
  return result;
}

}  // namespace strata::apps::microscopy
