// Seed for the fuzz suite: a little of everything the scanner and translator look at.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cooperative_groups.h>
#define FULL_MASK 0xffffffff
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) return e; } while (0)
#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)
namespace cg = cooperative_groups;

template <typename T, int N>
__global__ void __launch_bounds__(256) reduce(const T* __restrict__ in, T* out, int n) {
  __shared__ T buf[32];
  T v = threadIdx.x < n ? in[threadIdx.x] : T(0);
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL_MASK, v, o);
  unsigned m = __ballot_sync(0xffffffff, v > 0);
  if ((threadIdx.x & 31) == 0) buf[threadIdx.x / 32] = v + __popc(m);
  __syncwarp();
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(out, buf[0]);
}

__device__ int lane() { int l; asm volatile("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }

cudaError_t run(float* d, float* o, int n, cudaStream_t s) {
  cublasHandle_t h; cublasCreate(&h);
  reduce<float, 4><<<(n + 255) / 256, 256, 0, s>>>(d, o, n);
  LAUNCH(reduce<float, 4>, 1, 32, d, o, n);
  CHECK(cudaMemcpyAsync(o, d, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
  CHECK(cudaStreamSynchronize(s));
  return cudaGetLastError();
}
