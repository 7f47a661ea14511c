"""HG406: cooperative (grid-wide sync) launches sized for NVIDIA occupancy.

What it does
------------
Flags `cudaLaunchCooperativeKernel*`, `this_grid()` and `grid_group`. Not reported: a cooperative launch whose
grid is the device's multiprocessor count as queried at run time (`dim3(info.nsm)`,
`prop.multiProcessorCount`: one block per SM or CU; times the blocks per SM the occupancy API returned,
written in the call or in the `dim3 grid(…)` it passes), which fits any GPU whose CU holds one such block, and
the grid sync inside a file whose cooperative launches are all sized that way.

Why is this bad?
----------------
A grid sync needs every block resident at once. CU count, wave64 and the 64 KiB LDS change how many
blocks fit, so a grid sized for an NVIDIA GPU fails with `hipErrorCooperativeLaunchTooLarge`; multi-
grid groups are deprecated since ROCm 5.0.

Example
-------
```cuda
namespace cg = cooperative_groups;
__global__ void k(float* x) {
    cg::this_grid().sync();
}
```

Use instead
-----------
```cuda
__global__ void k(float* x) {
    __syncthreads();
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import usage, words
from hipgauge.rules.hit import MEDIUM
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import call_text_args, text

CODE = "HG406"
RULE = RuleMeta(
    title="Cooperative grid-sync launches",
    category="occupancy",
    severity="blocker",
    message="grid-wide sync needs a grid that fits the AMD GPU at once",
    fix="Size the grid with hipOccupancyMaxActiveBlocksPerMultiprocessor x CU count; avoid multi-grid sync.",
    effort=(1, 4),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/cooperative_groups.html#synchronization",
    ),
)
NODE = None
ANCHOR = words(r"cudaLaunchCooperativeKernel\w*", "this_grid", "grid_group")


#: a grid of the device's multiprocessor count, read at run time: one block per SM/CU
_PER_SM = re.compile(r"(?i)\b(?:n_?sms?|num_?sms?|sm_?count|n_?cus?|num_?cus|cu_?count|multi_?processor_?count|"
                     r"cudaDevAttrMultiProcessorCount)\b")
_LAUNCH = re.compile(r"\bcudaLaunchCooperativeKernel\w*\s*\(")
_LOOKBACK = 4000  # characters before a launch searched for its named grid's declaration


def _grid_per_sm(call_text: str, before: str = "") -> bool:
    """Whether the grid (second argument) of a cooperative launch's text is the multiprocessor count (times the
    blocks per SM the occupancy API gave): written in the call, or in the last ``dim3 grid(…)`` / ``grid = …``
    of ``before`` (the file up to the launch) when the call passes a name."""
    args = call_text_args(call_text, call_text.index("("), limit=len(call_text))
    kernel, k = args[0] if args else "", 1
    while kernel.count("<") > kernel.count(">") and k < len(args):  # ``(void*)kern<int4, true>``: one argument
        kernel, k = kernel + "," + args[k], k + 1
    if len(args) <= k:
        return False
    grid = args[k].strip()
    if _PER_SM.search(grid):
        return True
    if re.fullmatch(r"[A-Za-z_]\w*", grid) and before:
        decl = re.compile(r"\bdim3\s+" + grid + r"\s*[({]([^;]*)|\b" + grid + r"\s*=(?!=)([^;]*);")
        found = list(decl.finditer(before[-_LOOKBACK:]))
        return bool(found) and bool(_PER_SM.search(found[-1].group(1) or found[-1].group(2) or ""))
    return False


def check(node, ctx):
    src = text(node)
    if src.startswith("cudaLaunchCooperativeKernel"):
        call = node.parent
        while call is not None and call.type not in ("call_expression", "expression_statement", "compound_statement"):
            call = call.parent
        if call is not None and call.type == "call_expression" \
                and _grid_per_sm(text(call), ctx.data[max(0, call.start_byte - 4 * _LOOKBACK):call.start_byte]
                                 .decode("utf-8", "replace")):
            return []  # one block per SM/CU from the device query: fits by construction
    else:
        src = ctx.pf.text if hasattr(ctx.pf, "text") else ""
        launches = [m.start() for m in _LAUNCH.finditer(src)]
        if launches and all(_grid_per_sm(src[i:i + 600], src[max(0, i - _LOOKBACK):i]) for i in launches):
            return []  # the grid this sync waits on is one block per SM/CU (the file's launches say so)
    return usage(node, ctx, MEDIUM, "size the grid with hipOccupancyMaxActiveBlocksPerMultiprocessor")
