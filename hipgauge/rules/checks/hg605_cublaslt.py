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

CODE = "HG605"
NODE = None
ANCHOR = any_of(include("cublasLt"), words(r"cublasLt\w+", r"CUBLASLT_\w+"))


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
