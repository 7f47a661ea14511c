"""HG107: per-warp shared arrays and warp counts computed with 32.

What it does
------------
Flags `__shared__` arrays with a dimension of exactly 32 that are read at a lane id in the same function
(`partial[lane]`: one slot per warp read back by the lanes of one warp) while the warp id that writes them
comes from the hardware warp size (`threadIdx.x / warpSize`), and warp counts derived from `blockDim` with
`/ 32` or `>> 5`. An array written only at a warp id is not reported: a 64-lane wavefront means fewer warps
per block, so 32 slots still suffice. An array whose warp and lane ids both come from the same 32
(`tid / WARP_SIZE`, `tid % WARP_SIZE`, `>> 5` and `& 31`) serves 32-lane logical warps consistently and is
reported with low confidence (the 32 is HG101's question), as is one not indexed by a warp or lane id here
(handed to a helper, or a tile size): listed for review, no hours. So is a `blockDim.x >> 5` in a function
whose warp-level exchanges all go through cooperative-group tiles of 32 (`tiled_partition<32>`): it counts the
block's 32-thread tiles, which is right on wave64 too.

Why is this bad?
----------------
A block has `blockDim / 64` wavefronts on CDNA. Scratch sized or counted for 32-lane warps is half
unused, and code that reads one slot per "warp" reads slots no wave wrote (vLLM's MoE kernel read
uninitialised shared memory this way on ROCm).

Example
-------
```cuda
__global__ void k(float* out, float v) {
    __shared__ float partial[32];
    int warp = threadIdx.x / warpSize;
    int lane = threadIdx.x % 32;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    out[threadIdx.x] = partial[lane];
}
```

Use instead
-----------
```cuda
__global__ void k(float* out, float v) {
    __shared__ float partial[32];
    int warp = threadIdx.x / warpSize;
    int lane = threadIdx.x % warpSize;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    out[threadIdx.x] = lane < blockDim.x / warpSize ? partial[0] : 0.f;
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import any_of, tiles_of_32, words
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


#: a warp or lane id from the hardware warp size (64 on CDNA): ``threadIdx.x / warpSize``
_PHYSICAL_WIDTH = re.compile(r"\b(?:lane|wid|warp)\w*\s*=\s*[^;]*\b(?:warpSize|physical_warp_size\w*|"
                             r"__AMDGCN_WAVEFRONT_SIZE|hipDeviceAttributeWarpSize)\b")


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
            if (tile := tiles_of_32(node, ctx)) is not None:
                size = f"tiles of `{tile}` (a name from another header: consistent if it is 32)" if tile \
                    else "32-thread cooperative-group tiles (consistent on wave64)"
                return [Hit(node, LOW, f"tile count `{text(node)}` in a function that exchanges only through {size}")]
            return [Hit(node, HIGH, f"warp count `{text(node)}`")]
        return []
    if not any(c.type == "type_qualifier" and text(c) == "__shared__" for c in node.children):
        return []
    fn = ctx.function_of(node)
    body = text(fn) if fn is not None else ctx.pf.text
    for name, size in _array_dims(node):
        if size is not None and size.type == "number_literal" and ctx.fold(size) == 32:
            by_lane = re.compile(r"\b" + re.escape(name) + r"\s*\[\s*(?:lane|lane_?id|laneId)\w*\s*\]")
            by_warp = re.compile(r"\b" + re.escape(name) + r"\s*\[\s*(?:warp|wid|warp_?id|warpId)\w*\s*\]")
            if by_lane.search(body):
                if _PHYSICAL_WIDTH.search(body):
                    return [Hit(node, HIGH, f"`{name}[32]` written per hardware warp, read at a lane id")]
                return [Hit(node, LOW, f"`{name}[32]` read at a lane id; its warp and lane ids use the same 32 "
                                       "(32-lane logical warps: consistent on wave64)")]
            if by_warp.search(body):
                return []  # written per warp only: fewer (64-lane) warps on AMD still fit in 32 slots
            return [Hit(node, LOW, f"`{name}[32]` may be a tile size, not a warp count")]
    return []
