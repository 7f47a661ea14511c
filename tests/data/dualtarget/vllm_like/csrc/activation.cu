#include <torch/extension.h>
#include "cuda_compat.h"

__device__ __forceinline__ float fast_exp2(float x) {
#if defined(__gfx950__) || defined(__GFX12__)
    float y;
    asm volatile("v_exp_f32 %0, %1" : "=v"(y) : "v"(x));
    return y;
#elif defined(USE_ROCM)
    return exp2f(x);
#else
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#endif
}

__global__ void silu(float * out, const float * in, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] / (1.0f + fast_exp2(-in[i] * 1.4426950409f));
    }
}
