"""HG701: nvcc-only build flags and CUDA architecture lists.

What it does
------------
Flags, in CMake files, Makefiles and setup.py (comments skipped), `-arch=sm_NN`, `-gencode`,
`--gpu-architecture`, `--use_fast_math`, `-Xptxas`, `-Xcompiler`, `--expt-relaxed-constexpr`,
`--expt-extended-lambda`, `-lineinfo`, `CUDA_ARCHITECTURES`/`CMAKE_CUDA_ARCHITECTURES` and
`TORCH_CUDA_ARCH_LIST`. In a file that also sets the AMD targets (`PYTORCH_ROCM_ARCH`, `HIP_ARCHITECTURES`,
`AMDGPU_TARGETS`, `--offload-arch`, a gfx name: DeepSpeed's op_builder/builder.py saves and restores
`TORCH_CUDA_ARCH_LIST` and sets `PYTORCH_ROCM_ARCH` beside it) the CUDA architecture list is the CUDA build's
half of a two-vendor build: reported with low confidence (review, no hours). Its other nvcc-only flags are still
reported.

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

from hipgauge.rules.checks._buildscan import AMD_TARGETS, scan
from hipgauge.rules.hit import LOW, LineHit
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


#: the hits that are an architecture list, not a flag of another meaning
_ARCH_LIST = re.compile(r"(?i)arch|gencode|generate-code|code[= ]")


def check_build(lines, ctx):
    lines = list(lines)
    amd_at = next((i for i, line in enumerate(lines, 1) if AMD_TARGETS.search(line)), None)
    for hit in scan(lines, _FLAGS):
        if amd_at is not None and _ARCH_LIST.search(hit.detail):
            yield LineHit(hit.line, hit.column, LOW, f"{hit.detail}: the CUDA build's list; this file sets the AMD "
                                                     f"targets too (line {amd_at})")
        else:
            yield hit
