"""HG204: Tensor Memory Accelerator (TMA) descriptors and bulk copies.

What it does
------------
Flags `CUtensorMap`, `cuTensorMapEncode*`, CUTLASS `SM90_TMA_*` copies and `cp.async.bulk` in inline
PTX.

Why is this bad?
----------------
TMA hardware has no AMD counterpart and HIPIFY maps none of the tensor-map driver APIs: tiles have
to be loaded into LDS with ordinary (vectorised) loads.

Example
-------
```cuda
void make_map(CUtensorMap* m) {
    cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 0, 0, 0, 0, 0, CU_TENSOR_MAP_INTERLEAVE_NONE,
                           CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}
```

Use instead
-----------
```cuda
__global__ void load(const float4* g, float4* out) {
    out[threadIdx.x] = g[threadIdx.x];
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import ASM, any_of, asm_or_usage, words
from hipgauge.rules.spec import RuleMeta

CODE = "HG204"
RULE = RuleMeta(
    title="Tensor Memory Accelerator (TMA)",
    category="tensor-core",
    severity="blocker",
    message="TMA descriptor or bulk copy has no AMD counterpart",
    fix="Load tiles into LDS with explicit vectorised/buffer loads, or use a library kernel.",
    effort=(8, 24),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUDA_Driver_API_functions_supported_by_HIP.md",
    ),
)
NODE = None
ANCHOR = any_of(ASM, words("CUtensorMap", r"cuTensorMapEncode\w*", r"SM90_TMA_\w+", r"cp_async_bulk\w*"))
SUPERSEDES = ("HG301", "HG206")
_PTX = re.compile(r"\bcp\.async\.bulk[\w.]*|\bcp\.reduce\.async\.bulk[\w.]*")


def check(node, ctx):
    return asm_or_usage(node, ctx, _PTX)
