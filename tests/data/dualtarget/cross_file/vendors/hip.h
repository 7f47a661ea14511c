#pragma once
// HIP vendor header: the CUDA names the backend uses, mapped to HIP (included only when XB_USE_HIP)
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>

#define cudaStream_t hipStream_t
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaGetLastError hipGetLastError
#define cublasSetMathMode(handle, mode) CUBLAS_STATUS_SUCCESS

// the HIP build claims a recent NVIDIA architecture so that the shared code takes its newest generic paths
#define __CUDA_ARCH__ 1300

typedef __hip_bfloat16 nv_bfloat16;
typedef __hip_bfloat162 nv_bfloat162;

#if HIP_VERSION >= 60200000
typedef __hip_fp8_e4m3 __nv_fp8_e4m3;
#define FP8_AVAILABLE
#endif // HIP_VERSION >= 60200000
