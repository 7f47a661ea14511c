"""HG102: a ballot / activemask / match result stored in a 32-bit integer.

What it does
------------
Flags `__ballot_sync`, `__ballot`, `__activemask` and `__match_*_sync` results assigned to, or
initialising, an `int`/`unsigned`/`uint32_t` variable (or cast to one).

Why is this bad?
----------------
HIP's ballot and activemask return a 64-bit `unsigned long long` (one bit per lane of a 64-lane
wavefront). Narrowing it to 32 bits silently drops lanes 32-63: counts and prefix sums come out
wrong with no compiler error.

Example
-------
```cuda
__global__ void k(const float* x, int* out) {
    unsigned int m = __ballot_sync(__activemask(), x[threadIdx.x] > 0.f);
    out[threadIdx.x] = m != 0;
}
```

Use instead
-----------
```cuda
__global__ void k(const float* x, int* out) {
    unsigned long long m = __ballot_sync(__activemask(), x[threadIdx.x] > 0.f);
    out[threadIdx.x] = m != 0;
}
```
"""

from __future__ import annotations

from hipgauge.rules.syntax import parent as parent_of

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import HIGH, MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import THIRTY_TWO_BIT_TYPES, call_name, declared_type, text

CODE = "HG102"
RULE = RuleMeta(
    title="Ballot/activemask result narrowed to 32 bits",
    category="warp",
    severity="wrong-results",
    message="ballot/activemask mask stored in a 32-bit integer",
    fix="Store masks in unsigned long long / uint64_t (or a lane-mask typedef chosen per target).",
    effort=(0.25, 1),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warp-vote-and-ballot-functions",
        "https://github.com/desul/desul/pull/38",
        "https://github.com/ORNL/HeCBench/issues/177",
    ),
)
NODE = ("init_declarator", "assignment_expression")
ANCHOR = words("__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync")
_MASKERS = {"__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync"}


def _mask_call(value) -> tuple[bool, str]:
    """(is a mask-producing call, explicit cast type)."""
    cast = ""
    while value is not None and value.type in ("parenthesized_expression", "cast_expression"):
        if value.type == "cast_expression":
            cast = " ".join(text(value.child_by_field_name("type")).split())
            value = value.child_by_field_name("value")
        else:
            value = value.named_children[0] if value.named_children else None
    return (value is not None and value.type == "call_expression" and call_name(value) in _MASKERS), cast


def check(node, ctx):
    if node.type == "init_declarator":
        is_mask, cast = _mask_call(node.child_by_field_name("value"))
        decl = parent_of(node)
        if not is_mask or decl is None:
            return []
        t = cast or declared_type(decl)
        if t in THIRTY_TWO_BIT_TYPES:
            return [Hit(node, HIGH, f"stored as `{t}`")]
        return []
    is_mask, cast = _mask_call(node.child_by_field_name("right"))
    left = node.child_by_field_name("left")
    if not is_mask or left is None:
        return []
    if cast in THIRTY_TWO_BIT_TYPES:
        return [Hit(node, HIGH, f"cast to `{cast}`")]
    t = ctx.type_of(text(left), node) if left.type == "identifier" else None
    if t in THIRTY_TWO_BIT_TYPES:
        return [Hit(node, MEDIUM, f"`{text(left)}` is `{t}`")]
    return []
