"""HG404: hard-coded NVIDIA SM counts.

What it does
------------
Flags variables and macros named like an SM count (`num_sms`, `sm_count`, `NUM_SM`, ...) set to an
NVIDIA GPU's SM count (132 H100 SXM, 114 H100 PCIe, 108 A100, 84/82/80/68/46 other parts).

Why is this bad?
----------------
An MI300X has 304 compute units (38 per XCD) and an MI250X GCD 110: grids and persistent kernels
sized from an NVIDIA SM count leave most of the GPU idle or oversubscribe it.

Example
-------
```cuda
constexpr int num_sms = 132;
```

Use instead
-----------
```cuda
int num_sms(int dev) {
    int n = 0;
    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev);
    return n;
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text

CODE = "HG404"
RULE = RuleMeta(
    title="Hard-coded NVIDIA SM counts",
    category="occupancy",
    severity="slow",
    message="grid sized from a hard-coded NVIDIA SM count",
    fix="Query multiProcessorCount (hipDeviceProp_t) and compute occupancy with the AMD model.",
    effort=(0.5, 2),
    sources=(
        "https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html",
    ),
)
NODE = ("init_declarator", "preproc_def")
ANCHOR = words(r"(?i:k?_?(?:num|n)_?sms?|sm_?count|num_?multiprocessors|multi_?processor_?count)")
_SM_COUNTS = {132, 114, 108, 84, 82, 80, 72, 68, 56, 46, 40}


def check(node, ctx):
    if node.type == "preproc_def":
        value = node.child_by_field_name("value")
        v = ctx.fold(text(value).strip()) if value is not None else None
    elif node.type == "init_declarator":
        value = node.child_by_field_name("value")
        v = ctx.fold(value) if value is not None and value.type == "number_literal" else None
    else:
        return []
    if v in _SM_COUNTS:
        return [Hit(node, MEDIUM, f"{v} SMs")]
    return []
