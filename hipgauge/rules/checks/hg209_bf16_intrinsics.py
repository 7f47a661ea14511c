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

CODE = "HG209"
NODE = None
ANCHOR = words("__nv_bfloat162", "nv_bfloat162", "__hfma_relu", "__hcmadd")


def check(node, ctx):
    return usage(node, ctx)
