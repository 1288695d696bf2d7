#pragma once
// Proteomes evolved down a tree: a random root proteome (residues drawn from the background
// amino-acid composition, each protein starting with methionine), then along every branch
// substitutions at each site with probability 1 - exp(-rate * length) (the F81 model: the new
// residue is drawn from the background), gamma-distributed rates across sites, short insertions
// and deletions, and loss of whole proteins.

#include <cstddef>
#include <string>
#include <vector>

#include "phylogeny/random.hpp"
#include "phylogeny/tree.hpp"

namespace strata::apps::phylogeny {

// One protein: a name shared by its orthologs in every species, and its amino-acid letters.
struct Protein {
  std::string name;
  std::string sequence;
};
using Proteome = std::vector<Protein>;

// Size of the root proteome: protein count and lengths drawn uniformly from these ranges.
struct ProteomeShape {
  std::size_t proteins_min = 100;
  std::size_t proteins_max = 300;
  std::size_t length_min = 100;
  std::size_t length_max = 400;
};

// How proteins change along a branch of length t (expected substitutions per site).
struct EvolutionModel {
  double rate_shape = 1.0;         // gamma shape of the rates across sites; 0: all sites rate 1
  double indel_rate = 0.02;        // insertion and deletion events per site per unit length
  double mean_indel_length = 2.0;  // residues (geometric)
  double gene_loss_rate = 0.2;     // chance per unit length that a protein is lost
};

// The proteomes at the leaves of `tree`, in the order of tree.leaves().
std::vector<Proteome> evolve_proteomes(const Tree& tree, const ProteomeShape& shape,
                                       const EvolutionModel& model, Random& random);

}  // namespace strata::apps::phylogeny
