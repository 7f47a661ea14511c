// Fixture for hipgauge's source tests. Line numbers matter: tests/test_source_inventory.py
// refers to them. Names in comments must not count: cudaMalloc cublasSgemm __shfl_sync
#include <cuda_runtime.h>
#include "cub/block/block_reduce.cuh"
#include <nccl.h>
#include <cudnn.h>
#define BLOCK 128
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("cudaFree %s", cudaGetErrorString(e_)); } } while (0)
#define LAUNCH_FILL(n, p) fill_kernel<<<((n) + BLOCK - 1) / BLOCK, BLOCK>>>(p, n) /* cudaMemset */
constexpr int kTile = 32;
static const unsigned kPad = 1u;

namespace hg {
namespace detail {
template <typename T, int BS = 256>
__global__ void __launch_bounds__(BS, 2) reduce_kernel(const T* in, T* out, int n)
{
    __shared__ float partial[BLOCK];
    __shared__ double tile[kTile][kTile + kPad];
    typedef cub::BlockReduce<T, BS> BlockReduce;
    T v = in[threadIdx.x];
    v += __shfl_down_sync(0xffffffff, v, 16);
    out[blockIdx.x] = v;
}
}  // namespace detail
}  // namespace hg

__global__ void fill_kernel(float* p, int n)
{
    extern __shared__ float dyn[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = sqrtf(1.0f);
}

__device__ __forceinline__ float twice(float x) { return 2.0f * x; }
__host__ __device__ float both(float x) { return x; }

__global__ void generic_smem_kernel(float* p)
{
    __shared__ float buf[sizeof(float4) * 4];
    p[0] = twice(buf[0]);
}

float host_sqrt(float x) { return sqrtf(x); }

void run(float* d, int n, cudaStream_t stream, ncclComm_t comm, cudnnHandle_t dnn)
{
    const char* msg = "cudaMemcpy is in a string";
    hg::detail::reduce_kernel<float, 128><<<dim3(n / 128), 128, 0, stream>>>(d, d, n);
    fill_kernel<<<1, 1>>>(d, n);
    LAUNCH_FILL(n, d);
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    void* args[] = {&d, &n};
    cudaLaunchKernel((const void*)fill_kernel, dim3(4), dim3(64), args, 0, stream);
    cudaLaunchCooperativeKernel(reinterpret_cast<void*>(&generic_smem_kernel), 2, 32, args, 256, stream);
    ncclAllReduce(d, d, n, ncclFloat, ncclSum, comm, stream);
    cudnnCreate(&dnn);
}

void driver_launch(CUmodule mod, void** params)
{
    CUfunction fn;
    cuModuleGetFunction(&fn, mod, "fill_kernel");
    cuLaunchKernel(fn, 8, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr);
}
