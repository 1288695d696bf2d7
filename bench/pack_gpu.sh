#!/usr/bin/env bash
# Packs a build for a GPU machine that lacks this machine's Debian libraries: the programs the
# `gpu` tests and bench/run_gpu.sh run (stripped), every shared library they load but the C
# library's and the CUDA toolkit's (the GPU machine has its own), the tests' CTest files, and
# clinfo, and the shared Pentax photos; and the pack compressed into .devpack/pack.txz (a GPU
# machine of the device tool takes at most 64 MiB: carry .devpack, unpack it into .device there,
# e.g. with python3's tarfile, and run bench/run_gpu.sh).
# Usage: bench/pack_gpu.sh [build dir, default build/release] [pack dir, default .device]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build/release}" && pwd)
pack=${2:-$root/.device}
programs=(cuda_gpu_test microscopy_gpu_test phylogeny_gpu_test camera_engine_test
  phylogeny_engine_test microscopy_engine_test lightning_black_scholes lightning_coclustering
  lightning_correlator lightning_gemm lightning_hotspot lightning_kmeans lightning_md5
  lightning_nbody lightning_spmv bench_array_launch bench_lightning_overhead
  bench_coclustering_overhead bench_opencl_overhead array_launch_test strata)

rm -rf "$pack"
mkdir -p "$pack/release/bin" "$pack/lib"
for program in "${programs[@]}"; do
  strip -o "$pack/release/bin/$program" "$build/bin/$program"
done
cp "$(command -v clinfo)" "$pack/release/bin/" 2>/dev/null || true

# The libraries: ldd's resolved paths, less the C runtime (the GPU machine's is newer) and the
# CUDA toolkit's (hundreds of MB; the GPU machine has the same major version).
ldd "$pack"/release/bin/* 2>/dev/null | awk '/=> \//{print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so|/usr/local/cuda|libcuda\.so' |
  while read -r library; do cp -L "$library" "$pack/lib/"; done
# PoCL's and Open MPI's plugins are not taken: the GPU machine's OpenCL is NVIDIA's, and the
# programs run there as single processes (no MPI launcher).

# Real photos for the camera check (two Pentax bodies), where the shared data set is beside.
if [[ -d $root/../shared/data/camera-pentax ]]; then
  mkdir -p "$pack/data" && cp -r "$root/../shared/data/camera-pentax" "$pack/data/"
fi

# The CTest files, with this build's and this source tree's paths recorded for run_gpu.sh.
(cd "$build" && find . \( -name CTestTestfile.cmake -o -name '*_include.cmake' -o \
  -name '*_tests.cmake' \) -not -path '*/CMakeFiles/*' -print0 |
  xargs -0 -I{} cp --parents {} "$pack/release/")
printf '%s\n%s\n' "$build" "$root" >"$pack/paths"
mkdir -p "$root/.devpack"
tar -C "$pack" -cf - . | xz -T0 -6 >"$root/.devpack/pack.txz"
du -sh "$pack" "$root/.devpack/pack.txz"
