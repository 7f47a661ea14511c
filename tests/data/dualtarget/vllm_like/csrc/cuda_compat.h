#pragma once

#ifdef USE_ROCM
  #include <hip/hip_runtime.h>
#endif

#ifndef USE_ROCM
  #define XV_LDG(arg) __ldg(arg)
#else
  #define XV_LDG(arg) *(arg)
#endif

#ifndef USE_ROCM
  #define XV_SHFL_XOR_SYNC(var, lane_mask) __shfl_xor_sync(uint32_t(-1), var, lane_mask)
  #define XV_SHFL_XOR_SYNC_WIDTH(var, lane_mask, width) __shfl_xor_sync(uint32_t(-1), var, lane_mask, width)
#else
  #define XV_SHFL_XOR_SYNC(var, lane_mask) __shfl_xor(var, lane_mask)
  #define XV_SHFL_XOR_SYNC_WIDTH(var, lane_mask, width) __shfl_xor(var, lane_mask, width)
#endif

#ifndef USE_ROCM
  #define XV_SHFL_SYNC(var, src_lane) __shfl_sync(uint32_t(-1), var, src_lane)
#else
  #define XV_SHFL_SYNC(var, src_lane) __shfl(var, src_lane)
#endif

#ifndef USE_ROCM
  #define XV_SET_MAX_DYNAMIC_SMEM(FUNC, VAL) cudaFuncSetAttribute(FUNC, cudaFuncAttributeMaxDynamicSharedMemorySize, VAL)
#else
  #define XV_SET_MAX_DYNAMIC_SMEM(FUNC, VAL) hipFuncSetAttribute(FUNC, hipFuncAttributeMaxDynamicSharedMemorySize, VAL)
#endif
