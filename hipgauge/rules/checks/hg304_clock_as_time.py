"""HG304: `clock()`/`clock64()` used in device code.

What it does
------------
Flags calls to `clock()` and `clock64()` inside device functions and kernels.

Why is this bad?
----------------
On AMD `clock64()` counts shader cycles at a frequency that changes at run time (and misbehaves on
RDNA3); elapsed-time or timeout logic built on it measures something different from CUDA's SM clock.

Example
-------
```cuda
__global__ void k(long long* t) {
    t[0] = clock64();
}
```

Use instead
-----------
```cuda
__global__ void k(long long* t) {
    t[0] = wall_clock64();
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import DEVICE_CODE, words
from hipgauge.rules.hit import MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import call_name

CODE = "HG304"
RULE = RuleMeta(
    title="clock()/clock64() in device code",
    category="asm",
    severity="info",
    message="clock()/clock64() counts variable-rate cycles on AMD",
    fix="Use wall_clock64() with hipDeviceAttributeWallClockRate for time; keep clock64() for cycle counts.",
    effort=(0.25, 1),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#timer-functions",
    ),
)
REQUIRES = DEVICE_CODE  # fires in device code only: a file without __global__/__device__ is not even parsed
NODE = "call_expression"
ANCHOR = words("clock", "clock64")


def check(node, ctx):
    if call_name(node) not in ("clock", "clock64") or not ctx.in_device_code(node):
        return []
    return [Hit(node, MEDIUM, f"`{call_name(node)}()` counts cycles, not time")]
