"""HG106: shuffle reductions and scans sized for 32 lanes.

What it does
------------
Flags a loop around a `__shfl*` call that starts at offset 16 and halves (`o = 16; o > 0;
o >>= 1`) or doubles up to 32 (`o < 32; o *= 2`), the same ladder unrolled by hand (a `__shfl_xor`/
`__shfl_down` with offset 16 next to one with offset 8). Not reported: a shuffle given an explicit width that
is 32 (`__shfl_xor_sync(m, v, o, 32)`, or a name defined as 32): the width keeps the exchange inside aligned
32-lane groups on a 64-lane wavefront too, so a reduction over a deliberate 32-lane group stays correct; and a
ladder that stops before offset 1 (`o = 16; o >= 4`): a partial reduction over the lanes of one tile row (a
matrix-fragment layout), not a warp-wide sum. A ladder whose width is a name this file does not define
(`WARP_SIZE` from another header) is reported with low confidence: listed for review, no hours. So is an XOR
ladder whose body tests the lane's bit of the offset (`t & i` picks a sign, as in exllamav2's 32-point Hadamard
transform in cache_q.cuh): that is a butterfly *transform* over a fixed group of 32 elements, and on a 64-lane
wavefront an XOR with a lane mask below 32 stays inside each half, so each half transforms its own group: correct
when the data's group is 32 by design, wrong only when the group was meant to be the warp.

Why is this bad?
----------------
A butterfly that starts at 16 only combines lanes within each 32-lane half of a 64-lane
wavefront: every lane ends with the sum of its half, not of the wave. The kernel computes
plausible but wrong numbers (llama.cpp and exllamav2 shipped exactly this on MI GPUs).

Example
-------
```cuda
__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(__activemask(), v, o);
    return v;
}
```

Use instead
-----------
```cuda
__device__ float warp_sum(float v) {
    for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor_sync(__activemask(), v, o);
    return v;
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import HIGH, LOW, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import ancestor, call_args, call_name, text

CODE = "HG106"
RULE = RuleMeta(
    title="Shuffle reduction/scan sized for 32 lanes",
    category="warp",
    severity="wrong-results",
    message="shuffle reduction/scan covers 32 lanes, not the whole wavefront",
    fix="Start at warpSize/2 with width warpSize, or keep 32-lane logical groups on purpose and combine both "
        "halves.",
    effort=(0.5, 2),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warp-shuffle-functions",
        "https://github.com/turboderp-org/exllamav2/pull/137",
        "https://github.com/ggml-org/llama.cpp/issues/3630",
    ),
)
NODE = "call_expression"
ANCHOR = words(r"__shfl\w*")
_HALVING = re.compile(r"(>>=\s*1\b|/=\s*2\b|=\s*\w+\s*(?:>>\s*1|/\s*2)\b)")
_DOUBLING = re.compile(r"(<<=\s*1\b|\*=\s*2\b)")
#: ``o >= 4``, ``o > 2``: the ladder stops before offset 1 (lanes of one tile row, not the warp)
_STOPS_EARLY = re.compile(r">=\s*(?:[2-9]|\d\d+)\b|>\s*(?:[1-9]|\d\d+)\b")
_BUTTERFLY = re.compile(r"__shfl_(?:xor|down)(?:_sync)?$")
_LOOP_VAR = re.compile(r"(\w+)\s*=[^=]")


def _tests_lane_bit(loop, init_t: str, name: str) -> bool:
    """Whether an XOR ladder's body masks something with the loop's offset (``t & i``): the lane's bit of the
    offset picks how the pair combines, a butterfly transform over a fixed group rather than a reduction."""
    var = _LOOP_VAR.search(init_t)
    if not name.startswith("__shfl_xor") or var is None:
        return False
    body = text(loop.child_by_field_name("body"))
    v = re.escape(var.group(1))
    return re.search(rf"[\w)\]]\s*&\s*{v}\b|\b{v}\s*&(?!&)", body) is not None


def check(node, ctx):
    name = call_name(node)
    args = call_args(node)
    hits = []
    width_index = 3 if name.endswith("_sync") else 2
    width = ctx.fold(args[width_index]) if len(args) > width_index else None
    if width == 32:
        return []  # an explicit width 32 keeps the exchange inside 32-lane groups on wave64 too (deliberate)
    # a width given by a name this file does not define (WARP_SIZE from another header): if it is 32, the group is
    # deliberate; the ladder is reported for review, not as a defect
    conf = LOW if len(args) > width_index and width is None else HIGH
    why = f" (width `{text(args[width_index])}`: a deliberate 32-lane group if it is 32)" if conf is LOW else ""
    loop = ancestor(node, "for_statement", limit=8)
    if loop is not None:
        init = loop.child_by_field_name("initializer")
        cond = loop.child_by_field_name("condition")
        update = loop.child_by_field_name("update")
        init_t, cond_t, upd_t = text(init), text(cond), text(update)
        if conf is HIGH and _tests_lane_bit(loop, init_t, name):
            conf = LOW
            why = "; the lane's bit of the offset picks the combination: a transform over a 32-element group, " \
                  "deliberate if the data's group is 32"
        if re.search(r"=\s*16\s*$", init_t.rstrip(";").strip()) and _HALVING.search(upd_t) \
                and not _STOPS_EARLY.search(cond_t):
            hits.append(Hit(loop, conf, "butterfly starts at offset 16" + why))
        elif re.search(r"<=?\s*(?:32|31)\b", cond_t) and _DOUBLING.search(upd_t):
            hits.append(Hit(loop, conf, "scan stops at 32 lanes" + why))
    elif _BUTTERFLY.match(name) and len(args) > width_index - 1 and ctx.fold(args[width_index - 1]) == 16:
        # an unrolled ladder: the 16-step here and an 8-step next to it in the same function
        fn = ctx.function_of(node)
        body = text(fn) if fn is not None else ""
        if re.search(r"__shfl_(?:xor|down)(?:_sync)?\s*\([^;]*?,\s*8\s*[,)]", body):
            hits.append(Hit(node, conf, "unrolled butterfly starts at offset 16" + why))
    return hits
