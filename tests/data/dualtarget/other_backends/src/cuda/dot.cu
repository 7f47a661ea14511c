#include <cuda_runtime.h>

__global__ void dot_ptx(const float * x, float * y) {
    float v = x[threadIdx.x];
    asm volatile("mov.b32 %0, %0;" : "+f"(v));
    y[threadIdx.x] = v;
}
