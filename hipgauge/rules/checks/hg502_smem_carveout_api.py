"""HG502: shared-memory opt-in, carveout and bank-configuration APIs.

What it does
------------
Flags `cudaFuncSetAttribute` with `cudaFuncAttributeMaxDynamicSharedMemorySize` or
`cudaFuncAttributePreferredSharedMemoryCarveout`, `cudaFuncSetCacheConfig`,
`cudaDeviceSetCacheConfig` and the shared-memory bank-size setters.

Why is this bad?
----------------
HIP accepts these calls and ignores them: there is no opt-in above the 64 KiB LDS limit, no L1/LDS
carveout and no bank-size mode on AMD. Code that relies on the opt-in to launch needs the real
limit.

Example
-------
```cuda
void setup() {
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024);
}
```

Use instead
-----------
```cuda
void setup(int dev) {
    int limit = 0;
    cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlock, dev);
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import HIGH, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import call_args, call_name, text

CODE = "HG502"
RULE = RuleMeta(
    title="Shared-memory opt-in / carveout / bank-config APIs",
    category="memory",
    severity="info",
    message="shared-memory opt-in/carveout/bank setting is ignored on AMD",
    fix="Remove or guard; enforce the real limit with hipDeviceAttributeMaxSharedMemoryPerBlock.",
    effort=(0.25, 0.5),
    sources=(
        "https://github.com/ROCm/hip/issues/3122",
    ),
)
NODE = "call_expression"
ANCHOR = words("cudaFuncSetAttribute", "cudaFuncSetCacheConfig", "cudaDeviceSetCacheConfig", "cudaDeviceSetSharedMemConfig", "cudaFuncSetSharedMemConfig", "cuFuncSetCacheConfig", "cuFuncSetSharedMemConfig")
_SETTERS = {"cudaFuncSetCacheConfig", "cudaDeviceSetCacheConfig", "cudaDeviceSetSharedMemConfig", "cudaFuncSetSharedMemConfig", "cuFuncSetCacheConfig", "cuFuncSetSharedMemConfig"}


def check(node, ctx):
    name = call_name(node)
    if name == "cudaFuncSetAttribute":
        args = call_args(node)
        if len(args) < 2 or not re.search(r"MaxDynamicSharedMemorySize|PreferredSharedMemoryCarveout", text(args[1])):
            return []
        return [Hit(node, HIGH, f"`{text(args[1])}` is ignored on AMD")]
    if name in _SETTERS:
        return [Hit(node, HIGH, f"`{name}` is ignored on AMD")]
    return []
