#pragma once
// The 20 standard amino acids: their letters, the residue codes of parsed proteomes and their
// background frequencies in real proteins.

#include <array>
#include <cstdint>
#include <string_view>

namespace strata::apps::phylogeny {

inline constexpr int amino_acid_count = 20;
// The standard amino acids in code order: code c is amino_acid_letters[c].
inline constexpr std::string_view amino_acid_letters = "ACDEFGHIKLMNPQRSTVWY";

// Codes of a parsed proteome (one byte per residue): 0..19 the standard amino acids,
// `other_residue` any other amino-acid letter (X unknown, B/Z/J ambiguous, U selenocysteine,
// O pyrrolysine), `protein_separator` between proteins. k-strings never span the latter two.
inline constexpr std::uint8_t other_residue = 20;
inline constexpr std::uint8_t protein_separator = 255;

// Amino-acid composition of UniProtKB/Swiss-Prot, in code order (published percentages, rounded:
// they sum to 0.999; whoever samples from them normalizes).
inline constexpr std::array<double, amino_acid_count> background_frequencies = {
    0.0825, 0.0137, 0.0545, 0.0675, 0.0386, 0.0707, 0.0227, 0.0596, 0.0584, 0.0966,
    0.0242, 0.0406, 0.0470, 0.0393, 0.0553, 0.0656, 0.0534, 0.0687, 0.0108, 0.0292};

// The code of an amino-acid letter (either case): 0..19 or other_residue; -1 for anything
// that is not an amino-acid letter.
constexpr int residue_code(char letter) {
  if (letter >= 'a' && letter <= 'z') letter = static_cast<char>(letter - 'a' + 'A');
  if (letter < 'A' || letter > 'Z') return -1;
  const auto position = amino_acid_letters.find(letter);
  return position == std::string_view::npos ? other_residue : static_cast<int>(position);
}

}  // namespace strata::apps::phylogeny
