#pragma once
#if defined(BUILD_HIP)
#include <hip/hip_runtime.h>
#else
#include <cuda_runtime.h>
#endif

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}
