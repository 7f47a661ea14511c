#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include "../cuda_compat.h"

// HIP-native kernel: the AMD port itself
typedef __hip_bfloat16 nv_bfloat16;

__global__ void paged_attention_mfma(float * out, const float * q, int n) {
    const int lane = threadIdx.x % 64;
    float acc = q[blockIdx.x * 64 + lane];
    for (int mask = 32; mask > 0; mask >>= 1) {
        acc += __shfl_xor(acc, mask, 64);
    }
    asm volatile("s_waitcnt vmcnt(0)" ::: "memory");
    if (lane == 0) {
        atomicAdd(&out[0], acc);
        __nanosleep(100);
    }
}
