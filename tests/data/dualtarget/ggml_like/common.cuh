#pragma once
#include <cstdint>
#include <cstdio>

#if defined(GGML_USE_HIP)
#include "vendors/hip.h"
#else
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cublas_v2.h>
#endif // defined(GGML_USE_HIP)

#define WARP_SIZE 32 // threads per warp on NVIDIA; the HIP build uses wave64 through the shim

#define CUDA_CHECK(err) do { cudaError_t e_ = (err); if (e_ != cudaSuccess) { printf("cuda error\n"); } } while (0)

#if defined(GGML_USE_HIP) && defined(__HIP_PLATFORM_AMD__)
#define GGML_USE_AMD_DOT 1
#endif

static __device__ __forceinline__ int ggml_dot4(int a, int b, int c) {
#if defined(GGML_USE_HIP) && defined(__HIP_PLATFORM_AMD__)
    // AMD GCN: v_dot4 on CDNA
    int r;
    asm volatile("v_dot4_i32_i8 %0, %1, %2, %3" : "=v"(r) : "v"(a), "v"(b), "v"(c));
    return r;
#else
    return __dp4a(a, b, c);
#endif // defined(GGML_USE_HIP) && defined(__HIP_PLATFORM_AMD__)
}

// CDNA has a packed dot instruction; CUDA and other AMD targets share the portable path
static __device__ __forceinline__ int ggml_dot2(int a, int b) {
#if defined(CDNA)
    return __builtin_amdgcn_sdot2(a, b, 0, false);
#else
    return (a & 0xffff) * (b & 0xffff) + (a >> 16) * (b >> 16);
#endif // defined(CDNA)
}

static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, offset, 32);
    }
    return x;
}
