// clang-format off
// (kept as printed in the paper; scripts/check-format.sh formats *.cu files)
// The lightning paper's Fig. 7: Fig. 6 with its three changes, and nothing else:
//   1. __global__ -> __device__;
//   2. the block index is a parameter (virtBlockIdx), used instead of blockIdx;
//   3. raw pointers -> strata::Vector (indexed exactly as before, with global indices).
__device__ void stencil(
    dim3 virtBlockIdx,
    int n,
    strata::Vector<float> output,
    const strata::Vector<const float> input
) {
    int i = blockDim.x * virtBlockIdx.x + threadIdx.x;
    if (i >= n) return;

    float left = i-1 >= 0 ? input[i-1] : 0;
    float mid = input[i];
    float right = i+1 < n ? input[i+1] : 0;
    float new_val = (left + mid + right) / 3.0;

    output[i] = new_val;
}
