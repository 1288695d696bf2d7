#include "lightning/md5_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <string>

namespace strata::lightning {

using device::CpuBlock;
using device::KernelDefinition;
using device::KernelStyle;
using device::ParamAccess;

// The CUDA C++ sources (virtual-blocks style, docs/arrays.md), equivalent to the OpenCL C ones.
namespace {

constexpr const char* md5_search_cuda = R"(
__device__ void md5_search(dim3 virtBlockIdx, int n, unsigned int t0, unsigned int t1,
                           unsigned int t2, unsigned int t3, strata::Vector<int> found) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint4 digest = md5_of_key(md5_key((unsigned long long)i));
  if (digest.x == t0 && digest.y == t1 && digest.z == t2 && digest.w == t3)
    atomicMin(&found(0), i);
}
)";

constexpr const char* md5_digest_cuda = R"(
__device__ void md5_digest(dim3 virtBlockIdx, int n, strata::Matrix<unsigned int> digests) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint4 digest = md5_of_key(md5_key((unsigned long long)i));
  digests(i, 0) = digest.x;
  digests(i, 1) = digest.y;
  digests(i, 2) = digest.z;
  digests(i, 3) = digest.w;
}
)";

}  // namespace

namespace {

// RFC 1321's sines (T[1..64]) and per-round shifts.
constexpr std::array<std::uint32_t, 64> md5_sines{
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
constexpr std::array<std::uint32_t, 16> md5_shifts{7, 12, 17, 22, 5, 9,  14, 20,
                                                   4, 11, 16, 23, 6, 10, 15, 21};

constexpr std::uint32_t rotate_left(std::uint32_t x, std::uint32_t s) {
  return (x << s) | (x >> (32 - s));
}

// The kernels' OpenCL C: the key, and MD5 of one 8-byte message with the 64 steps unrolled.
constexpr const char* opencl_md5 = R"(
inline ulong md5_key(ulong index) { return index * 0x9E3779B97F4A7C15UL + 0x0123456789ABCDEFUL; }

#define MD5_F(x, y, z) (((x) & (y)) | (~(x) & (z)))
#define MD5_G(x, y, z) (((x) & (z)) | ((y) & ~(z)))
#define MD5_H(x, y, z) ((x) ^ (y) ^ (z))
#define MD5_I(x, y, z) ((y) ^ ((x) | ~(z)))
#define MD5_STEP(f, a, b, c, d, m, t, s) a = b + rotate(a + f(b, c, d) + (m) + (t), (uint)(s))

inline uint4 md5_of_key(ulong key) {
  const uint m0 = (uint)key, m1 = (uint)(key >> 32), m2 = 0x80u, m14 = 64u;
  const uint a0 = 0x67452301u, b0 = 0xefcdab89u, c0 = 0x98badcfeu, d0 = 0x10325476u;
  uint a = a0, b = b0, c = c0, d = d0;
  MD5_STEP(MD5_F, a, b, c, d, m0, 0xd76aa478u, 7);
  MD5_STEP(MD5_F, d, a, b, c, m1, 0xe8c7b756u, 12);
  MD5_STEP(MD5_F, c, d, a, b, m2, 0x242070dbu, 17);
  MD5_STEP(MD5_F, b, c, d, a, 0u, 0xc1bdceeeu, 22);
  MD5_STEP(MD5_F, a, b, c, d, 0u, 0xf57c0fafu, 7);
  MD5_STEP(MD5_F, d, a, b, c, 0u, 0x4787c62au, 12);
  MD5_STEP(MD5_F, c, d, a, b, 0u, 0xa8304613u, 17);
  MD5_STEP(MD5_F, b, c, d, a, 0u, 0xfd469501u, 22);
  MD5_STEP(MD5_F, a, b, c, d, 0u, 0x698098d8u, 7);
  MD5_STEP(MD5_F, d, a, b, c, 0u, 0x8b44f7afu, 12);
  MD5_STEP(MD5_F, c, d, a, b, 0u, 0xffff5bb1u, 17);
  MD5_STEP(MD5_F, b, c, d, a, 0u, 0x895cd7beu, 22);
  MD5_STEP(MD5_F, a, b, c, d, 0u, 0x6b901122u, 7);
  MD5_STEP(MD5_F, d, a, b, c, 0u, 0xfd987193u, 12);
  MD5_STEP(MD5_F, c, d, a, b, m14, 0xa679438eu, 17);
  MD5_STEP(MD5_F, b, c, d, a, 0u, 0x49b40821u, 22);

  MD5_STEP(MD5_G, a, b, c, d, m1, 0xf61e2562u, 5);
  MD5_STEP(MD5_G, d, a, b, c, 0u, 0xc040b340u, 9);
  MD5_STEP(MD5_G, c, d, a, b, 0u, 0x265e5a51u, 14);
  MD5_STEP(MD5_G, b, c, d, a, m0, 0xe9b6c7aau, 20);
  MD5_STEP(MD5_G, a, b, c, d, 0u, 0xd62f105du, 5);
  MD5_STEP(MD5_G, d, a, b, c, 0u, 0x02441453u, 9);
  MD5_STEP(MD5_G, c, d, a, b, 0u, 0xd8a1e681u, 14);
  MD5_STEP(MD5_G, b, c, d, a, 0u, 0xe7d3fbc8u, 20);
  MD5_STEP(MD5_G, a, b, c, d, 0u, 0x21e1cde6u, 5);
  MD5_STEP(MD5_G, d, a, b, c, m14, 0xc33707d6u, 9);
  MD5_STEP(MD5_G, c, d, a, b, 0u, 0xf4d50d87u, 14);
  MD5_STEP(MD5_G, b, c, d, a, 0u, 0x455a14edu, 20);
  MD5_STEP(MD5_G, a, b, c, d, 0u, 0xa9e3e905u, 5);
  MD5_STEP(MD5_G, d, a, b, c, m2, 0xfcefa3f8u, 9);
  MD5_STEP(MD5_G, c, d, a, b, 0u, 0x676f02d9u, 14);
  MD5_STEP(MD5_G, b, c, d, a, 0u, 0x8d2a4c8au, 20);

  MD5_STEP(MD5_H, a, b, c, d, 0u, 0xfffa3942u, 4);
  MD5_STEP(MD5_H, d, a, b, c, 0u, 0x8771f681u, 11);
  MD5_STEP(MD5_H, c, d, a, b, 0u, 0x6d9d6122u, 16);
  MD5_STEP(MD5_H, b, c, d, a, m14, 0xfde5380cu, 23);
  MD5_STEP(MD5_H, a, b, c, d, m1, 0xa4beea44u, 4);
  MD5_STEP(MD5_H, d, a, b, c, 0u, 0x4bdecfa9u, 11);
  MD5_STEP(MD5_H, c, d, a, b, 0u, 0xf6bb4b60u, 16);
  MD5_STEP(MD5_H, b, c, d, a, 0u, 0xbebfbc70u, 23);
  MD5_STEP(MD5_H, a, b, c, d, 0u, 0x289b7ec6u, 4);
  MD5_STEP(MD5_H, d, a, b, c, m0, 0xeaa127fau, 11);
  MD5_STEP(MD5_H, c, d, a, b, 0u, 0xd4ef3085u, 16);
  MD5_STEP(MD5_H, b, c, d, a, 0u, 0x04881d05u, 23);
  MD5_STEP(MD5_H, a, b, c, d, 0u, 0xd9d4d039u, 4);
  MD5_STEP(MD5_H, d, a, b, c, 0u, 0xe6db99e5u, 11);
  MD5_STEP(MD5_H, c, d, a, b, 0u, 0x1fa27cf8u, 16);
  MD5_STEP(MD5_H, b, c, d, a, m2, 0xc4ac5665u, 23);

  MD5_STEP(MD5_I, a, b, c, d, m0, 0xf4292244u, 6);
  MD5_STEP(MD5_I, d, a, b, c, 0u, 0x432aff97u, 10);
  MD5_STEP(MD5_I, c, d, a, b, m14, 0xab9423a7u, 15);
  MD5_STEP(MD5_I, b, c, d, a, 0u, 0xfc93a039u, 21);
  MD5_STEP(MD5_I, a, b, c, d, 0u, 0x655b59c3u, 6);
  MD5_STEP(MD5_I, d, a, b, c, 0u, 0x8f0ccc92u, 10);
  MD5_STEP(MD5_I, c, d, a, b, 0u, 0xffeff47du, 15);
  MD5_STEP(MD5_I, b, c, d, a, m1, 0x85845dd1u, 21);
  MD5_STEP(MD5_I, a, b, c, d, 0u, 0x6fa87e4fu, 6);
  MD5_STEP(MD5_I, d, a, b, c, 0u, 0xfe2ce6e0u, 10);
  MD5_STEP(MD5_I, c, d, a, b, 0u, 0xa3014314u, 15);
  MD5_STEP(MD5_I, b, c, d, a, 0u, 0x4e0811a1u, 21);
  MD5_STEP(MD5_I, a, b, c, d, 0u, 0xf7537e82u, 6);
  MD5_STEP(MD5_I, d, a, b, c, 0u, 0xbd3af235u, 10);
  MD5_STEP(MD5_I, c, d, a, b, m2, 0x2ad7d2bbu, 15);
  MD5_STEP(MD5_I, b, c, d, a, 0u, 0xeb86d391u, 21);
  return (uint4)(a0 + a, b0 + b, c0 + c, d0 + d);
}
)";

// The kernels' CUDA C++: the key, and MD5 of one 8-byte message in a loop over RFC 1321's steps
// as md5_of_key below, with the sines and shifts from the same tables.
std::string cuda_md5() {
  std::string sines, shifts;
  for (const std::uint32_t sine : md5_sines)
    sines += std::to_string(sine) + "u, ";
  for (const std::uint32_t shift : md5_shifts)
    shifts += std::to_string(shift) + "u, ";
  return R"(
__device__ unsigned long long md5_key(unsigned long long index) {
  return index * 0x9E3779B97F4A7C15ull + 0x0123456789ABCDEFull;
}

__device__ uint4 md5_of_key(unsigned long long key) {
  const unsigned int sines[64] = {)" +
         sines + R"(};
  const unsigned int shifts[16] = {)" +
         shifts + R"(};
  unsigned int m[16] = {0u};
  m[0] = (unsigned int)key;
  m[1] = (unsigned int)(key >> 32);
  m[2] = 0x80u;
  m[14] = 64u;
  const unsigned int a0 = 0x67452301u, b0 = 0xefcdab89u, c0 = 0x98badcfeu, d0 = 0x10325476u;
  unsigned int a = a0, b = b0, c = c0, d = d0;
#pragma unroll
  for (unsigned int step = 0; step < 64; ++step) {
    unsigned int f, g;
    if (step < 16) {
      f = (b & c) | (~b & d);
      g = step;
    } else if (step < 32) {
      f = (b & d) | (c & ~d);
      g = (5 * step + 1) % 16;
    } else if (step < 48) {
      f = b ^ c ^ d;
      g = (3 * step + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * step) % 16;
    }
    const unsigned int sum = a + f + m[g] + sines[step];
    const unsigned int rotated = __funnelshift_l(sum, sum, shifts[(step / 16) * 4 + step % 4]);
    a = d;
    d = c;
    c = b;
    b = b + rotated;
  }
  return make_uint4(a0 + a, b0 + b, c0 + c, d0 + d);
}
)";
}

}  // namespace

