"""HG101: lane or warp index computed with a hard-coded warp width of 32.

What it does
------------
Flags, in device code, `x & 31`, `x % 32`, `x >> 5` and `x / 32` where `x` is a thread index
(`threadIdx`, a `lane`/`tid`/`warp` value), `threadIdx.x < 32` / `>= 32` (the first warp), and anywhere a
`WARP_SIZE`-style macro or constant defined as 32. In a kernel whose block is at most 64 threads by
construction (`__launch_bounds__(64)`, or every launch in the file with block 64), `tid / 32` and `tid % 32`
index a data layout inside one wavefront and are not reported. Bit packing and block math are not reported: a
shift or mask on a value that is itself masked or shifted (`(qh >> 5) & 0x00001000`), and a 32 that divides a
named quantity (`QK_K / 32`, `MMQ_TILE_NE_K / 32`: a data block size, not a warp). The same arithmetic on other
unrelated values is reported with low confidence, and so is a thread index split by 32 in a function that does
nothing warp-synchronous (no shuffle, vote, warp sync or warp-reduce helper): there a group of 32 threads is a
data layout that is as correct on a 64-lane wavefront (`n = tid / 32` picks one half of a 64-value block), and
one in a file whose every shuffle passes an explicit width of 32 (`__shfl_xor_sync(m, v, 16, 32)`, PyTorch's
`WARP_SHFL(v, lane, 32)`: 32-lane logical warps on purpose, which a 64-lane wavefront runs as two aligned
groups), and one in a function that makes its warp-level exchanges only
through cooperative-group tiles of 32 (`cg::thread_block_tile<32> g = cg::tiled_partition<32>(b)` and
`g.shfl_xor`, no raw `__shfl`, as DeepSpeed's quantizer and softmax kernels do): the 32 is the tile's, and HIP
runs a 32-thread tile as half of a 64-lane wavefront (a tile size named in another header,
`tiled_partition<WARP_SIZE>`, is taken the same way: the tile's arithmetic if that name is 32).
Low-confidence findings are listed for review and cost no hours (docs/cost-model.md).
In a `#define` body (`#define LANE (threadIdx.x & 31)`) the left operand is read lexically; only
thread-index operands are reported there, with medium confidence.

Why is this bad?
----------------
AMD CDNA GPUs (MI200, MI300) run 64-lane wavefronts. `threadIdx.x & 31` maps lanes 32-63 onto
lanes 0-31 and `threadIdx.x >> 5` counts twice as many warps as exist: reductions and per-warp
slots silently mix data. hipify leaves these literals untouched.

Example
-------
```cuda
__global__ void k(float* out, float v) {
    int lane = threadIdx.x & 31;
    v += __shfl_down(v, 1);
    if (lane == 0) out[threadIdx.x] = v;
}
```

Use instead
-----------
```cuda
__global__ void k(float* out, float v, const unsigned* qh) {
    int lane = threadIdx.x % warpSize;
    v += __shfl_down(v, 1);
    if (lane == 0) out[threadIdx.x] = v + ((qh[0] >> 5) & 0x00001000) + QK_K / 32;
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._blocksize import fixed_block_threads
from hipgauge.rules.checks._common import any_of, tiles_of_32, words
from hipgauge.rules.hit import HIGH, LOW, Hit
from hipgauge.rules.macrobody import left_operand
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import call_text_args, text

CODE = "HG101"
RULE = RuleMeta(
    title="Hard-coded warp width 32",
    category="warp",
    severity="wrong-results",
    message="lane/warp arithmetic assumes 32-lane warps",
    fix="Use warpSize (device) or hipDeviceAttributeWarpSize (host); template kernels on the warp size; keep "
        "genuine bit-packing 32s apart.",
    effort=(0.5, 2),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warpsize",
        "https://github.com/ggml-org/llama.cpp/issues/3630",
        "https://github.com/ORNL/HeCBench/issues/167",
    ),
)
NODE = ("binary_expression", "preproc_def", "init_declarator")
# text anchors start with a literal byte (the engine finds them with one fast-skipping regex)
ANCHOR = any_of(rb"&\s*(?:31|0x1[fF])[uU]?\b", rb"%\s*32[uU]?\b", rb">>\s*5[uU]?\b", rb"/\s*32[uU]?\b",
                rb"<\s*32[uU]?\b", rb">=\s*32[uU]?\b", words(r"[A-Za-z]{0,3}_?[Ww][Aa][Rr][Pp]_?[Ss][Ii][Zz][Ee]\w*"))

_OPS = {"&": {31}, "%": {32}, ">>": {5}, "/": {32}, "<": {32}, ">=": {32}}
_COMPARE = ("<", ">=")  # ``threadIdx.x < 32``: "the first warp"
_THREAD_INDEX = re.compile(r"threadIdx|\btid\b")
_THREADISH = re.compile(r"threadIdx|\blane|[Ll]ane_?[Ii]d|\btid\b|\bwarp|[Ww]arp_?[Ii]d|\bwid\b|laneid")
_WARP_NAME = re.compile(r"(?i)warp_?size")
_WARPISH = re.compile(r"(?i)lane|warp|\bwid\b")
#: what makes a group of 32 threads a warp: a shuffle, vote, warp sync, warp-level primitive or warp-reduce helper
_WARP_OP = re.compile(r"__shfl|__ballot|__any(?:_sync)?\s*\(|__all(?:_sync)?\s*\(|__activemask|__syncwarp|__match_|"
                      r"__reduce_\w+_sync|__lane_id|tiled_partition|thread_block_tile|coalesced_group|cub::Warp|"
                      r"(?i:\w*warp\w*)\s*[<(]")
#: a named quantity (``QK_K``, ``MMQ_TILE_NE_K``): upper-case, not a warp-size name
_NAMED_QUANTITY = re.compile(r"^\(?\s*[A-Z][A-Z0-9_]*\s*\)?$")


def _bit_packing(node, left) -> bool:
    """``(qh >> 5) & 0x00001000``, ``x[i] >> 5`` inside a masked expression: a shift/mask of packed bits."""
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    if parent is not None and parent.type == "binary_expression":
        pop = parent.child_by_field_name("operator")
        other = parent.child_by_field_name("right")
        if pop is not None and pop.type in ("&", "|", "^", "<<", ">>") and other is not None and other.type == "number_literal" \
                and other.id != node.id:
            return True
    return False


def _warp_synchronous(node, ctx) -> bool:
    fn = ctx.function_of(node)
    return fn is None or bool(_WARP_OP.search(re.sub(r"//[^\n]*|/\*.*?\*/", " ", text(fn), flags=re.S)))


#: CUDA's shuffles, and PyTorch's ``WARP_SHFL*`` helpers (ATen/cuda/DeviceUtils.cuh: value, lane, width, mask)
_SHUFFLE = re.compile(r"\b(?:__shfl(?:_up|_down|_xor)?(?:_sync)?|WARP_SHFL(?:_UP|_DOWN|_XOR)?)\s*\(")


def _logical_warps_of_32(ctx) -> bool:
    """Every shuffle of the file passes an explicit width of 32 (``__shfl_xor_sync(m, v, 16, 32)``): the file works
    in 32-lane logical warps on purpose, which a 64-lane wavefront runs as two aligned groups."""
    src = getattr(ctx.pf, "text", "") or ""
    calls = list(_SHUFFLE.finditer(src))
    if not calls:
        return False
    for m in calls:
        args = call_text_args(src, m.end() - 1)
        width_at = 3 if "_sync" in m.group(0) and m.group(0).startswith("__") else 2
        if len(args) <= width_at or ctx.fold(args[width_at]) != 32:
            return False
    return True


def check(node, ctx):
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        right = node.child_by_field_name("right")
        left = node.child_by_field_name("left")
        if op is None or right is None or left is None or right.type != "number_literal":
            return []
        if ctx.fold(right) not in _OPS.get(op.type, ()) or not ctx.in_device_code(node):
            return []
        lhs = text(left)
        if "blockDim" in lhs:
            return []  # warp counts from blockDim are HG107
        if not _THREADISH.search(lhs) and (_NAMED_QUANTITY.match(lhs) or _bit_packing(node, left)):
            return []  # QK_K / 32 (a data block size), (qh >> 5) & 0x1000 (bit packing): no warp
        if _THREAD_INDEX.search(lhs) and not _WARPISH.search(lhs):
            block = fixed_block_threads(ctx, node)
            if block is not None and block <= 64:
                return []  # a data layout in a block of at most 64 threads (one wavefront), not a warp index
        if op.type in _COMPARE:
            if not _THREADISH.search(lhs):
                return []
            return [Hit(node, HIGH, f"`{text(node)}` selects the first 32 threads as one warp")]
        if _THREADISH.search(lhs):
            if _logical_warps_of_32(ctx):
                return [Hit(node, LOW, f"`{text(node)}` in a file whose every shuffle passes width 32 (32-lane "
                                       "logical warps, kept on wave64 as two aligned groups)")]
            if (tile := tiles_of_32(node, ctx)) is not None:
                size = f"tiles of `{tile}` (a name from another header: tile arithmetic if it is 32)" if tile \
                    else "32-thread cooperative-group tiles (tile arithmetic: HIP runs such a tile as half a wavefront)"
                return [Hit(node, LOW, f"`{text(node)}` in a function that exchanges only through {size}")]
            if not _warp_synchronous(node, ctx):
                return [Hit(node, LOW, f"`{text(node)}` groups threads by 32, but nothing in this function is "
                                       "warp-synchronous (no shuffle, vote or warp sync)")]
            return [Hit(node, HIGH, f"`{text(node)}`")]
        return [Hit(node, LOW, f"`{text(node)}` may be algorithmic, not a warp width")]
    if node.type == "preproc_def":
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        value_text = re.sub(r"//.*|/\*.*?\*/", " ", text(value) if value is not None else "", flags=re.S).strip()
        if name is not None and value is not None and _WARP_NAME.search(text(name)) and ctx.fold(value_text) == 32:
            return [Hit(node, HIGH, f"`{text(name)}` defined as 32")]
        return []
    # init_declarator: constexpr int kWarpSize = 32;
    name, value = node.child_by_field_name("declarator"), node.child_by_field_name("value")
    if name is not None and value is not None and value.type == "number_literal" \
            and _WARP_NAME.search(text(name)) and ctx.fold(value) == 32:
        return [Hit(node, HIGH, f"`{text(name)}` initialised to 32")]
    return []


_OP_TEXT = re.compile(rb"(&|%|>>|/)\s*(31|0x1[fF]|32|5)[uU]?$")  # not < / >=: a macro's comparison is rarely a warp


def check_macro(body, at, end, macro, ctx):
    """``x & 31`` / ``x % 32`` / ``x >> 5`` / ``x / 32`` in a ``#define`` body, ``x`` a thread index."""
    m = _OP_TEXT.match(body[at:end])
    if m is None or ctx.fold(m.group(2).decode()) not in _OPS.get(m.group(1).decode(), ()):
        return []
    lhs = left_operand(body, at, macro.body_start - macro.start)
    if "blockDim" in lhs or not _THREADISH.search(lhs):
        return []
    start = body.rfind(lhs.encode("latin-1"), 0, at)
    return [(start if start >= 0 else at, f"`{lhs} {body[at:end].decode('latin-1')}`")]
