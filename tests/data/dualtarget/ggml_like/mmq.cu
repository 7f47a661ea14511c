#include "common.cuh"

#define MMQ_TILE 64 // tile rows per block
#define MMQ_NWARPS 4 /* warps per block */

// A kernel with one body per vendor: AMD asm under the HIP guard, mma.sync / cp.async fast path for NVIDIA.
template <int ncols>
__global__ void __launch_bounds__(128) mul_mat_q(const int * __restrict__ x, const int * __restrict__ y,
                                                 float * __restrict__ dst, const int nrows) {
    __shared__ int tile_x[MMQ_TILE * MMQ_NWARPS];
    const int row = blockIdx.x * MMQ_TILE + threadIdx.x % MMQ_TILE;
    int sum = 0;
#if defined(GGML_USE_HIP) && defined(__HIP_PLATFORM_AMD__)
    // AMD: the MFMA path
    float4 acc = {0.f, 0.f, 0.f, 0.f};
    asm volatile("v_mfma_f32_4x4x4f16 %0, %1, %2, %0" : "+v"(acc) : "v"(x[row]), "v"(y[row]));
    sum = (int) acc.x;
    if (__lane_id() == 0) {
        tile_x[threadIdx.x] = sum;
    }
#else
#if __CUDA_ARCH__ >= 800
    // NVIDIA Ampere+: async copy and tensor-core MMA
    unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(&tile_x[threadIdx.x]));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(smem), "l"(x + row));
    asm volatile("cp.async.wait_all;");
    int d0 = 0;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0}, {%1}, {%2}, {%0};"
                 : "+r"(d0) : "r"(tile_x[threadIdx.x]), "r"(y[row]));
    sum = d0;
#else
    sum = ggml_dot4(x[row], y[row], sum);
#endif // __CUDA_ARCH__ >= 800
    const unsigned lane_mask = 1u << (threadIdx.x % 32);
    if (lane_mask & 1u) {
        tile_x[threadIdx.x] = sum;
    }
#endif // defined(GGML_USE_HIP) && defined(__HIP_PLATFORM_AMD__)
    __syncthreads();
    if (row < nrows) {
        dst[row] = (float) tile_x[threadIdx.x] * ncols;
    }
}

// Shared code: both builds compile it, so its port risks are real.
__global__ void count_nonzero(const float * __restrict__ x, int * __restrict__ out, const int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int ballot = __ballot_sync(0xffffffff, i < n && x[i] != 0.0f);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, __popc(ballot));
    }
}

void launch_mul_mat_q(const int * x, const int * y, float * dst, int nrows, cudaStream_t stream) {
    const dim3 grid((nrows + MMQ_TILE - 1) / MMQ_TILE);
    mul_mat_q<8><<<grid, 128, 0, stream>>>(x, y, dst, nrows);
    CUDA_CHECK(cudaGetLastError());
}

void launch_count_nonzero(const float * x, int * out, int n, cudaStream_t stream) {
    count_nonzero<<<(n + 255) / 256, 256, 0, stream>>>(x, out, n);
}
