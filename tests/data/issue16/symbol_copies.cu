#include <cuda_runtime.h>
#include <cstdio>

// Filter taps in constant memory and a device-side counter, set and read through the symbol API.
#define TAPS 9
__constant__ float c_taps[TAPS];
__constant__ float c_gain;
__device__ unsigned int d_clipped;

__global__ void fir(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
    for (int t = 0; t < TAPS; ++t) {
        int j = i - t;
        acc += (j >= 0 ? x[j] : 0.f) * c_taps[t];
    }
    acc *= c_gain;
    if (acc > 1.f) { acc = 1.f; atomicAdd(&d_clipped, 1u); }
    y[i] = acc;
}

int main() {
    float taps[TAPS] = {0.05f, 0.1f, 0.15f, 0.2f, 0.0f, 0.2f, 0.15f, 0.1f, 0.05f};
    float gain = 1.5f;
    unsigned int zero = 0, clipped = 0;
    cudaMemcpyToSymbol(c_taps, taps, sizeof(taps));
    cudaMemcpyToSymbol(c_gain, &gain, sizeof(gain), 0, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbolAsync(d_clipped, &zero, sizeof(zero), 0, cudaMemcpyHostToDevice, 0);
    float *x, *y;
    cudaMalloc(&x, 1024 * sizeof(float));
    cudaMalloc(&y, 1024 * sizeof(float));
    fir<<<4, 256>>>(x, y, 1024);
    cudaMemcpyFromSymbol(&clipped, d_clipped, sizeof(clipped));
    void* taps_addr = nullptr;
    size_t taps_size = 0;
    cudaGetSymbolAddress(&taps_addr, c_taps);
    cudaGetSymbolSize(&taps_size, c_taps);
    printf("clipped %u of 1024 (%zu tap bytes at %p)\n", clipped, taps_size, taps_addr);
    return 0;
}
