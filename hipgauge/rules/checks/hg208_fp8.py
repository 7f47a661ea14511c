"""HG208: FP8 types (OCP e4m3fn/e5m2 versus FNUZ on MI300).

What it does
------------
Flags `__nv_fp8*` types, `CUDA_R_8F_E4M3`/`E5M2` and `#include <cuda_fp8.h>`.

Why is this bad?
----------------
MI300 (gfx942) computes FP8 in the FNUZ encodings (no infinities, one NaN, exponent bias +1, e4m3
max 240 instead of 448); H100 uses the OCP encodings. Stored FP8 weights and KV caches decode to
different numbers unless converted and re-scaled.

Example
-------
```cuda
__global__ void k(const __nv_fp8_e4m3* w, float* out) {
    out[threadIdx.x] = float(w[threadIdx.x]);
}
```

Use instead
-----------
```cuda
__global__ void k(const __half* w, float* out) {
    out[threadIdx.x] = __half2float(w[threadIdx.x]);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import any_of, include, usage, words
from hipgauge.rules.spec import RuleMeta

CODE = "HG208"
RULE = RuleMeta(
    title="FP8 formats (OCP vs FNUZ)",
    category="tensor-core",
    severity="wrong-results",
    message="FP8 data: MI300 uses FNUZ encodings, not the OCP formats of H100",
    fix="Select __hip_fp8_e4m3_fnuz vs __hip_fp8_e4m3 per target; convert and re-scale stored FP8 weights and KV "
        "caches.",
    effort=(2, 8),
    rubric=("vendor-precision",),
    sources=(
        "https://rocm.docs.amd.com/en/latest/reference/precision-support.html",
        "https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/fp8_numbers.rst",
    ),
)
NODE = None
ANCHOR = any_of(include("cuda_fp8"), words(r"__nv_fp8\w*", r"CUDA_R_8F_E4M3\w*", r"CUDA_R_8F_E5M2\w*"))


def check(node, ctx):
    return usage(node, ctx)
