"""HG509: inter-block spin-wait on a global flag.

What it does
------------
Flags loops in device code whose condition polls memory through a `volatile` access or an atomic
read (`atomicAdd(p, 0)`, `atomicOr(p, 0)`, `cuda::atomic_ref`), i.e. waits for another block.

Why is this bad?
----------------
Such waits only finish if the producer block is resident and its writes become visible; with a
different number of resident blocks and cache behaviour on AMD they can hang (FBGEMM hung this way
on MI300).

Example
-------
```cuda
__global__ void k(volatile int* ready, float* x) {
    while (ready[0] == 0) { }
    x[threadIdx.x] = 1.f;
}
```

Use instead
-----------
```cuda
__global__ void k(const int* ready, float* x) {
    if (ready[0] != 0) x[threadIdx.x] = 1.f;
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import DEVICE_CODE, words
from hipgauge.rules.hit import MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import descendants, text

CODE = "HG509"
RULE = RuleMeta(
    title="Inter-block spin-wait on global flags",
    category="memory",
    severity="wrong-results",
    message="device loop spins on memory written by another block",
    fix="Bound the spin, use a cooperative launch or split kernels; poll with agent-scope atomic loads.",
    effort=(2, 8),
    sources=(
        "https://github.com/pytorch/FBGEMM/pull/5708",
    ),
)
REQUIRES = DEVICE_CODE  # fires in device code only: a file without __global__/__device__ is not even parsed
NODE = ("while_statement", "do_statement")
ANCHOR = words("while")
_ATOMIC_POLL = re.compile(r"atomic(?:Add|Or|Sub)\s*\([^,]+,\s*0\s*\)|atomic_ref|ld\.acquire|__atomic_load|atomicCAS\s*\([^,]+,\s*0\s*,\s*0\s*\)")


def check(node, ctx):
    if not ctx.in_device_code(node):
        return []
    cond = node.child_by_field_name("condition")
    if cond is None:
        return []
    c = text(cond)
    if _ATOMIC_POLL.search(c) or "volatile" in c:
        return [Hit(node, MEDIUM, "polls memory written by another block")]
    for ident in descendants(cond, "identifier"):
        t = ctx.type_of(text(ident), node)
        if t and "volatile" in t:
            return [Hit(node, MEDIUM, f"polls volatile `{text(ident)}`")]
    return []
