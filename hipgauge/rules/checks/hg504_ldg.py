"""HG504: read-only-cache load `__ldg`.

What it does
------------
Flags calls to `__ldg`.

Why is this bad?
----------------
AMD GPUs have a unified L1/texture cache and cache loads by default; `__ldg` compiles to a plain
load. Nothing breaks, but a speed-up that came from the read-only path on NVIDIA will not reappear.

Example
-------
```cuda
__global__ void k(const float* x, float* y) {
    y[threadIdx.x] = __ldg(&x[threadIdx.x]);
}
```

Use instead
-----------
```cuda
__global__ void k(const float* __restrict__ x, float* y) {
    y[threadIdx.x] = x[threadIdx.x];
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import HIGH, Hit
from hipgauge.rules.spec import RuleMeta

CODE = "HG504"
RULE = RuleMeta(
    title="Read-only cache loads (__ldg)",
    category="memory",
    severity="info",
    message="__ldg is a plain load on AMD",
    fix="Nothing for correctness; tune vector widths and coalescing instead.",
    effort=(0, 0.25),
    sources=(
        "https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/hip_porting_guide.md",
    ),
)
NODE = "call_expression"
ANCHOR = words("__ldg")


def check(node, ctx):
    return [Hit(node, HIGH)]
