"""A PyTorch extension with a ROCm branch: the CUTLASS GEMM is the CUDA build's only."""
import torch
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

if torch.version.hip:
    sources = ["csrc/ops.cu", "csrc/rocm_gemm.cu"]
    flags = ["-O3"]
else:
    sources = ["csrc/ops.cu", "csrc/sm90_gemm.cu"]
    flags = ["-O3", "--use_fast_math", "-gencode=arch=compute_90a,code=sm_90a"]

setup(
    name="rocmbranch",
    ext_modules=[CUDAExtension("rocmbranch._C", sources, extra_compile_args={"nvcc": flags})],
    cmdclass={"build_ext": BuildExtension},
)
