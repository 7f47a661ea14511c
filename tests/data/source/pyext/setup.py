# A PyTorch CUDA extension built the usual way (CUDAExtension + BuildExtension).
import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "8.0;9.0")

cc_flag = []
cc_flag.append("-gencode")
cc_flag.append("arch=compute_90a,code=sm_90a")

setup(
    name="fused_ops",
    ext_modules=[
        CUDAExtension(
            name="fused_ops_cuda",
            sources=["csrc/fused_ops.cpp", "csrc/fused_kernel.cu"],
            extra_compile_args={
                "cxx": ["-O3", "-std=c++17"],
                "nvcc": ["-O3", "--use_fast_math", "--expt-relaxed-constexpr", "-lineinfo",
                         "-Xptxas=-v", "-maxrregcount=64"] + cc_flag,
            },
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
