"""HG507: 16-bit floating-point atomics (`__half`, `__nv_bfloat16`).

What it does
------------
Flags `atomicAdd` on `__half`, `__half2`, `__nv_bfloat16` or `__nv_bfloat162` targets.

Why is this bad?
----------------
Without a native 16-bit atomic the compiler emits a CAS loop; on MI200 system-scope CAS loops added
expensive coherence traffic (a measured ResNet-50 slowdown, fixed by agent scope).

Example
-------
```cuda
__global__ void k(__half* acc, const __half* x) {
    atomicAdd(acc, x[threadIdx.x]);
}
```

Use instead
-----------
```cuda
__global__ void k(float* acc, const __half* x) {
    atomicAdd(acc, __half2float(x[threadIdx.x]));
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import words
from hipgauge.rules.checks._atomics import atomic_on_types
from hipgauge.rules.spec import RuleMeta

CODE = "HG507"
RULE = RuleMeta(
    title="16-bit floating-point atomics",
    category="memory",
    severity="slow",
    message="half/bf16 atomicAdd compiles to a CAS loop",
    fix="Accumulate in fp32, use packed half2 atomics where supported, or __hip_atomic_* at agent scope.",
    effort=(1, 4),
    sources=(
        "https://github.com/ROCm/tensorflow-upstream/pull/1536",
    ),
)
NODE = "call_expression"
ANCHOR = words("atomicAdd", "atomicAdd_block", "atomicAdd_system")


def check(node, ctx):
    return atomic_on_types(node, ctx, ("__half", "half", "__half2", "half2", "__nv_bfloat16", "nv_bfloat16", "__nv_bfloat162"))
