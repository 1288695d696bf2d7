#include "lightning/nbody_data.hpp"

#include <cmath>
#include <random>

#include "lightning/nbody_kernels.hpp"

namespace strata::lightning {

Bodies random_bodies(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> cube(-1.0f, 1.0f);
  std::uniform_real_distribution<float> mass(0.5f, 1.5f);
  std::uniform_real_distribution<float> speed(-0.1f, 0.1f);
  Bodies bodies;
  bodies.pos.resize(n * 4);
  bodies.vel.resize(n * 4);
  for (std::uint64_t i = 0; i < n; ++i) {
    for (std::uint64_t d = 0; d < 3; ++d)
      bodies.pos[i * 4 + d] = cube(random);
    bodies.pos[i * 4 + 3] = mass(random) / static_cast<float>(n);
    for (std::uint64_t d = 0; d < 3; ++d)
      bodies.vel[i * 4 + d] = speed(random);
    bodies.vel[i * 4 + 3] = 0;
  }
  return bodies;
}

void nbody_reference(Bodies& bodies, int iterations) {
  const std::size_t n = bodies.pos.size() / 4;
  std::vector<float> next(bodies.pos.size());
  for (int it = 0; it < iterations; ++it) {
    const std::vector<float>& pos = bodies.pos;
    for (std::size_t i = 0; i < n; ++i) {
      const float xi = pos[i * 4], yi = pos[i * 4 + 1], zi = pos[i * 4 + 2];
      float ax = 0, ay = 0, az = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const float dx = pos[j * 4] - xi;
        const float dy = pos[j * 4 + 1] - yi;
        const float dz = pos[j * 4 + 2] - zi;
        const float d2 = dx * dx + dy * dy + dz * dz + nbody_softening_squared;
        const float inv = 1.0f / std::sqrt(d2);
        const float s = pos[j * 4 + 3] * (inv * inv * inv);
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
      }
      float* v = &bodies.vel[i * 4];
      v[0] = v[0] + ax * nbody_time_step;
      v[1] = v[1] + ay * nbody_time_step;
      v[2] = v[2] + az * nbody_time_step;
      next[i * 4] = xi + v[0] * nbody_time_step;
      next[i * 4 + 1] = yi + v[1] * nbody_time_step;
      next[i * 4 + 2] = zi + v[2] * nbody_time_step;
      next[i * 4 + 3] = pos[i * 4 + 3];
    }
    bodies.pos.swap(next);
  }
}

}  // namespace strata::lightning
