"""Build the bitsandbytes-style extension.

For NVIDIA the build passes ``-arch=sm_80`` and ``--use_fast_math`` to nvcc; for ROCm it passes
``--offload-arch=gfx90a``. See README for CUDA_ARCHITECTURES.
"""
import torch
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

HELP = "set BNB_CUDA_ARCH, e.g. '-gencode arch=compute_80,code=sm_80'"  # a message, not a flag
if torch.version.hip:
    define_macros = [("BNB_HIP", "1")]
    nvcc_flags = ["-O3", "--offload-arch=gfx90a", "--offload-arch=gfx942"]
else:
    define_macros = []
    nvcc_flags = ["-O3", "-gencode", "arch=compute_80,code=sm_80"]

setup(
    name="tinybnb",
    ext_modules=[CUDAExtension("tinybnb", ["csrc/kernels.cu"], define_macros=define_macros,
                               extra_compile_args={"nvcc": nvcc_flags})],
    cmdclass={"build_ext": BuildExtension},
)
