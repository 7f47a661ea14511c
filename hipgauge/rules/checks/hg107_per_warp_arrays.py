"""HG107: per-warp shared arrays and warp counts computed with 32.

What it does
------------
Flags `__shared__` arrays with a dimension of exactly 32 (high confidence when the array is indexed
by a warp or lane id in the same function) and warp counts derived from `blockDim` with `/ 32` or
`>> 5`.

Why is this bad?
----------------
A block has `blockDim / 64` wavefronts on CDNA. Scratch sized or counted for 32-lane warps is half
unused, and code that reads one slot per "warp" reads slots no wave wrote (vLLM's MoE kernel read
uninitialised shared memory this way on ROCm).

Example
-------
```cuda
__global__ void k(float* out) {
    __shared__ float partial[32];
    int warp = threadIdx.x / warpSize;
    partial[warp] = 1.f;
    out[0] = partial[0];
}
```

Use instead
-----------
```cuda
#define MAX_WARPS 16
__global__ void k(float* out) {
    __shared__ float partial[MAX_WARPS];
    int warp = threadIdx.x / warpSize;
    partial[warp] = 1.f;
    out[0] = partial[0];
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import any_of, words
from hipgauge.rules.hit import HIGH, LOW, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import descendants, text

CODE = "HG107"
RULE = RuleMeta(
    title="Per-warp shared arrays / warp counts computed with 32",
    category="warp",
    severity="wrong-results",
    message="per-warp storage or warp count derived from 32-lane warps",
    fix="Compute nwarps = ceil(blockDim / warpSize); size per-warp scratch for the worst case; index with "
        "threadIdx.x / warpSize.",
    effort=(0.5, 2),
    sources=(
        "https://github.com/vllm-project/vllm/pull/12789",
        "https://github.com/pytorch/pytorch/pull/33098",
    ),
)
NODE = ("declaration", "binary_expression")
ANCHOR = any_of(words("__shared__"), rb"/\s*32[uU]?\b", rb">>\s*5[uU]?\b")


def _array_dims(decl):
    for d in decl.children_by_field_name("declarator"):
        for arr in descendants(d, "array_declarator"):
            size = arr.child_by_field_name("size")
            name = arr
            while name is not None and name.type == "array_declarator":
                name = name.child_by_field_name("declarator")
            yield (text(name) if name is not None else "", size)


def check(node, ctx):
    if node.type == "binary_expression":
        op, left, right = (node.child_by_field_name(f) for f in ("operator", "left", "right"))
        if op is None or left is None or right is None or right.type != "number_literal":
            return []
        if (op.type, ctx.fold(right)) in (("/", 32), (">>", 5)) and "blockDim" in text(left):
            return [Hit(node, HIGH, f"warp count `{text(node)}`")]
        return []
    if not any(c.type == "type_qualifier" and text(c) == "__shared__" for c in node.children):
        return []
    fn = ctx.function_of(node)
    body = text(fn) if fn is not None else ctx.pf.text
    for name, size in _array_dims(node):
        if size is not None and size.type == "number_literal" and ctx.fold(size) == 32:
            idx = re.compile(r"\b" + re.escape(name) + r"\s*\[\s*(?:warp|lane|wid|warp_?id|warpId|lane_?id|laneId)\w*\s*\]")
            if idx.search(body):
                return [Hit(node, HIGH, f"`{name}[32]` indexed by warp/lane id")]
            return [Hit(node, LOW, f"`{name}[32]` may be a tile size, not a warp count")]
    return []