std::uint64_t md5_key(std::uint64_t index) {
  return index * 0x9E3779B97F4A7C15ULL + 0x0123456789ABCDEFULL;
}

std::array<std::uint32_t, 4> md5_of_key(std::uint64_t key) {
  std::array<std::uint32_t, 16> m{};
  m[0] = static_cast<std::uint32_t>(key);
  m[1] = static_cast<std::uint32_t>(key >> 32);
  m[2] = 0x80;
  m[14] = 64;
  constexpr std::array<std::uint32_t, 4> start{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  std::uint32_t a = start[0], b = start[1], c = start[2], d = start[3];
  for (std::uint32_t step = 0; step < 64; ++step) {
    std::uint32_t f = 0;
    std::uint32_t g = 0;
    if (step < 16) {
      f = (b & c) | (~b & d);
      g = step;
    } else if (step < 32) {
      f = (b & d) | (c & ~d);
      g = (5 * step + 1) % 16;
    } else if (step < 48) {
      f = b ^ c ^ d;
      g = (3 * step + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * step) % 16;
    }
    const std::uint32_t rotated =
        rotate_left(a + f + m[g] + md5_sines[step], md5_shifts[(step / 16) * 4 + step % 4]);
    a = d;
    d = c;
    c = b;
    b = b + rotated;
  }
  return {start[0] + a, start[1] + b, start[2] + c, start[3] + d};
}

array::ArrayKernel md5_search_kernel() {
  return array::ArrayKernel(
      KernelDefinition("md5_search")
          .scalar<std::int32_t>("n")
          .scalar<std::uint32_t>("t0")
          .scalar<std::uint32_t>("t1")
          .scalar<std::uint32_t>("t2")
          .scalar<std::uint32_t>("t3")
          .array<std::int32_t>("found", ParamAccess::read_write)
          .cpu([](const CpuBlock& block) {
            const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const std::array<std::uint32_t, 4> target{
                block.scalar<std::uint32_t>(1), block.scalar<std::uint32_t>(2),
                block.scalar<std::uint32_t>(3), block.scalar<std::uint32_t>(4)};
            const auto found = block.global_array<std::int32_t>(5);
            // The block's least match first, then one atomic minimum (C++20 has no fetch_min).
            std::int32_t least = std::numeric_limits<std::int32_t>::max();
            for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i)
              if (md5_of_key(md5_key(i)) == target) {
                least = static_cast<std::int32_t>(i);
                break;
              }
            if (least == std::numeric_limits<std::int32_t>::max()) return;
            std::atomic_ref<std::int32_t> at(found(0));
            std::int32_t seen = at.load();
            while (least < seen && !at.compare_exchange_weak(seen, least)) {
            }
          })
          .opencl(std::string(opencl_md5) + R"(
void md5_search(uint3 virtBlockIdx, int n, uint t0, uint t1, uint t2, uint t3,
                __global int* found) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
  const uint4 digest = md5_of_key(md5_key((ulong)i));
  if (digest.x == t0 && digest.y == t1 && digest.z == t2 && digest.w == t3)
    atomic_min(&found[0], i);
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(cuda_md5() + md5_search_cuda, KernelStyle::virtual_blocks),
      "global i => reduce(min) found[0]");
}

array::ArrayKernel md5_digest_kernel() {
  return array::ArrayKernel(
      KernelDefinition("md5_digest")
          .scalar<std::int32_t>("n")
          .array<std::uint32_t>("digests", ParamAccess::write, 2)
          .cpu([](const CpuBlock& block) {
            const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto digests = block.global_array<std::uint32_t>(1);
            for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i) {
              const std::array<std::uint32_t, 4> digest = md5_of_key(md5_key(i));
              for (std::uint64_t w = 0; w < 4; ++w)
                digests(i, w) = digest[w];
            }
          })
          .opencl(std::string(opencl_md5) + R"(
void md5_digest(uint3 virtBlockIdx, int n, __global uint* digests) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
  const uint4 digest = md5_of_key(md5_key((ulong)i));
  digests[i * STRATA_STRIDE_digests_0] = digest.x;
  digests[i * STRATA_STRIDE_digests_0 + STRATA_STRIDE_digests_1] = digest.y;
  digests[i * STRATA_STRIDE_digests_0 + 2 * STRATA_STRIDE_digests_1] = digest.z;
  digests[i * STRATA_STRIDE_digests_0 + 3 * STRATA_STRIDE_digests_1] = digest.w;
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(cuda_md5() + md5_digest_cuda, KernelStyle::virtual_blocks),
      "global i => write digests[i, :]");
}

std::vector<array::ArrayKernel> md5_kernels() {
  return {md5_search_kernel(), md5_digest_kernel()};
}

}  // namespace strata::lightning
