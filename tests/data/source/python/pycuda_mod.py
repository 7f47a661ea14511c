import pycuda.autoinit
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
  __syncthreads();
}
""")
multiply_them = mod.get_function("multiply_them")
