#pragma once
// The layout of a phylogeny data directory: one gzipped FASTA proteome per species
// (NAME.faa.gz, NAME.fasta.gz or NAME.fa.gz; the species is NAME), items in file-name order, and
// the generator's true tree in truth.nwk.

#include <filesystem>
#include <string>
#include <vector>

namespace strata::apps::phylogeny {

inline constexpr const char* truth_file_name = "truth.nwk";

// The proteome files of `dir`, sorted by name. A missing directory, or one without a single
// proteome, throws allpairs::InputError naming it.
std::vector<std::filesystem::path> proteome_files(const std::filesystem::path& dir);

// The species of a proteome file: its name without the extension.
std::string species_of(const std::filesystem::path& file);

// The whole contents of a file; failures throw allpairs::InputError naming it.
std::string read_text_file(const std::filesystem::path& file);

}  // namespace strata::apps::phylogeny
