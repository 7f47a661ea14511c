// ROCm-only kernels written with CUDA spellings: the extension's build hipifies csrc/ before hipcc sees it
#include <torch/all.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "../cuda_compat.h"

#if defined(__HIPCC__) && (defined(__gfx942__) || defined(__gfx950__))
  #define __HIP__MI3XX__
#endif

__global__ void wv_splitk(float * c, const __hip_bfloat16 * a, int k) {
    float acc = 0.0f;
    for (int i = threadIdx.x; i < k; i += 64) {
        acc += __bfloat162float(a[i]);
    }
#if defined(__HIP__MI3XX__)
    acc = __builtin_amdgcn_readfirstlane(acc);
#endif
    atomicAdd(c, acc);
    cudaStream_t unused;
    (void) unused;
}
