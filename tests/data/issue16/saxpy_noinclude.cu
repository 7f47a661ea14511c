// SAXPY with a device helper from a project header; like many real .cu files it never includes the CUDA
// runtime: nvcc adds it by itself.
#include <cstdio>
#include <vector>
#include "device_math.hpp"

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fma_clamped(a, x[i], y[i]);
}

int main() {
    const int n = 1 << 20;
    std::vector<float> hx(n, 1.0f), hy(n, 2.0f);
    float *dx, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, dx, dy);
    cudaMemcpy(hy.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("y[0] = %f\n", hy[0]);
    cudaFree(dx);
    cudaFree(dy);
    return 0;
}
