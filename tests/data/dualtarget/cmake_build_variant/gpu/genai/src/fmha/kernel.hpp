#pragma once
#include <cuda.h>
__global__ void fmha_load(const __grid_constant__ CUtensorMap map, float* out) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(0), "l"(&map), "r"(0), "r"(0), "r"(0) : "memory");
}
