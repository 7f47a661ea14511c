"""HG207: TF32 tensor-core math.

What it does
------------
Flags TF32 compute types and math modes (`CUBLAS_COMPUTE_32F_FAST_TF32`,
`CUBLAS_TF32_TENSOR_OP_MATH`, `wmma::precision::tf32`, `__float_to_tf32`).

Why is this bad?
----------------
TF32 matrix math exists on CDNA3 (MI300) but not on CDNA2 or RDNA, and its numerics and throughput
differ: accuracy tolerances and speed-ups tuned on NVIDIA do not carry over.

Example
-------
```cuda
void setup(cublasHandle_t h) {
    cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH);
}
```

Use instead
-----------
```cuda
void setup(cublasHandle_t h) {
    cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import usage, words
from hipgauge.rules.spec import RuleMeta

CODE = "HG207"
RULE = RuleMeta(
    title="TF32 tensor-core math",
    category="tensor-core",
    severity="info",
    message="TF32 math: available on MI300 only, numerics differ",
    fix="Gate on the architecture; use FP32 or BF16 on gfx90a; re-validate tolerances.",
    effort=(0.5, 2),
    rubric=("vendor-precision",),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/reference/hardware_features.html",
    ),
)
NODE = None
ANCHOR = words("CUBLAS_COMPUTE_32F_FAST_TF32", "CUBLAS_TF32_TENSOR_OP_MATH", "tf32", "__float_to_tf32", "CUDNN_FMA_MATH_TF32")


def check(node, ctx):
    return usage(node, ctx)
