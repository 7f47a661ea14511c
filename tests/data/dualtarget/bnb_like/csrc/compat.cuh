#pragma once
// One name per concept; each vendor build maps it to its own API.
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#define BNB_HIP 1
#else
#define BNB_HIP 0
#endif

#if BNB_HIP
#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <hipcub/hipcub.hpp>
#define bnb_stream_t hipStream_t
#define bnb_malloc hipMalloc
#define bnb_free hipFree
#define bnb_blas_handle_t hipblasHandle_t
#define bnb_blas_create hipblasCreate
#define BNB_WARP_SIZE 64
namespace bnb_cub = hipcub;
#else
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cub/cub.cuh>
#define bnb_stream_t cudaStream_t
#define bnb_malloc cudaMalloc
#define bnb_free cudaFree
#define bnb_blas_handle_t cublasHandle_t
#define bnb_blas_create cublasCreate
#define BNB_WARP_SIZE 32
namespace bnb_cub = cub;
#endif
