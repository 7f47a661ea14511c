"""JIT-compiled at import: the .cu files are read by the scan on their own; the flags are here."""
from torch.utils import cpp_extension

ops = cpp_extension.load(
    name="fused_ops_jit",
    sources=["csrc/fused_kernel.cu"],
    extra_cuda_cflags=["-gencode=arch=compute_80,code=sm_80", "--use_fast_math"],
)
