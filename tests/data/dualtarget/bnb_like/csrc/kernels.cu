#include "compat.cuh"

#define ROWS 8 // rows per tile
#define COLS (ROWS * 4) /* columns per tile */
#define NUM_BLOCK 4096

// Quantize blocks of 4096 floats to int8 with one absmax per block.
template <int THREADS>
__global__ void kQuantizeBlockwise(const float * __restrict__ in, char * __restrict__ out, float * absmax, const int n) {
    __shared__ float tile[ROWS][COLS];
    __shared__ float smax[THREADS / BNB_WARP_SIZE];
    const int base = blockIdx.x * NUM_BLOCK;
    float local = 0.0f;
    for (int i = threadIdx.x; i < NUM_BLOCK && base + i < n; i += THREADS) {
        local = fmaxf(local, fabsf(in[base + i]));
    }
#if !BNB_HIP
    // NVIDIA fast path: a CUB warp reduction with the 32-lane full mask
    local = fmaxf(local, __shfl_xor_sync(0xffffffff, local, 16));
    local = fmaxf(local, __shfl_xor_sync(0xffffffff, local, 8));
    local = fmaxf(local, __shfl_xor_sync(0xffffffff, local, 4));
    local = fmaxf(local, __shfl_xor_sync(0xffffffff, local, 2));
    local = fmaxf(local, __shfl_xor_sync(0xffffffff, local, 1));
    if (threadIdx.x % 32 == 0) {
        smax[threadIdx.x / 32] = local;
    }
#else
    // AMD: the whole wavefront
    for (int offset = BNB_WARP_SIZE / 2; offset > 0; offset /= 2) {
        local = fmaxf(local, __shfl_xor(local, offset));
    }
    if (threadIdx.x % BNB_WARP_SIZE == 0) {
        smax[threadIdx.x / BNB_WARP_SIZE] = local;
    }
#endif
    __syncthreads();
    tile[threadIdx.x % ROWS][threadIdx.x % COLS] = local;
    if (threadIdx.x == 0) {
        float m = 0.0f;
        for (int w = 0; w < THREADS / BNB_WARP_SIZE; ++w) {
            m = fmaxf(m, smax[w]);
        }
        absmax[blockIdx.x] = m;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < NUM_BLOCK && base + i < n; i += THREADS) {
        out[base + i] = (char) (127.0f * in[base + i] / absmax[blockIdx.x]);
    }
}

// Shared code with a real port risk: only the first 32 threads do the tail, assuming 32-lane warps.
__global__ void kDequantize(const char * __restrict__ in, const float * __restrict__ absmax, float * out, const int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 32) {
        out[i] = in[i] * absmax[i / NUM_BLOCK] / 127.0f;
    }
}

// A CUDA-only kernel (spin-wait with back-off); the HIP build uses kDequantize instead.
#if !BNB_HIP
__global__ void kSpinFlag(volatile int * flag) {
    while (*flag == 0) {
        __nanosleep(100);
    }
}
#endif

void quantize(const float * in, char * out, float * absmax, int n, bnb_stream_t stream) {
    const int blocks = (n + NUM_BLOCK - 1) / NUM_BLOCK;
    kQuantizeBlockwise<256><<<blocks, 256, 0, stream>>>(in, out, absmax, n);
}
