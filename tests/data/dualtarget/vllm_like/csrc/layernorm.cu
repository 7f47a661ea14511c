#include <torch/extension.h>
#include "cuda_compat.h"
#include "cub_helpers.h"

template <typename T>
__global__ void rms_norm(T * out, const T * in, float eps, int d) {
    float v = 0.0f;
    for (int i = threadIdx.x; i < d; i += blockDim.x) {
        const float x = (float) XV_LDG(&in[blockIdx.x * d + i]);
        v += x * x;
    }
    for (int mask = 16; mask > 0; mask >>= 1) {
        v += XV_SHFL_XOR_SYNC(v, mask);
    }
    using BlockReduce = cub::BlockReduce<float, 1024>;
    __shared__ typename BlockReduce::TempStorage tmp;
    v = BlockReduce(tmp).Reduce(v, XvAddOp{}, blockDim.x);
    out[blockIdx.x] = (T) rsqrtf(v / d + eps);
}
