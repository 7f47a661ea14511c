// An inline-PTX kernel: translates (the names do) but cannot compile for AMD (HG301/HG302).
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned int lane_id_ptx()
{
    unsigned int id;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
    return id;
}

__global__ void lane_ids(unsigned int* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = lane_id_ptx();
}
