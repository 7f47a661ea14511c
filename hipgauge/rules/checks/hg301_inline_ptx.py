"""HG301: inline PTX assembly.

What it does
------------
Flags every `asm`/`__asm__` statement whose text is not AMDGCN assembly. More specific rules
(tensor-core PTX, wgmma, TMA, cp.async) replace this one on the same line.

Why is this bad?
----------------
PTX does not exist on AMD and no tool translates it (the HIPIFY maintainers say so): each asm
statement has to be replaced by a HIP builtin, a clang `__builtin_amdgcn_*` or portable C++.

Example
-------
```cuda
__device__ unsigned lane_id() {
    unsigned id;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
    return id;
}
```

Use instead
-----------
```cuda
__device__ unsigned lane_id() {
    return __lane_id();
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import ASM, asm_text
from hipgauge.rules.hit import HIGH, Hit
from hipgauge.rules.syntax import ancestor

CODE = "HG301"
NODE = None
ANCHOR = ASM
_AMDGCN = re.compile(r'"\s*(?:v_|s_|ds_|buffer_|global_|flat_)')


def check(node, ctx):
    asm = ancestor(node, "gnu_asm_expression", limit=3)
    if asm is None:
        return []
    body = asm_text(asm)
    if _AMDGCN.search(body):
        return []
    first = body.strip('"').split(";")[0].strip()[:40]
    return [Hit(asm, HIGH, f"`{first}`" if first else "")]
