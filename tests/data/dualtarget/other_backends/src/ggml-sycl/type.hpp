#pragma once
#include <sycl/sycl.hpp>
#include <cstdint>

// SYCL's own fp8 e4m3 emulation under the CUDA type's name, so that shared code compiles unchanged
static inline uint8_t float_to_e4m3(float f) { return (uint8_t) (f > 0.0f ? 0x38 : 0xb8); }

struct __nv_fp8_e4m3 {
    uint8_t raw;
    __nv_fp8_e4m3() = default;
    explicit __nv_fp8_e4m3(float f) : raw(float_to_e4m3(f)) {}
};
using __nv_fp8x2_e4m3 = sycl::vec<__nv_fp8_e4m3, 2>;

#define QK_WARP_SIZE 32
