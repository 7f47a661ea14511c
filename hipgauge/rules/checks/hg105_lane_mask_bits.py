"""HG105: 32-bit bit operations on lane masks and lane ids.

What it does
------------
Flags `__popc`, `__ffs`, `__clz`, `__brev` and `__fns` applied to a ballot/activemask result
(directly or through a variable assigned from one), and `1 << lane` / `1u << lane` in device code.

Why is this bad?
----------------
With 64 lanes a lane id reaches 63 and masks are 64-bit. `__popc` and `__ffs` look at the low 32
bits only, and `1u << lane` is undefined for lane >= 32: counts and prefix offsets are wrong for the
upper half of the wavefront.

Example
-------
```cuda
__global__ void k(const int* p, int* out) {
    unsigned long long m = __ballot_sync(__activemask(), p[threadIdx.x] > 0);
    out[threadIdx.x] = __popc(m);
}
```

Use instead
-----------
```cuda
__global__ void k(const int* p, int* out) {
    unsigned long long m = __ballot_sync(__activemask(), p[threadIdx.x] > 0);
    out[threadIdx.x] = __popcll(m);
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import DEVICE_CODE, any_of, words
from hipgauge.rules.hit import HIGH, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import call_args, call_name, descendants, text

CODE = "HG105"
RULE = RuleMeta(
    title="32-bit bit operations on lane masks / lane ids",
    category="warp",
    severity="wrong-results",
    message="32-bit popc/ffs/shift on a 64-lane mask or lane id",
    fix="Use __popcll/__ffsll/__clzll, 1ull << lane or __lanemask_lt(); typedef the mask type.",
    effort=(0.25, 1),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html#lane-masks-bit-shift",
        "https://github.com/ORNL/HeCBench/issues/177",
    ),
)
REQUIRES = DEVICE_CODE  # fires in device code only: a file without __global__/__device__ is not even parsed
NODE = ("call_expression", "binary_expression")
ANCHOR = any_of(words("__popc", "__ffs", "__clz", "__brev", "__fns"), rb"1(?<!\w1)[uU]?\s*<<")  # `\b1`, written to start with a literal byte
_MASK_CALL = re.compile(r"__(?:ballot|activemask|match_any|match_all|lanemask)")
_LANE = re.compile(r"(?i)lane|threadIdx\.x\s*[%&]")


def _assigned_from_mask(name: str, fn, ctx) -> bool:
    if fn is None:
        return False
    rx = re.compile(r"\b" + re.escape(name) + r"\s*=\s*(?:\([^)]*\)\s*)?__(?:ballot|activemask|match_any|match_all)")
    return bool(rx.search(text(fn)))


def check(node, ctx):
    if not ctx.in_device_code(node):
        return []
    if node.type == "call_expression":
        if call_name(node) not in ("__popc", "__ffs", "__clz", "__brev", "__fns"):
            return []
        args = call_args(node)
        if not args:
            return []
        arg = args[0]
        if _MASK_CALL.search(text(arg)):
            return [Hit(node, HIGH, f"`{call_name(node)}` on a ballot mask")]
        fn = ctx.function_of(node)
        for ident in descendants(arg, "identifier"):
            if _assigned_from_mask(text(ident), fn, ctx):
                return [Hit(node, HIGH, f"`{call_name(node)}({text(ident)})`: `{text(ident)}` holds a ballot mask")]
        return []
    op, left, right = (node.child_by_field_name(f) for f in ("operator", "left", "right"))
    if op is not None and op.type == "<<" and left is not None and re.fullmatch(r"1[uU]?", text(left)) \
            and right is not None and _LANE.search(text(right)):
        return [Hit(node, HIGH, f"`{text(node)}` is undefined for lanes 32-63")]
    return []
