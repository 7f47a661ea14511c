"""HG205: thread-block clusters and distributed shared memory.

What it does
------------
Flags `__cluster_dims__`, cluster launch attributes, `cudaOccupancyMaxActiveClusters`,
`cluster_group`/`this_cluster()` and `barrier.cluster`/`mapa` in inline PTX.

Why is this bad?
----------------
AMD GPUs have no block clusters and no distributed shared memory; HIP's cooperative groups do not
offer `cluster_group` and HIPIFY marks the cluster launch attributes unsupported.

Example
-------
```cuda
namespace cg = cooperative_groups;
__global__ void k(float* x) {
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
}
```

Use instead
-----------
```cuda
namespace cg = cooperative_groups;
__global__ void k(float* x) {
    cg::thread_block block = cg::this_thread_block();
    block.sync();
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import ASM, any_of, asm_or_usage, words
from hipgauge.rules.spec import RuleMeta

CODE = "HG205"
RULE = RuleMeta(
    title="Thread-block clusters / distributed shared memory",
    category="tensor-core",
    severity="blocker",
    message="thread-block clusters are not available on AMD",
    fix="Restructure to per-workgroup LDS plus global-memory exchange, or split the kernel.",
    effort=(8, 32),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/cooperative_groups.html#unsupported-nvidia-cuda-features",
    ),
)
NODE = None
ANCHOR = any_of(ASM, words("__cluster_dims__", "cudaLaunchAttributeClusterDimension", "cudaOccupancyMaxActiveClusters", "cluster_group", "this_cluster", r"cudaFuncAttribute\w*Cluster\w*"))
SUPERSEDES = ("HG301", "HG804")
_PTX = re.compile(r"\bbarrier\.cluster[\w.]*|\bmapa\b[\w.]*")


def check(node, ctx):
    return asm_or_usage(node, ctx, _PTX)
