#pragma once
// Device helpers; relies on its includer for the runtime (only .cu files include it).

__device__ __forceinline__ float fma_clamped(float a, float x, float y) {
    float r = fmaf(a, x, y);
    return r > 1e30f ? 1e30f : r;
}
