#include <cuda_runtime.h>

// both builds compile this (hipify runs on it under ROCm): port work
__global__ void scale(float* x, float s) {
    unsigned mask = __ballot_sync(0xffffffff, x[threadIdx.x] > 0.f);
    if (threadIdx.x % 32 == 0) x[blockIdx.x] = s * __popc(mask);
}
