// realistic.cu — a hand-written CUDA translation unit used by hipgauge's tests.
//
// It mixes the things a real serving code base contains: kernels that port to HIP
// mechanically and kernels that carry NVIDIA-specific assumptions (32-lane warps,
// 32-bit ballot masks, tensor-core wmma, inline PTX, __launch_bounds__ tuned for one
// SM, cuBLAS). EXPECTED.md next to this file lists, by line, what a scan must find.
// Keep line numbers stable: when editing, update EXPECTED.md in the same commit.

#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <cublas_v2.h>

#define CUDA_CHECK(call)                                                   \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                    \
                    cudaGetErrorString(err_), __FILE__, __LINE__);         \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

// ---------------------------------------------------------------------------
// (a) Warp-shuffle softmax: one block per row, warp reductions with
//     __shfl_xor_sync and a full 32-bit mask; lane/warp derived from 32.
// ---------------------------------------------------------------------------
__global__ void warp_softmax_kernel(const float* __restrict__ in, float* __restrict__ out, int cols)
{
    __shared__ float red[32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int nwarps = (blockDim.x + 31) / 32;
    const float* row = in + (size_t)blockIdx.x * cols;
    float* orow = out + (size_t)blockIdx.x * cols;

    float m = -1e30f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, off));
    if (lane == 0) red[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = lane < nwarps ? red[lane] : -1e30f;
        for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, off));
        if (lane == 0) red[0] = m;
    }
    __syncthreads();
    const float rmax = red[0];
    __syncthreads();

    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(row[c] - rmax);
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffff, s, off);
    if (lane == 0) red[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < nwarps ? red[lane] : 0.f;
        for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffff, s, off);
        if (lane == 0) red[0] = s;
    }
    __syncthreads();
    const float inv = 1.f / red[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) orow[c] = __expf(row[c] - rmax) * inv;
}

// ---------------------------------------------------------------------------
// (b) Ballot-based score compaction: keep indices whose score passes a
//     threshold; the warp's survivors are packed with a 32-bit ballot mask.
// ---------------------------------------------------------------------------
__global__ void compact_scores_kernel(const float* __restrict__ scores, int n, float thresh,
                                      int* __restrict__ out_idx, int* __restrict__ out_count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % 32;
    const bool pred = (i < n) && (scores[i] > thresh);
    unsigned int m = __ballot_sync(0xffffffff, pred);
    int base = 0;
    if (lane == 0) base = atomicAdd(out_count, __popc(m));
    base = __shfl_sync(0xffffffff, base, 0);
    if (pred) out_idx[base + __popc(m & ((1u << lane) - 1))] = i;
}

// ---------------------------------------------------------------------------
// (c) Tensor-core GEMM with the wmma API: one warp per 16x16 output tile,
//     half inputs, float accumulation. M, N, K multiples of 16.
// ---------------------------------------------------------------------------
using namespace nvcuda;

__global__ void wmma_gemm_kernel(const half* __restrict__ a, const half* __restrict__ b,
                                 float* __restrict__ c, int M, int N, int K)
{
    const int tile_m = blockIdx.y;
    const int tile_n = blockIdx.x;
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> fa;
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, half, nvcuda::wmma::col_major> fb;
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + (size_t)tile_m * 16 * K + k, K);
        wmma::load_matrix_sync(fb, b + (size_t)tile_n * 16 * K + k, K);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(c + (size_t)tile_m * 16 * N + tile_n * 16, fc, N, wmma::mem_row_major);
}

// ---------------------------------------------------------------------------
// (d) Inline PTX: read the hardware lane id instead of computing it.
// ---------------------------------------------------------------------------
__device__ __forceinline__ unsigned int ptx_lane_id()
{
    unsigned int id;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
    return id;
}

__global__ void lane_id_kernel(unsigned int* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = ptx_lane_id();
}

