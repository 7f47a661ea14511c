"""HG506: floating-point `atomicAdd` (float/double).

What it does
------------
Flags `atomicAdd` whose target is a `float`/`double` (from the declared type of the pointer in the
same function, or an explicit cast).

Why is this bad?
----------------
HIP-Clang compiles FP atomics to safe compare-and-swap loops by default; the fast hardware atomics
(`-munsafe-fp-atomics`, `unsafeAtomicAdd`) round differently and are wrong on fine-grained memory.
Either way hot FP atomics cost more than on NVIDIA.

Example
-------
```cuda
__global__ void k(float* sum, const float* x) {
    atomicAdd(sum, x[threadIdx.x]);
}
```

Use instead
-----------
```cuda
__global__ void k(int* count, const int* x) {
    atomicAdd(count, x[threadIdx.x]);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import words
from hipgauge.rules.checks._atomics import atomic_on_types
from hipgauge.rules.spec import RuleMeta

CODE = "HG506"
RULE = RuleMeta(
    title="Floating-point atomicAdd",
    category="memory",
    severity="slow",
    message="float/double atomicAdd becomes a CAS loop or an unsafe hardware atomic",
    fix="Reduce within the wave first; use unsafeAtomicAdd only on coarse-grained (hipMalloc) memory.",
    effort=(0.5, 2),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#unsafe-floating-point-atomic-operations",
    ),
)
NODE = "call_expression"
ANCHOR = words("atomicAdd", "atomicAdd_block", "atomicAdd_system")


def check(node, ctx):
    return atomic_on_types(node, ctx, ("float", "double"))
