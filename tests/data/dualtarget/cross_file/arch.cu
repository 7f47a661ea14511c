#include "common.cuh"

__global__ void scale(float * x, float s, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
#if __CUDA_ARCH__ >= XB_CC_AMPERE
    x[i] = __fmul_rn(x[i], s);
#else
    x[i] = x[i] * s;
#endif // __CUDA_ARCH__ >= XB_CC_AMPERE
}
