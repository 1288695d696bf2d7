#pragma once
// OpenCL C helpers the benchmarks' kernels share: a float added atomically (OpenCL 1.2 has
// integer atomics only), prepended to a kernel's source.

namespace strata::lightning {

inline constexpr const char* opencl_atomic_add_float = R"(
inline void strata_atomic_add_float(volatile __global float* at, float value) {
  union { unsigned int bits; float number; } seen, next;
  do {
    seen.number = *at;
    next.number = seen.number + value;
  } while (atomic_cmpxchg((volatile __global unsigned int*)at, seen.bits, next.bits) != seen.bits);
}
)";

}  // namespace strata::lightning
