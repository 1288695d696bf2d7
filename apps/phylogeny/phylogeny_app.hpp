#pragma once
// The phylogeny application's entry points for the `strata allpairs phylogeny` command and the
// tests: generate a data set with a known tree, open a data directory as an all-pairs
// application, and evaluate a results file against the true tree.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "common/outputs.hpp"
#include "phylogeny/distance_matrix.hpp"
#include "phylogeny/evolution.hpp"
#include "phylogeny/phylogeny_application.hpp"
#include "phylogeny/random_tree.hpp"
#include "strata/allpairs/application.hpp"

namespace strata::apps::phylogeny {

// What generate() makes: `items` species on a random tree, their proteomes evolved from one
// root proteome. The defaults give proteomes of 100-300 proteins of 100-400 residues.
struct GenerateOptions {
  std::size_t items = 24;
  std::uint64_t seed = 1;
  ProteomeShape proteome;
  BranchLengths branches;
  EvolutionModel evolution;
};

// Writes one gzipped FASTA proteome per species (species_NN.faa.gz) and the true tree
// (truth.nwk) into `dir` (created if missing; older species_*.faa.gz files there are removed).
// Deterministic: the same options give the same files.
void generate(const std::filesystem::path& dir, const GenerateOptions& options);

// The application over the proteomes in `dir` with k = 5.
std::unique_ptr<strata::allpairs::ApplicationBase> open(const std::filesystem::path& dir);
std::unique_ptr<strata::allpairs::ApplicationBase> open(const std::filesystem::path& dir,
                                                        const AnalysisOptions& options);

struct Evaluation {
  bool recovered = false;  // the neighbor-joining tree has the true tree's topology (RF = 0)
  std::string summary;
};

// Builds the neighbor-joining tree from the distances D in `results` (a results file of
// PairCorrelation records over the proteomes of `dir`) and compares it with dir/truth.nwk by the
// Robinson-Foulds distance. Species without a single result (items the run skipped as
// unreadable) are left out of both trees; between the others every pair must have a result.
// The summary also reports UPGMA on D and neighbor joining on -ln C.
Evaluation evaluate(const std::filesystem::path& dir, const std::filesystem::path& results);

// The same from a matrix of distances between species of `dir` (all of them, or those that
// have results).
Evaluation evaluate_distances(const std::filesystem::path& dir, const DistanceMatrix& distances);

// The distances D of a results file over the proteomes of `dir`, between the species that have
// results (skipped ones are left out); every pair of them must have one.
DistanceMatrix read_distances(const std::filesystem::path& dir,
                              const std::filesystem::path& results);

// The matrix in PHYLIP's square format: the count, then per species its name (spaces as '_')
// padded to 10 columns as strict PHYLIP reads it (longer names: the longest plus two spaces,
// relaxed PHYLIP) and its row of distances.
std::string to_phylip(const DistanceMatrix& distances);

// Draws the Newick tree in `newick` as a PNG by running `script` (strata_draw_tree.py) with
// Debian's python3 and matplotlib (no display needed). Empty when drawn; else why not (python3 or
// matplotlib missing, the script missing or failing).
std::string draw_tree(const std::filesystem::path& newick, const std::filesystem::path& png,
                      const std::filesystem::path& script);

// Writes the answer of a run beside its results file (results.bin -> results.*): the
// neighbor-joining tree (.tree.nwk), the distance matrix (.distances.phy) and the tree drawn by
// `draw_script` (.tree.png; skipped, said in the summary, when it cannot be drawn). Needs no
// truth.
Outputs write_outputs(const std::filesystem::path& dir, const std::filesystem::path& results,
                      const std::filesystem::path& draw_script);

}  // namespace strata::apps::phylogeny
