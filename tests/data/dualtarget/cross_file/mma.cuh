#pragma once
#include "common.cuh"

static __device__ __forceinline__ void mma_16x8x16(float * d, const int * a, const int * b) {
#ifdef TURING_MMA_AVAILABLE
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    d[0] += a[0] * b[0];
#endif // TURING_MMA_AVAILABLE
}

static __device__ __forceinline__ void load_async(void * dst, const void * src) {
#ifdef CP_ASYNC_AVAILABLE
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"((unsigned) (size_t) dst), "l"(src));
#else
    *(int4 *) dst = *(const int4 *) src;
#endif // CP_ASYNC_AVAILABLE
}
