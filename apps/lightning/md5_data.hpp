#pragma once
// MD5's sequential reference: RFC 1321's MD5 of any message, written apart from the kernels'
// (it pads and splits the message itself), its test vectors, and the search the distributed run
// is checked against.

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace strata::lightning {

// The 16-byte digest of `message` (RFC 1321, any length).
std::array<std::uint8_t, 16> md5_reference(std::string_view message);

// The digest's bytes as the kernels' four words (each word's bytes little-endian), and back.
std::array<std::uint32_t, 4> md5_words(const std::array<std::uint8_t, 16>& digest);

// The digest of candidate `index`'s key (lightning::md5_key) by md5_reference.
std::array<std::uint32_t, 4> md5_reference_of_index(std::uint64_t index);

// The least index below n whose key's digest is `target`, by md5_reference one index after
// another (all n of them, as the kernels do); n when there is none.
std::uint64_t md5_reference_search(std::uint64_t n, const std::array<std::uint32_t, 4>& target);

// RFC 1321's test suite (appendix A.5): how many of its 7 messages md5_reference hashes to the
// digests printed there.
int md5_rfc_vectors_passed();

}  // namespace strata::lightning
