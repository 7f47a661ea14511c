from cupy import RawKernel
k = RawKernel(r'''__global__ void k() {}''', 'k'
def oops(:
