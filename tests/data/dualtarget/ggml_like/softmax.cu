#include "common.cuh"

// 64 threads per block by construction (launch bounds and the launch below): tid / 32 picks one of two
// halves of the row, a data layout, not a warp index.
__global__ void __launch_bounds__(64) soft_max_f32(const float * __restrict__ x, float * __restrict__ dst, const int ncols) {
    const int tid = threadIdx.x;
    const int half = tid / 32;
    const int col = half * (ncols / 2) + tid % 32;
    float v = col < ncols ? x[blockIdx.x * ncols + col] : -INFINITY;
    v = warp_reduce_sum(v);
    dst[blockIdx.x * ncols + col] = v;
}

static int device_cc(int device) {
    int major = 0;
#if defined(GGML_USE_HIP)
    hipDeviceProp_t prop;
    hipGetDeviceProperties(&prop, device);
    major = prop.major;
    if (prop.major >= 9) {  // gfx9 family: MFMA
        major = 9;
    }
#else
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, device);
    if (prop.major >= 8) {
        major = prop.major;
    }
#endif
    return major;
}

void launch_soft_max(const float * x, float * dst, int ncols, int nrows, cudaStream_t stream) {
    if (device_cc(0) >= 8) {
        soft_max_f32<<<nrows, 64, 0, stream>>>(x, dst, ncols);
    }
}
