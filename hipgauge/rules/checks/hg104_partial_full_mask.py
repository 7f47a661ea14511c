"""HG104: a "full" warp mask that covers only 32 lanes.

What it does
------------
Flags a `FULL_MASK`/`ALL_MASK`-style macro or constant defined as `0xffffffff`, and `*_sync`
calls whose 64-bit mask literal sets only the low 32 bits (`0xffffffffull`). A mask constant passed only to a
function-like macro that one of its definitions in the file drops the mask from (ROCm apex's softmax.cuh:
`#define APEX_WARP_SHFL_XOR(mask, value, offset, width) __shfl_xor(value, offset, width)` for HIP,
`__shfl_xor_sync` for CUDA) never reaches that build: reported with low confidence (review, no hours).

Why is this bad?
----------------
On a 64-lane wavefront a mask of 32 ones does not name the whole wave. HIP checks at run time that
the mask equals the active lanes; a half mask makes lanes 32-63 drop out of the exchange or trips
that check, so results depend on which half a lane sits in.

Example
-------
```cuda
#define FULL_MASK 0xffffffff
```

Use instead
-----------
```cuda
#define FULL_MASK 0xffffffffffffffffull
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import any_of, words
from hipgauge.rules.hit import HIGH, LOW, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import call_args, text

CODE = "HG104"
RULE = RuleMeta(
    title="32-lane 'full' mask",
    category="warp",
    severity="wrong-results",
    message="a 'full' warp mask that covers lanes 0-31 only",
    fix="Use __activemask() or ~0ull when the whole wave is active; restructure code that relies on partial-mask "
        "participation.",
    effort=(0.25, 2),
    sources=(
        "https://github.com/ROCm/rocm-systems/blob/develop/projects/clr/hipamd/include/hip/amd_detail/amd_warp_sync_functions.h",
        "https://oneapi-src.github.io/SYCLomatic/dev_guide/reference/diagnostics-reference.html (DPCT1023, DPCT1086)",
    ),
)
NODE = ("call_expression", "preproc_def", "init_declarator")
ANCHOR = any_of(words(r"[A-Za-z]{0,12}_?(?:FULL|ALL|[Ff]ull|[Aa]ll)_?(?:MASK|[Mm]ask)\w*"),
                words(r"__(?:shfl(?:_up|_down|_xor)?|ballot|all|any|match_any|match_all|reduce_\w+)_sync", "__syncwarp"))
_NAME = re.compile(r"(?i)(full|all)_?mask")
_HALF = re.compile(r"^\(?\s*0[xX]0*[fF]{8}(?:[uU]?[lL][lL]|[lL][lL][uU]?)\s*\)?$")
_HALF32 = re.compile(r"^\(?\s*(?:0[xX]0*[fF]{8}[uU]?|~\s*0[uU]?)\s*\)?$")


_FN_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)([^\n]*(?:\\\n[^\n]*)*)", re.M)


def _dropped_by_a_macro(name: str, ctx) -> str | None:
    """The macro every use of the mask ``name`` is passed to, when one of that macro's definitions in this file
    ignores the parameter (ROCm apex's ``#define APEX_WARP_SHFL_XOR(mask, value, offset, width) __shfl_xor(value,
    offset, width)`` under ``__HIP_PLATFORM_AMD__``): that build never sees the 32-bit mask."""
    data = ctx.data
    ignores: dict[str, set[int]] = {}
    for m in _FN_MACRO.finditer(data):
        params = [p.strip() for p in m.group(2).decode("latin-1").split(",")]
        body = m.group(3).decode("latin-1")
        for i, prm in enumerate(params):
            if prm and not re.search(rf"\b{re.escape(prm)}\b", body):
                ignores.setdefault(m.group(1).decode(), set()).add(i)
    if not ignores:
        return None
    src = data.decode("latin-1")
    macro = None
    for u in re.finditer(rf"\b{re.escape(name)}\b", src):
        line_start = src.rfind("\n", 0, u.start()) + 1
        before = src[line_start:u.start()]
        if re.search(rf"\b{re.escape(name)}\s*=|define\s+{re.escape(name)}\b", src[line_start:u.end() + 4]):
            continue  # the definition itself
        call = re.search(r"(\w+)\s*\(\s*$", before)
        if call is None or 0 not in ignores.get(call.group(1), ()):
            return None
        macro = call.group(1)
    return macro


def check(node, ctx):
    if node.type == "call_expression":
        args = call_args(node)
        if args and _HALF.match(text(args[0])):
            return [Hit(args[0], HIGH, f"`{text(args[0])}` sets lanes 0-31 only")]
        return []
    if node.type == "preproc_def":
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is not None and value is not None and _NAME.search(text(name)) \
                and (_HALF32.match(text(value).strip()) or _HALF.match(text(value).strip())):
            return [Hit(node, HIGH, f"`{text(name)}` is `{text(value).strip()}`")]
        return []
    name, value = node.child_by_field_name("declarator"), node.child_by_field_name("value")
    if name is not None and value is not None and _NAME.search(text(name)) \
            and (_HALF32.match(text(value)) or _HALF.match(text(value))):
        if (macro := _dropped_by_a_macro(text(name), ctx)) is not None:
            return [Hit(node, LOW, f"`{text(name)}` is `{text(value)}`, passed only to `{macro}`, which a definition "
                                   "in this file ignores the mask in (the other vendor's variant)")]
        return [Hit(node, HIGH, f"`{text(name)}` is `{text(value)}`")]
    return []
