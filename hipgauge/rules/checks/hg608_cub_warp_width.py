"""HG608: CUB warp primitives with an implicit warp width.

What it does
------------
Flags `cub::WarpReduce`, `WarpScan`, `WarpLoad`, `WarpStore` and `WarpExchange` instantiated without
an explicit logical warp size.

Why is this bad?
----------------
hipCUB/rocPRIM default the logical warp to the hardware wavefront (64 on CDNA): temp-storage sizes
and which lanes take part change (bitsandbytes' GEMV gave ~50% mismatches on MI300X this way).

Example
-------
```cuda
__global__ void k(const float* x, float* out) {
    typedef cub::WarpReduce<float> WarpReduce;
    __shared__ typename WarpReduce::TempStorage tmp;
    out[0] = WarpReduce(tmp).Sum(x[threadIdx.x]);
}
```

Use instead
-----------
```cuda
__global__ void k(const float* x, float* out) {
    typedef cub::WarpReduce<float, 32> WarpReduce;
    __shared__ typename WarpReduce::TempStorage tmp;
    out[0] = WarpReduce(tmp).Sum(x[threadIdx.x]);
}
```
"""

from __future__ import annotations

from hipgauge.rules.hit import HIGH, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import ancestor, descendants, text

CODE = "HG608"
RULE = RuleMeta(
    title="CUB warp primitives with implicit warp width",
    category="library",
    severity="wrong-results",
    message="CUB warp primitive without an explicit logical warp size",
    fix="Pass the logical warp size explicitly; derive sizes from rocprim::device_warp_size().",
    effort=(0.5, 2),
    rubric=("covered-library",),
    sources=(
        "https://github.com/ROCm/bitsandbytes/pull/93",
    ),
)
NODE = None
ANCHOR = rb"\bcub\s*::\s*Warp(?:Reduce|Scan|Load|Store|Exchange)\b"


def check(node, ctx):
    tt = ancestor(node, "qualified_identifier", limit=2)
    tmpl = next((d for d in descendants(tt, "template_type")), None) if tt is not None else None
    args = tmpl.child_by_field_name("arguments") if tmpl is not None else None
    if args is None:
        return []
    if len([c for c in args.named_children if c.type != "comment"]) == 1:
        return [Hit(tt, HIGH, f"`{text(tmpl)}` has no explicit logical warp size")]
    return []
