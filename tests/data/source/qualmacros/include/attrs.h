// Qualifier macros defined in a header, as CCCL does (cub/util_macro.cuh, cuda/std/__cccl/visibility.h).
#pragma once
#if defined(__CUDACC__)
#  define MY_HOST_DEVICE __host__ __device__
#  define MY_DEVICE __device__
#  define BASE_KERNEL_ATTRIBUTES __global__
#else
#  define MY_HOST_DEVICE
#  define MY_DEVICE
#  define BASE_KERNEL_ATTRIBUTES
#endif
#define LIB_KERNEL_ATTRIBUTES BASE_KERNEL_ATTRIBUTES   /* two levels of indirection */
#define MY_INLINE_DEVICE MY_DEVICE __forceinline__
#define MY_BOUNDS(n) __launch_bounds__(n)
#define MY_KERNEL_WITH_BOUNDS(n) __global__ __launch_bounds__(n, 2)
#define NOT_A_QUALIFIER 42
