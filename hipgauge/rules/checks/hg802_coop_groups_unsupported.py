"""HG802: cooperative-groups features HIP does not support.

What it does
------------
Flags `cooperative_groups/scan.h` and `/memcpy_async.h` includes,
`cg::inclusive_scan`/`exclusive_scan`, `invoke_one*`, `reduce_update_async`/`reduce_store_async` and
`this_multi_grid()`.

Why is this bad?
----------------
HIP lists these headers and functions as unsupported and multi-grid groups are deprecated since ROCm
5.0: the code does not compile and needs hipCUB/rocPRIM scans or a single-grid cooperative launch.

Example
-------
```cuda
namespace cg = cooperative_groups;
__global__ void k(int* x) {
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    x[threadIdx.x] = cg::inclusive_scan(tile, x[threadIdx.x]);
}
```

Use instead
-----------
```cuda
namespace cg = cooperative_groups;
__global__ void k(int* x) {
    auto block = cg::this_thread_block();
    block.sync();
}
```
"""

from __future__ import annotations

from hipgauge.rules.syntax import parent as parent_of

from hipgauge.rules.checks._common import any_of, include, usage, words
from hipgauge.rules.hit import HIGH, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text

CODE = "HG802"
RULE = RuleMeta(
    title="Unsupported cooperative-groups features",
    category="api",
    severity="blocker",
    message="cooperative-groups feature not supported by HIP",
    fix="Use hipCUB/rocPRIM block/warp scans, explicit loads, single-grid cooperative launches.",
    effort=(1, 4),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/cooperative_groups.html#unsupported-nvidia-cuda-features",
    ),
)
NODE = None
ANCHOR = any_of(include("cooperative_groups/scan", "cooperative_groups/memcpy_async"), words("inclusive_scan", "exclusive_scan", r"invoke_one\w*", "reduce_update_async", "reduce_store_async", "this_multi_grid", "multi_grid_group"))


def check(node, ctx):
    if node.type == "preproc_include":
        return [Hit(node, HIGH)]
    name = text(node)
    if name in ("this_multi_grid", "multi_grid_group"):
        return usage(node, ctx, HIGH, f"`{name}`")
    parent = parent_of(node)
    if parent is not None and parent.type == "qualified_identifier":
        scope = parent.child_by_field_name("scope")
        if scope is not None and text(scope) in ("cg", "cooperative_groups"):
            return [Hit(parent, HIGH, f"`{text(parent)}`")]
    return []
