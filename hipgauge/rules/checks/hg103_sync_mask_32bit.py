"""HG103: a `*_sync` warp intrinsic called with a 32-bit mask.

What it does
------------
Flags `__shfl*_sync`, `__ballot_sync`, `__any_sync`, `__all_sync`, `__match_*_sync`,
`__reduce_*_sync` and `__syncwarp` whose mask argument is a 32-bit value: a literal such as
`0xffffffff` or `~0u`, a macro that expands to one, or a variable declared 32-bit. Calls written
inside a `#define` body are read lexically and reported with medium confidence.

Why is this bad?
----------------
HIP's `*_sync` builtins require a 64-bit mask and reject a 32-bit one at compile time
(a `static_assert`, on by default since ROCm 7.0). hipify keeps CUDA's `0xffffffff`, so the
translated file does not build; and a 32-bit mask would name only half of a 64-lane wavefront.

Example
-------
```cuda
__global__ void k(float* x) {
    float v = x[threadIdx.x];
    v += __shfl_xor_sync(0xffffffff, v, 1);
    x[threadIdx.x] = v;
}
```

Use instead
-----------
```cuda
__global__ void k(float* x) {
    float v = x[threadIdx.x];
    v += __shfl_xor_sync(__activemask(), v, 1);
    x[threadIdx.x] = v;
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import HIGH, MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import THIRTY_TWO_BIT_TYPES, call_args, text
from hipgauge.source.macros import call_args_at

CODE = "HG103"
RULE = RuleMeta(
    title="*_sync warp intrinsic with a 32-bit mask",
    category="warp",
    severity="blocker",
    message="*_sync intrinsic called with a 32-bit mask",
    fix="Pass a 64-bit mask (__activemask(), ~0ull) or, on AMD, use the non-_sync variants where the whole wave is "
        "converged.",
    effort=(0.25, 1),
    sources=(
        "https://github.com/ROCm/rocm-systems/blob/develop/projects/clr/hipamd/include/hip/amd_detail/amd_warp_sync_functions.h",
        "https://github.com/1bit-MONSTER/1bit-MONSTER/issues/795",
    ),
)
NODE = "call_expression"
ANCHOR = words(r"__(?:shfl(?:_up|_down|_xor)?|ballot|all|any|uni|match_any|match_all|reduce_\w+)_sync", "__syncwarp")

_LITERAL32 = re.compile(r"^\(?\s*(?:~\s*0[uU]?|0[xX][0-9a-fA-F]{1,8}[uU]?|\d+[uU]?|-1)\s*\)?$")


def is_32bit_mask_text(s: str) -> bool:
    s = s.strip()
    return bool(_LITERAL32.match(s)) and "ll" not in s.lower()


def check(node, ctx):
    args = call_args(node)
    if not args:
        return []
    mask = args[0]
    s = text(mask)
    if is_32bit_mask_text(s):
        return [Hit(mask, HIGH, f"mask `{s}` is 32-bit")]
    if mask.type == "identifier":
        value = ctx.macros.get(s)
        if value is not None and is_32bit_mask_text(value):
            return [Hit(mask, HIGH, f"mask `{s}` expands to 32-bit `{value}`")]
        t = ctx.type_of(s, node)
        if t in THIRTY_TWO_BIT_TYPES:
            return [Hit(mask, MEDIUM, f"mask `{s}` is declared `{t}`")]
    return []


def check_macro(body, at, end, macro, ctx):
    """The same test on a call written in a ``#define`` body (lexical; ``hipgauge.rules.macrobody``)."""
    open_ = body.find(b"(", end, end + 40)
    if open_ < 0 or body[end:open_].strip(b" \t\\\r\n"):
        return []
    args = call_args_at(body, open_)
    if not args:
        return []
    s = args[0]
    if is_32bit_mask_text(s):
        return [(at, f"mask `{s}` is 32-bit")]
    value = ctx.macros.get(s)
    if value is not None and is_32bit_mask_text(value):
        return [(at, f"mask `{s}` expands to 32-bit `{value}`")]
    return []
