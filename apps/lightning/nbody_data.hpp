#pragma once
// N-Body's bodies drawn at random, and the sequential reference the distributed run is checked
// against.

#include <cstdint>
#include <vector>

namespace strata::lightning {

// `n` bodies (row-major n x 4 f32 each): positions uniform in the cube [-1, 1]^3 and masses
// uniform in [0.5, 1.5] / n (the total mass is about 1); velocities small and random, in
// [-0.1, 0.1]^3 (the 4th component 0).
struct Bodies {
  std::vector<float> pos;  // x, y, z, mass
  std::vector<float> vel;  // vx, vy, vz, 0
};
Bodies random_bodies(std::uint64_t n, std::uint64_t seed);

// `iterations` steps of the same f32 arithmetic as the kernels, in the same order (bodies one
// after another, each summing over all bodies in order); updates `bodies` in place.
void nbody_reference(Bodies& bodies, int iterations);

}  // namespace strata::lightning
