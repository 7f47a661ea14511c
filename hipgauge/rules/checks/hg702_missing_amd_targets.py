"""HG702: a build that names CUDA architectures but no AMD target.

What it does
------------
Flags a build file (once, at its first CUDA architecture setting) that selects NVIDIA architectures
(`sm_NN`, `compute_NN`, `CUDA_ARCHITECTURES`, `TORCH_CUDA_ARCH_LIST`) and names no `gfx` target
anywhere.

Why is this bad?
----------------
HIP code objects are compiled per GPU architecture; there is no PTX-style forward JIT. A build
without `--offload-arch=gfx90a;gfx942` (and a decision on `xnack`/`sramecc`) produces nothing that
runs on the deployment GPUs.

Example
-------
```make
NVCCFLAGS += -arch=sm_90
```

Use instead
-----------
```make
NVCCFLAGS += -arch=sm_90
HIPFLAGS += --offload-arch=gfx942
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._buildscan import AMD_TARGETS
from hipgauge.rules.hit import MEDIUM, LineHit
from hipgauge.rules.spec import RuleMeta

CODE = "HG702"
RULE = RuleMeta(
    title="No AMD targets in the build",
    category="build",
    severity="blocker",
    message="build selects CUDA architectures and no AMD gfx target",
    fix="List every deployment target (gfx90a, gfx942, ...) and decide xnack per target.",
    effort=(0.5, 2),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html#compilation",
    ),
)
_CUDA_ARCH = re.compile(r"\b(?:sm|compute)_\d+a?\b|\b(?:CMAKE_)?CUDA_ARCHITECTURES\b|\bTORCH_CUDA_ARCH_LIST\b")


def check_build(lines, ctx):
    first = None
    for i, line in enumerate(lines, 1):
        if AMD_TARGETS.search(line):
            return []
        if first is None:
            m = _CUDA_ARCH.search(line)
            if m:
                first = LineHit(i, m.start() + 1, MEDIUM, f"`{m.group(0)}` and no gfx target")
    return [first] if first else []
