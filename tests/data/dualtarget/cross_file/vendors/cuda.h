#pragma once
#include <cuda_runtime.h>
#include <cuda_bf16.h>

#if CUDART_VERSION >= 11080
#include <cuda_fp8.h>
#define FP8_AVAILABLE
#endif // CUDART_VERSION >= 11080
