"""HG302: PTX special registers (`%laneid`, `%smid`, `%warpid`, `%globaltimer`, ...).

What it does
------------
Flags inline PTX that reads special registers such as `%laneid`, `%smid`, `%warpid`, `%globaltimer`,
`%clock64`, `%dynamic_smem_size` and `%lanemask_*`.

Why is this bad?
----------------
These registers exist only in PTX. HIP offers functions for most of them (`__lane_id()`, `__smid()`,
`__lanemask_lt()`, `wall_clock64()`, `clock64()`), which is the replacement.

Example
-------
```cuda
__device__ unsigned sm_id() {
    unsigned id;
    asm("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}
```

Use instead
-----------
```cuda
__device__ unsigned sm_id() {
    return __smid();
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import ASM, asm_hit
from hipgauge.rules.spec import RuleMeta

CODE = "HG302"
RULE = RuleMeta(
    title="PTX special registers",
    category="asm",
    severity="blocker",
    message="PTX special register read; HIP has a function for it",
    fix="Map laneid->__lane_id(), smid->__smid(), globaltimer->wall_clock64() (rate from "
        "hipDeviceAttributeWallClockRate), clock64->clock64().",
    effort=(0.25, 1),
    sources=(
        "https://github.com/ROCm/rocm-systems/blob/develop/projects/clr/hipamd/include/hip/amd_detail/amd_device_functions.h",
    ),
)
NODE = "gnu_asm_expression"
ANCHOR = ASM
_REG = re.compile(r"%%?(?:laneid|smid|nsmid|warpid|nwarpid|globaltimer(?:_lo|_hi)?|clock64|clock|dynamic_smem_size|lanemask_(?:lt|le|eq|ge|gt))\b")


def check(node, ctx):
    return asm_hit(node, _REG)
