#pragma once
// N-Body (the lightning paper's §4.2, after the CUDA samples' nbody) as one distributed kernel:
// an all-pairs gravitational step, one body per thread, over the bodies' positions and masses
// (replicated: every thread reads every body) and their velocities (in rows).

#include <vector>

#include "strata/array/array_kernel.hpp"

namespace strata::lightning {

// The step's constants: the square of the softening added to every squared distance (so a body's
// pull on itself is zero and close pairs stay finite), and the time step.
inline constexpr float nbody_softening_squared = 0.01f;
inline constexpr float nbody_time_step = 0.01f;

// For body i: its acceleration a = sum over all bodies j of m_j (p_j - p_i) / (|p_j - p_i|^2 +
// softening^2)^(3/2), summed in the order of j in f32; then v_i += a dt and the new position
// p_i + v_i dt (semi-implicit Euler) with the mass goes to `next`.
// Arguments: n, pos (n x 4 f32: x, y, z, mass), vel (n x 4 f32, the 4th unused), next (n x 4).
array::ArrayKernel nbody_kernel();

std::vector<array::ArrayKernel> nbody_kernels();

}  // namespace strata::lightning
