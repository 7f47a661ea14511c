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

CODE = "HG208"
NODE = None
ANCHOR = any_of(include("cuda_fp8"), words(r"__nv_fp8\w*", r"CUDA_R_8F_E4M3\w*", r"CUDA_R_8F_E5M2\w*"))


def check(node, ctx):
    return usage(node, ctx)
