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

CODE = "HG303"
NODE = "call_expression"
ANCHOR = words("__nanosleep")


def check(node, ctx):
    return [Hit(node, HIGH)] if ctx.in_device_code(node) or node.type == "call_expression" else []
