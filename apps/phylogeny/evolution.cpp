#include "phylogeny/evolution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "phylogeny/amino_acids.hpp"

namespace strata::apps::phylogeny {
namespace {

// A protein while it evolves: letters and the substitution rate of each site.
struct EvolvingProtein {
  std::string name;
  std::string sequence;
  std::vector<double> rates;
};
using EvolvingProteome = std::vector<EvolvingProtein>;

// Deletions never shorten a protein below this.
constexpr std::size_t shortest_protein = 20;

class Evolver {
 public:
  Evolver(const EvolutionModel& model, Random& random)
      : model_(model), random_(random), background_(background_frequencies) {}

  char residue() { return amino_acid_letters[background_(random_)]; }

  double site_rate() {
    return model_.rate_shape > 0 ? random_.gamma(model_.rate_shape) / model_.rate_shape : 1.0;
  }

  EvolvingProteome root(const ProteomeShape& shape) {
    EvolvingProteome proteome(random_.between(shape.proteins_min, shape.proteins_max));
    for (std::size_t p = 0; p < proteome.size(); ++p) {
      EvolvingProtein& protein = proteome[p];
      protein.name = fmt::format("P{:05}", p + 1);
      const std::size_t length = random_.between(shape.length_min, shape.length_max);
      protein.sequence.assign(1, 'M');
      protein.rates.push_back(0.0);  // the start codon's methionine stays
      for (std::size_t i = 1; i < length; ++i) {
        protein.sequence += residue();
        protein.rates.push_back(site_rate());
      }
    }
    return proteome;
  }

  EvolvingProteome descend(const EvolvingProteome& parent, double length) {
    EvolvingProteome child;
    child.reserve(parent.size());
    const double keep = std::exp(-model_.gene_loss_rate * length);
    for (const EvolvingProtein& protein : parent) {
      if (random_.uniform() >= keep) continue;  // lost
      child.push_back(protein);
      substitute(child.back(), length);
      indels(child.back(), length);
    }
    return child;
  }

 private:
  void substitute(EvolvingProtein& protein, double length) {
    for (std::size_t i = 0; i < protein.sequence.size(); ++i) {
      const double changed = -std::expm1(-protein.rates[i] * length);
      if (random_.uniform() < changed) protein.sequence[i] = residue();
    }
  }

  void indels(EvolvingProtein& protein, double length) {
    const double mean = model_.indel_rate * length * static_cast<double>(protein.sequence.size());
    const std::uint64_t events = random_.poisson(mean);
    const double p = 1.0 / std::max(1.0, model_.mean_indel_length);
    for (std::uint64_t e = 0; e < events; ++e) {
      const std::size_t size = protein.sequence.size();
      const std::size_t count = random_.geometric(p);
      // Never at site 0: the methionine stays first.
      const std::size_t at = 1 + random_.below(size);
      if (random_.uniform() < 0.5) {
        std::string inserted;
        std::vector<double> rates;
        for (std::size_t i = 0; i < count; ++i) {
          inserted += residue();
          rates.push_back(site_rate());
        }
        protein.sequence.insert(at, inserted);
        protein.rates.insert(protein.rates.begin() + static_cast<std::ptrdiff_t>(at), rates.begin(),
                             rates.end());
      } else if (at < size && count < size && size - count >= shortest_protein) {
        const std::size_t erased = std::min(count, size - at);
        protein.sequence.erase(at, erased);
        const auto first = protein.rates.begin() + static_cast<std::ptrdiff_t>(at);
        protein.rates.erase(first, first + static_cast<std::ptrdiff_t>(erased));
      }
    }
  }

  const EvolutionModel& model_;
  Random& random_;
  DiscreteDistribution background_;
};

}  // namespace

std::vector<Proteome> evolve_proteomes(const Tree& tree, const ProteomeShape& shape,
                                       const EvolutionModel& model, Random& random) {
  if (shape.proteins_min < 1 || shape.proteins_max < shape.proteins_min ||
      shape.length_min < shortest_protein || shape.length_max < shape.length_min)
    throw std::invalid_argument(
        fmt::format("proteome shape needs 1 <= proteins_min <= proteins_max and {} <= "
                    "length_min <= length_max",
                    shortest_protein));
  Evolver evolver(model, random);
  std::vector<EvolvingProteome> at(tree.size());
  at[tree.root()] = evolver.root(shape);
  std::vector<Proteome> leaves;
  for (const NodeIndex index : tree.preorder()) {
    const TreeNode& node = tree.node(index);
    if (index != tree.root()) {
      at[index] = evolver.descend(at[node.parent], node.length);
      // A parent is done once its last child has descended.
      if (index == tree.node(node.parent).children.back()) at[node.parent].clear();
    }
  }
  for (const NodeIndex index : tree.leaves()) {
    Proteome proteome;
    for (auto& protein : at[index])
      proteome.push_back(Protein{std::move(protein.name), std::move(protein.sequence)});
    leaves.push_back(std::move(proteome));
  }
  return leaves;
}

}  // namespace strata::apps::phylogeny
