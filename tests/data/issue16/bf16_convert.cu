#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdio>

// Down-convert activations to bf16 and back, as a mixed-precision cast kernel would.
__global__ void to_bf16(const float* x, __nv_bfloat16* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2bfloat16(x[i] * 0.5f);
}

__global__ void from_bf16(const __nv_bfloat16* y, float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = __bfloat162float(y[i]) + 1.0f;
}

int main() {
    const int n = 4096;
    float* x;
    __nv_bfloat16* y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(__nv_bfloat16));
    to_bf16<<<(n + 255) / 256, 256>>>(x, y, n);
    from_bf16<<<(n + 255) / 256, 256>>>(y, x, n);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
