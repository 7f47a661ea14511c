"""HG806: runtime enums compared by value (`cudaMemoryType`).

What it does
------------
Flags `cudaMemoryType*` values used in comparisons or `case` labels, and `cudaPointerGetAttributes`.

Why is this bad?
----------------
`hipMemoryType` values differ from `cudaMemoryType` (there is no Unregistered) and before HIP 7.0
`hipGetLastError` returned the last call's status; value-based checks pick the wrong branch.

Example
-------
```cuda
bool on_device(const void* p) {
    cudaPointerAttributes a;
    cudaPointerGetAttributes(&a, p);
    return a.type == cudaMemoryTypeDevice;
}
```

Use instead
-----------
```cuda
bool on_device(const void* p) {
    return p != nullptr;
}
```
"""

from __future__ import annotations

from hipgauge.rules.syntax import parent as parent_of

from hipgauge.rules.checks._common import usage, words
from hipgauge.rules.hit import LOW, MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text

CODE = "HG806"
RULE = RuleMeta(
    title="Runtime enums compared by value",
    category="api",
    severity="wrong-results",
    message="runtime enum compared by value; HIP's values differ",
    fix="Compare enums by name after hipify, never by number; require ROCm >= 7.0 or audit error handling.",
    effort=(0.25, 1),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html#memory-type-identification",
    ),
)
NODE = None
ANCHOR = words(r"cudaMemoryType\w+", "cudaPointerGetAttributes")


def check(node, ctx):
    name = text(node)
    if name == "cudaPointerGetAttributes":
        return usage(node, ctx, LOW, "check how the result is compared")
    parent = parent_of(node)
    if parent is not None and (parent.type == "case_statement" or
            (parent.type == "binary_expression" and parent.child_by_field_name("operator") is not None
             and parent.child_by_field_name("operator").type in ("==", "!="))):
        return [Hit(node, MEDIUM, f"`{name}` compared by value")]
    return []
