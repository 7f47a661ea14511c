#include "include/attrs.h"

MY_INLINE_DEVICE float square(float x) { return x * x; }

MY_HOST_DEVICE int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

template <int BlockThreads>
LIB_KERNEL_ATTRIBUTES void MY_BOUNDS(BlockThreads) scale_kernel(float* out, const float* in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = square(in[clamp_index(i, n)]);
}

MY_KERNEL_WITH_BOUNDS(256) void bounded_kernel(float* out, int n)
{
  if (threadIdx.x < n) out[threadIdx.x] = 0.0f;
}

// LIB_KERNEL_ATTRIBUTES void in_a_comment(float* out) {}
int host_only(int n) { return n + NOT_A_QUALIFIER; }

void launch(float* out, const float* in, int n)
{
  scale_kernel<128><<<(n + 127) / 128, 128>>>(out, in, n);
  bounded_kernel<<<1, 256>>>(out, n);
}
