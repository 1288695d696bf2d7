#pragma once
// Proteomes as gzipped FASTA files: writing them (zlib's gzopen / gzwrite; '>' headers, 60
// residues per line) and reading them back from a file's bytes into residue codes.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "phylogeny/evolution.hpp"

namespace strata::apps::phylogeny {

// Writes `proteome` of `species` to `path` as gzipped FASTA; failures throw strata::Error
// naming the file.
void write_fasta_gz(const std::filesystem::path& path, const std::string& species,
                    const Proteome& proteome);

// The decompressed contents of gzip data (one or more members). Data that is not gzip, corrupt
// or truncated throws allpairs::InputError naming `origin`.
std::string gunzip(std::span<const std::byte> data, const std::string& origin);

// The residues of FASTA text as codes (see amino_acids.hpp), each protein followed by
// protein_separator. Sequence lines may hold amino-acid letters of either case, blanks, and a
// final '*'. A sequence before the first header, any other character, or text without a single
// residue throws allpairs::InputError naming `origin` and the line.
std::vector<std::uint8_t> parse_fasta(std::string_view text, const std::string& origin);

}  // namespace strata::apps::phylogeny
