"""HG604: cuBLAS calls: hipBLAS maps them, algorithm and math-mode choices do not carry over.

What it does
------------
Flags each cuBLAS (not cuBLASLt) call site and `#include <cublas_v2.h>`: one finding per call, with types
and enums folded into the nearest call's finding; GEMM algorithm enums, math modes,
`cublasSetSmCountTarget` and the `_64` variants are called out in the message.

Why is this bad?
----------------
HIPIFY maps most of cuBLAS to hipBLAS (661 of 793 functions), so plain calls port mechanically, but
algorithm enums tuned for NVIDIA tensor cores mean nothing to rocBLAS/Tensile and some calls
(`cublasSetSmCountTarget`, ILP64 `_64` variants, `gemm3m`) have no mapping. GEMM speed must be re-
measured.

Example
-------
```cuda
void gemm(cublasHandle_t h, const float* a, const float* b, float* c, int n) {
    const float one = 1.f, zero = 0.f;
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
}
```

Use instead
-----------
```cuda
void gemm(hipblasHandle_t h, const float* a, const float* b, float* c, int n) {
    const float one = 1.f, zero = 0.f;
    hipblasSgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import any_of, include, library_usage, words
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text

CODE = "HG604"
RULE = RuleMeta(
    title="cuBLAS -> hipBLAS (algorithms and math modes)",
    category="library",
    severity="info",
    message="cuBLAS dependence: maps to hipBLAS/rocBLAS, speed must be re-measured",
    fix="Use hipBLAS/rocBLAS defaults with explicit compute types (hipblasGemmEx); benchmark the GEMM shapes.",
    effort=(0.1, 0.5),
    rubric=("covered-library",),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUBLAS_API_supported_by_HIP.md",
    ),
)
NODE = None
FOLD = "cuBLAS"  # one finding per call site; types/enums folded in
ANCHOR = any_of(include(r"cublas(?!Lt)"), words(r"cublas(?!Lt)[A-Z]\w*", r"CUBLAS_(?!LT|COMPUTE_32F_FAST_TF32|TF32)\w+"))
_TUNED = re.compile(r"cublasSetMathMode|CUBLAS_GEMM_\w*(?:TENSOR_OP|ALGO)\w*|CUBLAS_\w*TENSOR_OP_MATH")


def check(node, ctx):
    name = text(node).strip()
    if _TUNED.search(name):
        detail = f"`{name}`: NVIDIA-specific tuning, no meaning for rocBLAS"
    elif name.endswith("_64") or "SmCountTarget" in name or "gemm3m" in name:
        detail = f"`{name}` has no hipBLAS mapping"
    else:
        detail = f"`{name}` maps to hipBLAS; re-measure GEMM speed"
    return library_usage(node, ctx, detail)
