"""HG703: numeric `__CUDA_ARCH__` feature gates.

What it does
------------
Flags `#if`/`#elif` conditions that compare `__CUDA_ARCH__` with a number.

Why is this bad?
----------------
HIP-Clang does not define `__CUDA_ARCH__`: every `__CUDA_ARCH__ >= 800` gate silently takes its
fallback branch, often a slow path or a host-only path, with no compiler message.

Example
-------
```cuda
__device__ float f(float x) {
#if __CUDA_ARCH__ >= 800
    return x * 2.f;
#else
    return x;
#endif
}
```

Use instead
-----------
```cuda
__device__ float f(float x) {
#if defined(__HIP_DEVICE_COMPILE__)
    return x * 2.f;
#else
    return x;
#endif
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import HIGH, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text
from hipgauge.rules.syntax import ancestor

CODE = "HG703"
RULE = RuleMeta(
    title="__CUDA_ARCH__ numeric feature gates",
    category="build",
    severity="wrong-results",
    message="__CUDA_ARCH__ comparison: undefined under HIP-Clang, the fallback branch is taken",
    fix="Use __HIP_DEVICE_COMPILE__ for the host/device split and __gfx942__-style macros or arch feature flags "
        "for features.",
    effort=(0.5, 2),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html#device-code-feature-identification",
    ),
)
NODE = None
ANCHOR = words("__CUDA_ARCH__")


def check(node, ctx):
    cmp = ancestor(node, "binary_expression", limit=3)
    if cmp is None or ancestor(node, ("preproc_if", "preproc_elif"), limit=8) is None:
        return []
    op = cmp.child_by_field_name("operator")
    if op is None or op.type not in (">=", ">", "<", "<=", "==", "!="):
        return []
    return [Hit(cmp, HIGH, f"`{text(cmp)}`")]
