"""HG209: bf16x2 types and half/bf16 intrinsics without a HIP mapping.

What it does
------------
Flags `__nv_bfloat162`, `__hfma_relu` and `__hcmadd`.

Why is this bad?
----------------
HIPIFY's 2024 tables map `__nv_bfloat16` to the legacy `hip_bfloat16` struct, leave `__nv_bfloat162`
unsupported and have no mapping for `__hfma_relu`/`__hcmadd`: the translated code does not compile.

Example
-------
```cuda
__global__ void k(__nv_bfloat162* x) {
    x[threadIdx.x] = __hmul2(x[threadIdx.x], x[threadIdx.x]);
}
```

Use instead
-----------
```cuda
__global__ void k(__half2* x) {
    x[threadIdx.x] = __hmul2(x[threadIdx.x], x[threadIdx.x]);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import usage, words
from hipgauge.rules.spec import RuleMeta

CODE = "HG209"
RULE = RuleMeta(
    title="bf16x2 types and half/bf16 intrinsics without a mapping",
    category="tensor-core",
    severity="blocker",
    message="bf16x2 type or half intrinsic without a HIP mapping",
    fix="Use __hip_bfloat16/__hip_bfloat162 from <hip/hip_bf16.h>; write the missing intrinsics by hand.",
    effort=(0.5, 2),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUDA_Device_API_supported_by_HIP.md",
    ),
)
NODE = None
ANCHOR = words("__nv_bfloat162", "nv_bfloat162", "__hfma_relu", "__hcmadd")


def check(node, ctx):
    return usage(node, ctx)
