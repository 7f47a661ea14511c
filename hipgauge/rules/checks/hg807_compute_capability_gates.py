"""HG807: feature gating on compute capability (`major`/`minor`).

What it does
------------
Flags comparisons of a device-properties `.major`/`.minor` field with a number, and the
`cudaDevAttrComputeCapabilityMajor/Minor` attributes.

Why is this bad?
----------------
On AMD `major`/`minor` encode the gfx version (9/4 for gfx942), so `major >= 8` picks a path meant
for Ampere. Gate on `hipDeviceProp_t::arch` flags or `gcnArchName` instead.

Example
-------
```cuda
bool has_tf32(const cudaDeviceProp& prop) {
    return prop.major >= 8;
}
```

Use instead
-----------
```cuda
bool has_feature(const cudaDeviceProp& prop) {
    return prop.sharedMemPerBlock >= 65536;
}
```
"""

from __future__ import annotations

from hipgauge.rules.syntax import parent as parent_of

from hipgauge.rules.checks._common import any_of, named_usage, words
from hipgauge.rules.hit import HIGH, MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text
from hipgauge.rules.syntax import ancestor

CODE = "HG807"
RULE = RuleMeta(
    title="Compute-capability feature gates",
    category="api",
    severity="wrong-results",
    message="compute-capability check selects the wrong path on AMD",
    fix="Gate on hipDeviceProp_t::arch feature flags or gcnArchName.",
    effort=(0.25, 1),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html#host-code-feature-identification",
    ),
)
NODE = None
ANCHOR = any_of(rb"\.\s*(?:major|minor)\b", words(r"cudaDevAttrComputeCapability(?:Major|Minor)"))


def check(node, ctx):
    if node.type == "identifier":
        return named_usage(node, ctx, MEDIUM)
    fe = ancestor(node, "field_expression", limit=2)
    if fe is None:
        return []
    parent = parent_of(fe)
    if parent is None or parent.type != "binary_expression":
        return []
    op = parent.child_by_field_name("operator")
    other = parent.child_by_field_name("right") if parent.child_by_field_name("left") == fe else parent.child_by_field_name("left")
    if op is None or op.type not in (">=", ">", "<", "<=", "==", "!=") or other is None or other.type != "number_literal":
        return []
    return [Hit(parent, HIGH, f"`{text(parent)}`")]
