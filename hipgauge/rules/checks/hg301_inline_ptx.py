"""HG301: inline PTX assembly.

What it does
------------
Flags every `asm`/`__asm__` statement in device code whose text is not AMDGCN assembly, and asm
anywhere whose text is PTX (special registers such as `%laneid`, `.reg`/state spaces, dotted opcodes
such as `mov.u32`). Host asm that is not PTX (an x86 `rdtsc` or ARM `mrs` cycle timer) is left alone.
More specific rules (tensor-core PTX, wgmma, TMA, cp.async) replace this one on the same line. An
`asm` statement inside a `#define` body is found lexically (PTX syntax only), with medium confidence.

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
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import ancestor

CODE = "HG301"
RULE = RuleMeta(
    title="Inline PTX assembly",
    category="asm",
    severity="blocker",
    message="inline PTX assembly must be replaced",
    fix="Replace with HIP/clang builtins (__builtin_amdgcn_*, __lane_id(), ...) or portable C++; AMDGCN asm only "
        "as a guarded last resort.",
    effort=(1, 8),
    sources=(
        "https://github.com/ROCm/HIPIFY/issues/731",
        "https://oneapi-src.github.io/SYCLomatic/dev_guide/reference/diagnostics-reference.html (DPCT1053)",
    ),
)
NODE = None
ANCHOR = ASM
_AMDGCN = re.compile(r'"\s*(?:v_|s_|ds_|buffer_|global_|flat_)')


#: PTX syntax: special registers, state spaces / .reg declarations, dotted opcodes (``mov.u32``, ``ld.global.nc``)
#: where an instruction starts (a string's start, after ``;``, ``\n`` or ``\t``): an ARM SVE operand such as
#: ``{ z12.s }`` (FBGEMM's FbgemmFP16UKernelsSve128.cc, host code) is dotted too, but stands inside an instruction
PTX = re.compile(r"%%?(?:laneid|warpid|nwarpid|smid|nsmid|gridid|clock(?:64)?|globaltimer\w*|tid|ntid|ctaid|nctaid|"
                 r"lanemask_\w+|dynamic_smem_size|total_smem_size)\b|\.(?:reg|pred|shared|global|param|local|const)\b|"
                 r"(?:(?<=\")|(?<=;)|(?<=\\n)|(?<=\\t))\s*[a-z][a-z0-9]*(?:\.[a-z][a-z0-9_]*)+\s")


def check(node, ctx):
    asm = ancestor(node, "gnu_asm_expression", limit=3)
    if asm is None:
        return []
    body = asm_text(asm)
    if _AMDGCN.search(body):
        return []
    if not PTX.search(body) and not ctx.in_device_code(asm):
        return []  # host asm (an x86 rdtsc / ARM cntvct cycle timer) is not PTX
    first = body.strip('"').split(";")[0].strip()[:40]
    return [Hit(asm, HIGH, f"`{first}`" if first else "")]


#: host CPU instructions seen in asm macros (spin-wait hints, fences): not PTX
_HOST_ASM = re.compile(r'^"\s*(?:pause|yield|rep;\s*nop|nop|mfence|lfence|sfence|cpuid|rdtsc\w*|dmb\b|dsb\b|isb\b|wfe|sev)')
_ASM_HEAD = re.compile(rb"\s*(?:(?:volatile|__volatile__|goto|inline)\s*)*\(")
_STRING = re.compile(rb'"((?:\\.|[^"\\\n])*)"')


def check_macro(body, at, end, macro, ctx):
    """An ``asm(...)`` statement written in a ``#define`` body."""
    if _ASM_HEAD.match(body, end) is None:
        return []
    raw = ctx.data[macro.start:macro.end]
    s = _STRING.search(raw, end)
    text_ = s.group(0).decode("utf-8", "replace") if s else ""
    if _AMDGCN.search(text_) or _HOST_ASM.search(text_) or not PTX.search(text_):
        return []
    first = re.sub(r"^(?:\s|\{|\\[nt])+", "", text_.strip('"')).split(";")[0].strip()[:40]
    return [(at, f"`{first}`" if first else "")]
