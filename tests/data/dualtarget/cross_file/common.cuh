#pragma once
#include <cstdint>

#if defined(XB_USE_HIP)
#include "vendors/hip.h"
#else
#include "vendors/cuda.h"
#endif // defined(XB_USE_HIP)

#define XB_CC_TURING 750
#define XB_CC_AMPERE 800
#define XB_CC_OFFSET_AMD 0x1000000
#define XB_CC_CDNA3 (XB_CC_OFFSET_AMD + 0x942)

// derived under a vendor condition: the HIP build never defines these
#if !defined(XB_USE_HIP) && __CUDA_ARCH__ >= XB_CC_TURING
#define TURING_MMA_AVAILABLE
#endif // !defined(XB_USE_HIP) && __CUDA_ARCH__ >= XB_CC_TURING

#if !defined(XB_USE_HIP) && __CUDA_ARCH__ >= XB_CC_AMPERE
#define CP_ASYNC_AVAILABLE
#endif // !defined(XB_USE_HIP) && __CUDA_ARCH__ >= XB_CC_AMPERE
