"""HG613: NVTX ranges and markers.

What it does
------------
Flags NVTX includes and each call of `nvtxRangePush*`, `nvtxRangePop`, `nvtxMark*`, `nvtxRangeStart*`/`End`
(one finding per call; other uses of those names are folded into the nearest call's finding).

Why is this bad?
----------------
The AMD equivalent is ROCTx (`roctxRangePush`, `roctxRangePop`, `roctxMark`): a rename and a link
change, and profiles of the port need the ranges to match kernels to operators.

Example
-------
```cuda
void step() {
    nvtxRangePushA("step");
    nvtxRangePop();
}
```

Use instead
-----------
```cuda
void step() {
    roctxRangePush("step");
    roctxRangePop();
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import any_of, include, library_usage, words
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text

CODE = "HG613"
RULE = RuleMeta(
    title="NVTX ranges/markers",
    category="library",
    severity="info",
    message="NVTX range/marker: rename to ROCTx",
    fix="Rename to roctx* and link librocprofiler-sdk-roctx.",
    effort=(0.1, 0.25),
    rubric=("covered-library",),
    sources=(
        "https://rocm.docs.amd.com/projects/rocprofiler-sdk/en/latest/how-to/using-rocprofiler-sdk-roctx.html",
    ),
)
NODE = None
FOLD = "NVTX"  # one finding per call site
ANCHOR = any_of(include("nvToolsExt", "nvtx3"), words(r"nvtx(?:RangePush|RangePop|Mark|RangeStart|RangeEnd)\w*"))


def check(node, ctx):
    return library_usage(node, ctx, f"`{text(node).strip()}`")
