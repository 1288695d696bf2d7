#pragma once
// Ground-truth evaluation of registration results: each pair's estimated relative rotation
// against the true one, and the global rotations recovered from all pairs.

#include <filesystem>
#include <span>

#include "microscopy/microscopy_app.hpp"
#include "microscopy/registration_result.hpp"
#include "strata/allpairs/results_file.hpp"

namespace strata::apps::microscopy {

// A pair counts as recovered within this many degrees (modulo the template's symmetry) ...
inline constexpr double recovered_tolerance_degrees = 10.0;
// ... and the truth as recovered when at least this fraction of all pairs of the particles that
// have results is (particles whose files were skipped are left out; missing pairs count as
// wrong).
inline constexpr double recovered_pair_fraction = 0.9;

// evaluate() on results already in memory (in any order; (j, i) counts as the pair (i, j)).
// A missing or malformed truth file is an allpairs::InputError naming it.
Evaluation evaluate_results(const std::filesystem::path& dir,
                            std::span<const allpairs::PairResult<RegistrationResult>> results);

}  // namespace strata::apps::microscopy
