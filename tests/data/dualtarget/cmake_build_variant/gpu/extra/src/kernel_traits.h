#pragma once
#include <cuda.h>
constexpr int kTileM = 128;
__device__ inline void wait_barrier(unsigned long long* bar) {
  asm volatile("mbarrier.try_wait.parity.shared::cta.b64 _, [%0], 0;" :: "l"(bar));
}
