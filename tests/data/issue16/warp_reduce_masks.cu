#include <cuda_runtime.h>
#include <cstdio>

// Row sums where each warp reduces the rows its active lanes hold; the mask comes from a ballot, so it is a
// variable, not the literal full mask.
__device__ float warp_reduce(float v, unsigned member_mask) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(member_mask, v, offset);
    return v;
}

__global__ void row_sums(const float* in, float* out, int rows, int cols) {
    int row = blockIdx.x;
    int lane = threadIdx.x % 32;
    unsigned active = __ballot_sync(0xffffffff, lane < cols);
    float acc = 0.f;
    for (int c = lane; c < cols; c += 32) acc += in[row * cols + c];
    acc = warp_reduce(acc, active);
    __syncwarp(active);
    float first = __shfl_sync(active, acc, 0);
    if (lane == 0 && row < rows) out[row] = first;
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 64 * 128 * sizeof(float));
    cudaMalloc(&out, 64 * sizeof(float));
    row_sums<<<64, 32>>>(in, out, 64, 128);
    cudaDeviceSynchronize();
    printf("ok\n");
    return 0;
}
