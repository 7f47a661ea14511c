// Warp-size risks written as macros: tree-sitter sees these bodies as raw text.
#include <cuda_runtime.h>

#define FULL_MASK 0xffffffffu
#define WARP_REDUCE(v) v += __shfl_xor_sync(0xffffffff, v, 16)
#define WARP_REDUCE_ALL(v)                                   \
    do {                                                     \
        v += __shfl_down_sync(FULL_MASK, v, 8);              \
        v += __shfl_down_sync(__activemask(), v, 4); /* ok */ \
    } while (0)
#define LANE (threadIdx.x & 31)
#define WARP_ID ((threadIdx.x) >> 5)
#define PACKED_LOW(x) ((x) & 31)
#define LANE_ID(id) asm volatile("mov.u32 %0, %%laneid;" : "=r"(id))
#define AMD_ZERO(r) asm volatile("v_mov_b32 %0, 0" : "=v"(r))
#define NOTE "__shfl_xor_sync(0xffffffff, v, 16) & 31"
// #define OLD_LANE (threadIdx.x & 31)
#define LAUNCH_ROWS(k, rows, ...) k<<<(rows), 256>>>(__VA_ARGS__)
#define CUDA_API(fn, ...) cuda##fn(__VA_ARGS__)
#define CAT(a, b) a##b

__global__ void reduce_kernel(float* x) {
    float v = x[threadIdx.x];
    WARP_REDUCE(v);
    WARP_REDUCE_ALL(v);
    x[LANE] = v;
}
