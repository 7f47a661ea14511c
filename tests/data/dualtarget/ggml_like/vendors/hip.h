#pragma once
// HIP vendor header: the CUDA names the backend uses, mapped to HIP (included only when GGML_USE_HIP).
#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <hip/hip_fp16.h>

#define CUBLAS_COMPUTE_16F HIPBLAS_R_16F
#define CUBLAS_OP_N HIPBLAS_OP_N
#define CUBLAS_OP_T HIPBLAS_OP_T
#define CUBLAS_STATUS_SUCCESS HIPBLAS_STATUS_SUCCESS
#define cublasHandle_t hipblasHandle_t
#define cublasCreate hipblasCreate
#define cublasGemmEx hipblasGemmEx
#define cudaError_t hipError_t
#define cudaGetLastError hipGetLastError
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaStream_t hipStream_t
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaSuccess hipSuccess
#define __shfl_sync(mask, var, laneMask, width) __shfl(var, laneMask, width)
#define __shfl_xor_sync(mask, var, laneMask, width) __shfl_xor(var, laneMask, width)

#define GGML_HIP_WARP_SIZE 64

// AMD architecture families (defined only when compiling for those targets)
#if defined(__gfx942__)
#define CDNA3
#endif
#if defined(__gfx90a__)
#define CDNA2
#endif
#if defined(CDNA3) || defined(CDNA2)
#define CDNA
#endif

// polyfills for the SIMD video intrinsics HIP lacks
static __device__ __forceinline__ int __vsubss4(const int a, const int b) {
    const int8_t * va = reinterpret_cast<const int8_t *>(&a);
    const int8_t * vb = reinterpret_cast<const int8_t *>(&b);
    int c = 0;
    int8_t * vc = reinterpret_cast<int8_t *>(&c);
    for (int i = 0; i < 4; ++i) {
        const int d = va[i] - vb[i];
        vc[i] = d > 127 ? 127 : (d < -128 ? -128 : d);
    }
    return c;
}

static __device__ __forceinline__ int __vsub4(const int a, const int b) {
    return __vsubss4(a, b);
}

static __device__ __forceinline__ unsigned int __vcmpeq4(unsigned int a, unsigned int b) {
    const uint8_t * va = reinterpret_cast<const uint8_t *>(&a);
    const uint8_t * vb = reinterpret_cast<const uint8_t *>(&b);
    unsigned int c = 0;
    uint8_t * vc = reinterpret_cast<uint8_t *>(&c);
    for (int i = 0; i < 4; ++i) {
        vc[i] = va[i] == vb[i] ? 0xff : 0x00;
    }
    return c;
}
