"""HG109: launch block size that is not a multiple of 64.

What it does
------------
Flags triple-chevron launches whose block size is a literal, a `dim3(...)` of literals or a constant
of this file, when the thread count is above 32 and not a multiple of 64. Single-warp blocks (32)
are left to the warp rules: they are usually one-warp-per-tile designs that need rework anyway.

Why is this bad?
----------------
A workgroup occupies whole 64-lane wavefronts on CDNA: a block of 96 threads runs as two waves with
a quarter of the lanes idle, and hipCUB/rocPRIM block primitives may refuse such sizes at compile
time.

Example
-------
```cuda
__global__ void k(float* x) { x[threadIdx.x] = 0.f; }
void run(float* x) { k<<<128, 96>>>(x); }
```

Use instead
-----------
```cuda
__global__ void k(float* x) { x[threadIdx.x] = 0.f; }
void run(float* x) { k<<<128, 128>>>(x); }
```
"""

from __future__ import annotations

from hipgauge.rules.hit import MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import call_args, call_name, launch_config

CODE = "HG109"
RULE = RuleMeta(
    title="Block size not a multiple of 64",
    category="warp",
    severity="slow",
    message="launch block size is not a multiple of the 64-lane wavefront",
    fix="Use block sizes that are multiples of 64 (or of warpSize queried at run time).",
    effort=(0.5, 2),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/performance_guidelines.html",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/pull/2059",
    ),
)
NODE = "call_expression"
ANCHOR = rb"<<<"


def check(node, ctx):
    args = launch_config(node)
    if len(args) < 2:
        return []
    block = args[1]
    total = None
    if block.type == "call_expression" and call_name(block) == "dim3":
        dims = [ctx.fold(a) for a in call_args(block)]
        if dims and all(d is not None for d in dims):
            total = 1
            for d in dims:
                total *= d
    else:
        total = ctx.fold(block)
    if total is None or total <= 32 or total % 64 == 0:
        return []
    return [Hit(block, MEDIUM, f"{total} threads = {-(-total // 64)} waves, {(-total) % 64} lanes idle")]
