"""Numba and Triton kernels are Python: nothing to read here."""
from numba import cuda


@cuda.jit
def add(x, y, out):
    i = cuda.grid(1)
    out[i] = x[i] + y[i]
