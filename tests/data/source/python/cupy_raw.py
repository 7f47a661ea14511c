import cupy as cp

N = 256
add_kernel = cp.RawKernel(r'''
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}
''', 'my_add')

# A module whose source is a template filled with .format: braces doubled.
module = cp.RawModule(code="""
extern "C" __global__ void scale(float* y, float a) {{
    float v = __shfl_down_sync(0xffffffff, y[threadIdx.x], 16);
    y[threadIdx.x] = a * v * {factor};
}}
""".format(factor=2.0))

x1 = cp.arange(N, dtype=cp.float32)
