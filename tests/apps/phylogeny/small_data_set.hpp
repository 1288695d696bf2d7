#pragma once
// Generator settings small enough for fast tests: 10 species of 30-50 proteins of 60-120
// residues (the tree is still recovered on these; see docs/apps/phylogeny.md).

#include "phylogeny/phylogeny_app.hpp"

namespace strata::apps::phylogeny::testing {

inline GenerateOptions small_data_set(std::uint64_t seed, std::size_t species = 10) {
  GenerateOptions options;
  options.items = species;
  options.seed = seed;
  options.proteome.proteins_min = 30;
  options.proteome.proteins_max = 50;
  options.proteome.length_min = 60;
  options.proteome.length_max = 120;
  return options;
}

}  // namespace strata::apps::phylogeny::testing
