"""HG110: per-thread spin lock that relies on independent thread scheduling.

What it does
------------
Flags loops in device code whose condition spins on `atomicCAS` or `atomicExch` (a lock taken per
thread).

Why is this bad?
----------------
AMD wavefronts run in lockstep and have no independent thread scheduling: when two lanes of the same
wave contend for one lock, the lane holding it may never run its release and the wave livelocks.

Example
-------
```cuda
__device__ void add(int* lock, float* v) {
    while (atomicCAS(lock, 0, 1) != 0) { }
    *v += 1.f;
    atomicExch(lock, 0);
}
```

Use instead
-----------
```cuda
__device__ void add(int* lock, float* v) {
    atomicAdd(v, 1.f);
}
```
"""

from __future__ import annotations

from hipgauge.rules.syntax import parent as parent_of

from hipgauge.rules.checks._common import DEVICE_CODE, words
from hipgauge.rules.hit import MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import call_name

CODE = "HG110"
RULE = RuleMeta(
    title="Reliance on independent thread scheduling",
    category="warp",
    severity="wrong-results",
    message="per-thread spin lock in device code relies on independent thread scheduling",
    fix="Elect one lane per wave (ballot + readfirstlane) to take the lock, or restructure into a wave-level "
        "algorithm.",
    effort=(2, 8),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/cooperative_groups.html#coalesced-groups",
        "https://github.com/stotko/stdgpu/pull/484",
    ),
)
REQUIRES = DEVICE_CODE  # fires in device code only: a file without __global__/__device__ is not even parsed
NODE = "call_expression"
ANCHOR = words("atomicCAS", "atomicExch")


def check(node, ctx):
    if not ctx.in_device_code(node):
        return []
    cur, up = node, 0
    while cur is not None and up < 6:
        parent = parent_of(cur)
        if parent is not None and parent.type in ("while_statement", "do_statement", "for_statement") \
                and parent.child_by_field_name("condition") is not None \
                and parent.child_by_field_name("condition").id == cur.id:
            return [Hit(parent, MEDIUM, f"spins on `{call_name(node)}`")]
        cur, up = parent, up + 1
    return []
