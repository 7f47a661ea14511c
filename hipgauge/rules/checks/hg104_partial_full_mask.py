"""HG104: a "full" warp mask that covers only 32 lanes.

What it does
------------
Flags a `FULL_MASK`/`ALL_MASK`-style macro or constant defined as `0xffffffff`, and `*_sync`
calls whose 64-bit mask literal sets only the low 32 bits (`0xffffffffull`).

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
from hipgauge.rules.hit import HIGH, Hit
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
        return [Hit(node, HIGH, f"`{text(name)}` is `{text(value)}`")]
    return []
