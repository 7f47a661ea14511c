#include <hip/hip_runtime.h>

__global__ void fill(float* x, float v) { x[threadIdx.x] = v; }