// ---------------------------------------------------------------------------
// (e) Tiled shared-memory SGEMM, C = A * B, row-major, 16x16 tiles; the
//     launch bounds are tuned for an NVIDIA SM (256 threads, 2 blocks/SM).
// ---------------------------------------------------------------------------
__global__ void __launch_bounds__(256, 2)
tiled_sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                   int M, int N, int K)
{
    __shared__ float As[16][16], Bs[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty;
    const int col = blockIdx.x * 16 + tx;
    float acc = 0.f;
    for (int t = 0; t < (K + 15) / 16; ++t) {
        const int ka = t * 16 + tx, kb = t * 16 + ty;
        As[ty][tx] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.f;
        Bs[ty][tx] = (kb < K && col < N) ? B[(size_t)kb * N + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

// ---------------------------------------------------------------------------
// (g) Clean element-wise kernel: SAXPY with a grid-stride loop; no warp
//     size, mask or vendor assumption. Should port with no finding.
// ---------------------------------------------------------------------------
__global__ void saxpy_kernel(int n, float a, const float* __restrict__ x, float* __restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}

// ---------------------------------------------------------------------------
// (f) Host function calling cuBLAS: C = A * B (column-major) with a handle.
// ---------------------------------------------------------------------------
static void cublas_gemm(cudaStream_t stream, const float* dA, const float* dB, float* dC, int M, int N, int K)
{
    cublasHandle_t handle;
    cublasCreate(&handle);
    cublasSetStream(handle, stream);
    const float alpha = 1.0f, beta = 0.0f;
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, dA, M, dB, K, &beta, dC, M);
    cublasDestroy(handle);
}

// ---------------------------------------------------------------------------
// Host driver: allocates, launches every kernel, copies results back.
// ---------------------------------------------------------------------------
int main()
{
    const int rows = 64, cols = 1000, n = 1 << 20, M = 128, N = 128, K = 128;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    std::vector<float> h(n, 1.0f);
    float *d_in, *d_out, *d_x, *d_y, *d_A, *d_B, *d_C;
    half *d_ha, *d_hb;
    int *d_idx, *d_count;
    unsigned int* d_lane;
    CUDA_CHECK(cudaMalloc(&d_in, sizeof(float) * rows * cols));
    CUDA_CHECK(cudaMalloc(&d_out, sizeof(float) * rows * cols));
    CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_y, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_A, sizeof(float) * M * K));
    CUDA_CHECK(cudaMalloc(&d_B, sizeof(float) * K * N));
    CUDA_CHECK(cudaMalloc(&d_C, sizeof(float) * M * N));
    CUDA_CHECK(cudaMalloc(&d_ha, sizeof(half) * M * K));
    CUDA_CHECK(cudaMalloc(&d_hb, sizeof(half) * K * N));
    CUDA_CHECK(cudaMalloc(&d_idx, sizeof(int) * n));
    CUDA_CHECK(cudaMalloc(&d_count, sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_lane, sizeof(unsigned int) * n));
    cudaMemcpy(d_x, h.data(), sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, h.data(), sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(d_in, h.data(), sizeof(float) * rows * cols, cudaMemcpyHostToDevice);
    cudaMemset(d_count, 0, sizeof(int));

    dim3 grid((n + 255) / 256), block(256);
    warp_softmax_kernel<<<rows, 256>>>(d_in, d_out, cols);
    compact_scores_kernel<<<grid, block, 0>>>(d_out, rows * cols, 0.0005f, d_idx, d_count);
    wmma_gemm_kernel<<<dim3(N / 16, M / 16), 32>>>(d_ha, d_hb, d_C, M, N, K);
    lane_id_kernel<<<grid, block, 0>>>(d_lane, n);
    tiled_sgemm_kernel<<<dim3(N / 16, M / 16), dim3(16, 16), 0, stream>>>(d_A, d_B, d_C, M, N, K);
    saxpy_kernel<<<grid, block>>>(n, 2.0f, d_x, d_y);
    cublas_gemm(stream, d_A, d_B, d_C, M, N, K);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaDeviceSynchronize());

    cudaMemcpy(h.data(), d_y, sizeof(float) * n, cudaMemcpyDeviceToHost);
    printf("y[0] = %f\n", h[0]);

    cudaFree(d_in); cudaFree(d_out); cudaFree(d_x); cudaFree(d_y);
    cudaFree(d_A); cudaFree(d_B); cudaFree(d_C); cudaFree(d_ha); cudaFree(d_hb);
    cudaFree(d_idx); cudaFree(d_count); cudaFree(d_lane);
    cudaStreamDestroy(stream);
    return 0;
}
