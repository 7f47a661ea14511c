#pragma once
#include <immintrin.h>

static inline float hsum_avx(__m256 v) {
    float out;
    __asm__("vhaddps %1, %1, %0" : "=x"(v) : "x"(v));
    _mm_store_ss(&out, _mm256_castps256_ps128(v));
    return out;
}
