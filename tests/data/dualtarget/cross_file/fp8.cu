#include "common.cuh"

__global__ void to_fp8(const float * x, unsigned char * y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef FP8_AVAILABLE
    const __nv_fp8_e4m3 v(x[i]);
    y[i] = reinterpret_cast<const unsigned char &>(v);
#else
    y[i] = 0;
#endif // FP8_AVAILABLE
}
