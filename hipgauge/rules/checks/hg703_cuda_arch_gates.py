"""HG703: numeric `__CUDA_ARCH__` feature gates.

What it does
------------
Flags `#if`/`#elif` conditions that compare `__CUDA_ARCH__` with a number. Low confidence when the same
condition also tests a name only the HIP build defines (`(__CUDA_ARCH__ >= 300) || defined(__HIP_PLATFORM_AMD__)`,
`!defined(USE_ROCM)`): the project states the HIP build's side there.

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

import re

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import HIGH, LOW, Hit
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


#: names only the HIP build defines: a guard that tests one of them beside ``__CUDA_ARCH__`` states the HIP build's side
_HIP_NAMED = re.compile(r"\b(?:__HIP_PLATFORM_(?:AMD|HCC)__|__HIPCC__|__HIP__|__HIP_DEVICE_COMPILE__|USE_ROCM|"
                        r"HIP_VERSION(?:_MAJOR|_MINOR)?|ROCM_VERSION|__gfx\w+__|__GFX\d+__)\b")


def check(node, ctx):
    cmp = ancestor(node, "binary_expression", limit=3)
    directive = ancestor(node, ("preproc_if", "preproc_elif"), limit=8)
    if cmp is None or directive is None:
        return []
    op = cmp.child_by_field_name("operator")
    if op is None or op.type not in (">=", ">", "<", "<=", "==", "!="):
        return []
    cond = directive.child_by_field_name("condition")
    named = _HIP_NAMED.search(text(cond)) if cond is not None else None
    if named is not None:
        return [Hit(cmp, LOW, f"`{text(cmp)}` in a guard that also tests `{named.group(0)}`: the HIP build's side "
                              "is stated by the project, not a silent fallback")]
    return [Hit(cmp, HIGH, f"`{text(cmp)}`")]
