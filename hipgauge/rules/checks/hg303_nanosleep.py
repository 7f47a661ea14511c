"""HG303: `__nanosleep` back-off.

What it does
------------
Flags calls to `__nanosleep`.

Why is this bad?
----------------
HIP provides no `__nanosleep` and HIPIFY has no mapping; AMD's `__builtin_amdgcn_s_sleep` takes a
compile-time constant that is not in nanoseconds, so spin-wait back-off needs a small shim.

Example
-------
```cuda
__device__ void wait(volatile int* flag) {
    while (*flag == 0) __nanosleep(100);
}
```

Use instead
-----------
```cuda
__device__ void wait(volatile int* flag) {
    while (*flag == 0) { }
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import HIGH, Hit
from hipgauge.rules.spec import RuleMeta

CODE = "HG303"
RULE = RuleMeta(
    title="__nanosleep back-off",
    category="asm",
    severity="blocker",
    message="__nanosleep does not exist in HIP",
    fix="Provide a small shim around __builtin_amdgcn_s_sleep(constant) for spin-wait back-off.",
    effort=(0.25, 1),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUDA_Device_API_supported_by_HIP.md",
    ),
)
NODE = "call_expression"
ANCHOR = words("__nanosleep")


def check(node, ctx):
    return [Hit(node, HIGH)] if ctx.in_device_code(node) or node.type == "call_expression" else []
