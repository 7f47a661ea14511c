import cupy
kernel = cupy.RawKernel(open("kernel.cu").read(), "k")
