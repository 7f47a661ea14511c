#pragma once
#include <hip/hip_runtime.h>

namespace quickreduce {
__device__ __forceinline__ int lane_sum(int v) {
    for (int mask = 32; mask > 0; mask >>= 1) {
        v += __shfl_xor(v, mask);
    }
    return v + __builtin_amdgcn_readfirstlane(v);
}
}  // namespace quickreduce
