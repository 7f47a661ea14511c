#include <cuda_runtime.h>

// the CUDA build's Hopper GEMM: never compiled for AMD
__global__ void wgmma_gemm(float* d) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(0), "r"(0), "r"(0), "r"(0), "r"(0), "r"(0));
}
