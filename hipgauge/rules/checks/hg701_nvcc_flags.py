"""HG701: nvcc-only build flags and CUDA architecture lists.

What it does
------------
Flags, in CMake files, Makefiles and setup.py (comments skipped), `-arch=sm_NN`, `-gencode`,
`--gpu-architecture`, `--use_fast_math`, `-Xptxas`, `-Xcompiler`, `--expt-relaxed-constexpr`,
`--expt-extended-lambda`, `-lineinfo`, `CUDA_ARCHITECTURES`/`CMAKE_CUDA_ARCHITECTURES` and
`TORCH_CUDA_ARCH_LIST`.

Why is this bad?
----------------
HIP-Clang takes `--offload-arch=gfx942` (not sm_NN), `-fgpu-rdc`, `--gpu-max-threads-per-block`;
hipcc passes unknown options through, so nvcc-only flags fail or are silently ignored and the build
targets no AMD GPU at all.

Example
-------
```cmake
set_target_properties(kernels PROPERTIES CUDA_ARCHITECTURES "80;90")
```

Use instead
-----------
```cmake
set_target_properties(kernels PROPERTIES HIP_ARCHITECTURES "gfx90a;gfx942")
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._buildscan import scan
from hipgauge.rules.spec import RuleMeta

CODE = "HG701"
RULE = RuleMeta(
    title="nvcc-only build flags and CUDA arch lists",
    category="build",
    severity="blocker",
    message="nvcc-only flag or CUDA architecture list in the build",
    fix="Translate the flags; use CMAKE_HIP_ARCHITECTURES / --offload-arch=gfx90a;gfx942.",
    effort=(0.25, 1),
    sources=(
        "https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/hip_porting_guide.md#compiler-options-supported-on-amd-platforms",
    ),
)
_FLAGS = re.compile(
    r"(?:--?arch[= ]\s*(?:sm|compute)_\d+a?|-gencode\b|--generate-code\b|--gpu-architecture\b|--use_fast_math\b"
    r"|-use_fast_math\b|-Xptxas\b|-Xcompiler\b|--expt-relaxed-constexpr\b|--expt-extended-lambda\b|-lineinfo\b"
    r"|\b(?:CMAKE_)?CUDA_ARCHITECTURES\b|\bTORCH_CUDA_ARCH_LIST\b|-code[= ]\s*sm_\d+)")


def check_build(lines, ctx):
    return scan(lines, _FLAGS)
