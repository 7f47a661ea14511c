// Small CUDA kernels for hipgauge's toolchain tests: a warp-shuffle softmax (32-bit masks), a tiled
// shared-memory SGEMM and an element-wise kernel. capture.sh compiles this file (and its HIP translation)
// with the real compilers; the outputs next to it are what the parsers are tested on.
#include <hip/hip_runtime.h>
#define FULL_MASK 0xffffffff
#define TILE 16

__global__ void softmax_warp(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const int row = blockIdx.x;
    float v = threadIdx.x < n ? x[row * n + threadIdx.x] : -1e30f;
    float m = v;
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor(m, o));
    float e = threadIdx.x < n ? __expf(v - m) : 0.f;
    float s = e;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor(s, o);
    if (threadIdx.x < n) y[row * n + threadIdx.x] = e / s;  /* "__shfl_xor_sync" in a comment stays */
}

__global__ void sgemm_tiled(const float* A, const float* B, float* C, int N)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int t = 0; t < N / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = A[r * N + t * TILE + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * N + c];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[r * N + c] = acc;
}

__global__ void scale_add(int n, float a, const float* __restrict__ x, float* __restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
    __builtin_amdgcn_wave_barrier();
}

void launch(const float* x, float* y, const float* A, const float* B, float* C, int n, hipStream_t s)
{
    const char* msg = "cudaMalloc failed";  // a string literal: never rewritten
    (void)msg;
    softmax_warp<<<n, 32, 0, s>>>(x, y, 32);
    sgemm_tiled<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE), 0, s>>>(A, B, C, n);
    scale_add<<<(n + 255) / 256, 256, 0, s>>>(n, 2.f, x, y);
    hipStreamSynchronize(s);
}
