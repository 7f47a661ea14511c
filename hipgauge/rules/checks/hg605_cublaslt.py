"""HG605: cuBLASLt matmuls (epilogues, FP8, heuristics) moving to hipBLASLt.

What it does
------------
Flags `cublasLt*` functions and types, `CUBLASLT_*` constants and `#include <cublasLt.h>`.

Why is this bad?
----------------
HIPIFY maps the core cuBLASLt calls but not the algorithm-configuration API; hipBLASLt supports FP8
only on gfx94x and some fused epilogues only on gfx942 with ROCm 7, and is only partly graph-safe.

Example
-------
```cuda
void mm(cublasLtHandle_t h, cublasLtMatmulDesc_t d) {
    cublasLtMatmul(h, d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}
```

Use instead
-----------
```cuda
void mm(hipblasLtHandle_t h, hipblasLtMatmulDesc_t d) {
    hipblasLtMatmul(h, d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import any_of, include, named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG605"
RULE = RuleMeta(
    title="cuBLASLt -> hipBLASLt",
    category="library",
    severity="blocker",
    message="cuBLASLt matmul: epilogue/FP8/heuristic support differs in hipBLASLt",
    fix="Use hipblasLtMatmul with heuristics; check epilogue/type support per arch; fall back to unfused "
        "epilogues.",
    effort=(2, 8),
    rubric=("exotic-library",),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUBLAS_API_supported_by_HIP.md",
        "https://rocm.docs.amd.com/projects/hipBLASLt/en/latest/datatypes.html",
    ),
)
NODE = None
ANCHOR = any_of(include("cublasLt"), words(r"cublasLt\w+", r"CUBLASLT_\w+"))


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
