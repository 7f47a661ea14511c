#include <cuda_runtime.h>
#include <cstdio>

#define WAVE_SIZE 32

// One warp per block: lane 0 publishes the block's result after a shared-memory tree reduction that stops
// at the warp width.
__global__ void block_max(const float* in, float* out, int n) {
    __shared__ float s[32];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : -1e30f;
    for (int stride = 16; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] = fmaxf(s[tid], s[tid + stride]);
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

// Each warp handles one row; the lane index is the thread index modulo the warp width.
__global__ void row_scale(float* m, const float* scale, int rows, int cols) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / WAVE_SIZE;
    int lane = threadIdx.x % WAVE_SIZE;
    if (warp >= rows) return;
    for (int c = lane; c < cols; c += WAVE_SIZE) m[warp * cols + c] *= scale[warp];
}

int main() {
    const int n = 1 << 16, rows = 512, cols = 256;
    float *in, *out, *m, *scale;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, (n / 32) * sizeof(float));
    cudaMalloc(&m, rows * cols * sizeof(float));
    cudaMalloc(&scale, rows * sizeof(float));
    int thread_x = 32;
    dim3 block(thread_x);
    dim3 grid(n / thread_x);
    block_max<<<grid, block>>>(in, out, n);
    int warps_per_block = 4;
    row_scale<<<rows / warps_per_block, warps_per_block * WAVE_SIZE>>>(m, scale, rows, cols);
    block_max<<<n / 32, 32>>>(in, out, n);
    cudaDeviceSynchronize();
    printf("ok\n");
    return 0;
}
