"""HG111: host-side warp width 32 sizing the launch of a warp-level kernel.

What it does
------------
Flags a triple-chevron launch whose block is 32 threads (a literal, `dim3(thread_x)` with `thread_x = 32`,
a macro or constant equal to 32) or is written in warps of a host warp-width constant equal to 32
(`#define WARP_SIZE 32` / `WAVE_SIZE`, `kWarpSize`, used as `warps * WAVE_SIZE`), when the kernel, defined in the
same file, uses lane arithmetic, warp intrinsics or a shared-memory reduction. The finding sits on the host
line and names the kernel.

Why is this bad?
----------------
The device code may be warp-size clean and still be launched for 32 lanes: a 32-thread block is half of a
64-lane wavefront on CDNA (half the lanes idle), and a block sized as `warps * 32` puts two of the kernel's
"warps" in one wavefront, so warp intrinsics, lane-0 stores and per-warp shared slots that assume one warp per
32 threads mix them. Scan's device-side rules see none of this; the human ports change the host constant.

Example
-------
```cuda
#define WAVE_SIZE 32
__global__ void row_sum(const float* m, float* out, int cols) {
    int lane = threadIdx.x % WAVE_SIZE;
    float acc = 0.f;
    for (int c = lane; c < cols; c += WAVE_SIZE) acc += m[blockIdx.x * cols + c];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffff, acc, o);
    if (lane == 0) out[blockIdx.x] = acc;
}
void run(const float* m, float* out, int rows, int cols) {
    row_sum<<<rows, WAVE_SIZE>>>(m, out, cols);
}
```

Use instead
-----------
```cuda
__global__ void row_sum(const float* m, float* out, int cols) {
    int lane = threadIdx.x % warpSize;
    float acc = 0.f;
    for (int c = lane; c < cols; c += warpSize) acc += m[blockIdx.x * cols + c];
    for (int o = warpSize / 2; o > 0; o >>= 1) acc += __shfl_down(acc, o);
    if (lane == 0) out[blockIdx.x] = acc;
}
void run(const float* m, float* out, int rows, int cols, int warp_size) {
    row_sum<<<rows, warp_size>>>(m, out, cols);
}
```
"""

from __future__ import annotations

import re
from typing import Any

from hipgauge.rules.checks._launches import _declared
from hipgauge.rules.hit import HIGH, MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import call_args, call_name, descendants, function_name, launch_config, qualifiers
from hipgauge.source import macros as mac

CODE = "HG111"
RULE = RuleMeta(
    title="Host-side warp width 32 sizing a warp-level kernel's launch",
    category="warp",
    severity="wrong-results",
    message="launch sized for 32-lane warps on the host",
    fix="Size blocks from the device's warp size (hipDeviceAttributeWarpSize, or warpSize at run time) or template "
        "the kernel and its launch on it; keep one kernel warp per hardware wavefront.",
    effort=(0.5, 2),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warpsize",
        "https://github.com/ggml-org/llama.cpp/issues/3630",
    ),
)
NODE = "call_expression"
ANCHOR = rb"<<<"

_WIDTH_NAME = re.compile(r"warp|wave|lane|thread_?x|threads_?per", re.I)
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_INTRINSICS = re.compile(r"\b__(?:shfl\w*|ballot\w*|any_sync|all_sync|any|all|syncwarp|activemask|match_\w+|"
                         r"reduce_\w+_sync)\s*\(")
_LANE = re.compile(r"%\s*32\b|&\s*(?:31|0x1[fF])\b|>>\s*5\b|\blane(?:_?id|Id|_idx|Idx)?\b|\bwarp_?(?:id|Id|idx)\b")
_SHARED = re.compile(r"\b__shared__\b")


def _value(ctx: Any, expr: str, depth: int = 0) -> int | None:
    """The integer ``expr`` folds to, looking through this file's macros/constants and local ``int x = …;``."""
    expr = expr.strip()
    v = ctx.fold(expr)
    if v is not None or depth > 2:
        return v
    if re.fullmatch(r"[A-Za-z_]\w*", expr):
        init = _declared(ctx, expr)
        if init is not None:
            return _threads(ctx, init, depth + 1)
    return None


def _threads(ctx: Any, expr: str, depth: int = 0) -> int | None:
    s = expr.strip()
    if s.startswith("dim3"):
        inner = s[4:].strip()
        if inner[:1] not in ("(", "{") or not inner.endswith((")", "}")):
            return None
        total = 1
        for part in mac.split_top_level(inner[1:-1]):
            v = _value(ctx, part, depth + 1)
            if v is None:
                return None
            total *= v
        return total
    return _value(ctx, s, depth)


def _kernel_body(ctx: Any, name: str) -> str | None:
    cache = getattr(ctx, "_hg111_kernels", None)
    if cache is None:
        cache = {}
        for fn in descendants(ctx.tree.root_node, "function_definition"):
            if "__global__" in qualifiers(fn):
                body = fn.child_by_field_name("body")
                if body is not None:
                    cache[function_name(fn)] = ctx.data[body.start_byte:body.end_byte].decode("utf-8", "replace")
        ctx._hg111_kernels = cache
    return cache.get(name)


def _width_names(ctx: Any, text: str) -> list[str]:
    """Names in ``text`` that are host warp-width constants (named like one and equal to 32)."""
    return [n for n in dict.fromkeys(_IDENT.findall(text)) if _WIDTH_NAME.search(n) and _value(ctx, n) == 32]


def check(node, ctx):
    args = launch_config(node)
    if len(args) < 2:
        return []
    fn = node.child_by_field_name("function")
    if fn is None:
        return []
    kernel = ctx.data[fn.start_byte:fn.end_byte].decode("utf-8", "replace").split("<")[0].split("::")[-1].strip()
    body = _kernel_body(ctx, kernel)
    if body is None:
        return []
    uses = []
    if _INTRINSICS.search(body):
        uses.append("warp intrinsics")
    if _LANE.search(body) or _width_names(ctx, body):
        uses.append("lane arithmetic")
    if _SHARED.search(body):
        uses.append("a shared-memory reduction")
    if not uses:
        return []
    block = args[1]
    block_text = ctx.data[block.start_byte:block.end_byte].decode("utf-8", "replace")
    if block.type == "call_expression" and call_name(block) == "dim3":
        total = 1
        for a in call_args(block):
            v = _value(ctx, ctx.data[a.start_byte:a.end_byte].decode("utf-8", "replace"))
            if v is None:
                total = None
                break
            total *= v
    else:
        total = _threads(ctx, block_text)
    what = " and ".join(uses)
    if total == 32:
        return [Hit(block, HIGH, f"`{kernel}` ({what}) launched with 32-thread blocks (`{block_text}`): "
                                 "half of a 64-lane wavefront")]
    names = _width_names(ctx, block_text)
    if not names and re.fullmatch(r"[A-Za-z_]\w*", block_text.strip()):
        init = _declared(ctx, block_text.strip())
        names = _width_names(ctx, init) if init else []
    if names:
        return [Hit(block, MEDIUM, f"`{kernel}` ({what}) launched with blocks sized in warps of "
                                   f"{names[0]} = 32 (`{block_text}`): two of its warps share a 64-lane wavefront")]
    return []
