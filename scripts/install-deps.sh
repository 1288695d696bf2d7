#!/usr/bin/env bash
# Installs, with apt-get only, everything Strata's build, tests and benchmarks need.
# Idempotent: packages already present are left alone; nothing else is downloaded.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build ccache pkg-config clang-format clang-tidy git
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev libstarpu-dev
  # base libraries
  libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev libxxhash-dev libtbb-dev libcereal-dev
  # FFTs: FFTW3 for the CPU backend and the microscopy app's Fourier ring correlation (clFFT for
  # OpenCL is below, cuFFT comes with CUDA)
  libfftw3-dev
  # the all-pairs applications: JPEG images (libjpeg-turbo), gzipped FASTA (zlib), the PNG images
  # they write (libpng), the drawing of a phylogenetic tree and the benchmarks' plots (python3-matplotlib)
  libjpeg62-turbo-dev zlib1g-dev libpng-dev python3 python3-matplotlib
  # the co-clustering test's reference implementation
  python3-numpy
  # optional components detected at configure time
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo libclfft-dev
  libopenmpi-dev openmpi-bin libhdf5-dev libhwloc-dev
  # lightning_gemm's comparison with cblas_sgemm
  libopenblas-dev
  # the group-by benchmark's comparison with Abseil's flat_hash_map
  libabsl-dev
  # data sets: real data nobody here made (Fashion-MNIST's IDX files, a word list) and the
  # references the tests compare with (scikit-learn's KMeans, networkx's pagerank)
  dataset-fashion-mnist wamerican-huge python3-sklearn python3-networkx
)

# `--bench`: also the peers the benchmarks compare with (not needed to build or test).
if [[ ${1:-} == --bench ]]; then
  # bench/run_dataset_spliter.sh (Dask) and bench/run_dataset_tables.sh (pandas)
  packages+=(python3-dask python3-distributed python3-pandas)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
