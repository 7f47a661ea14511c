"""HG501: shared memory over 64 KiB per block.

What it does
------------
Sums the static `__shared__` arrays of each function (sizes folded from literals, macros and
constants of the file) and flags totals over 64 KiB; also flags a dynamic shared-memory size over 64
KiB in a launch or in `cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, n)`.

Why is this bad?
----------------
CDNA2/CDNA3 (MI200/MI300) have 64 KiB of LDS per CU, which is also the most one workgroup can get,
while sm_80/sm_90 let a block opt in to 163/227 KB. Such tiles do not compile or do not launch on
AMD and have to be re-tiled.

Example
-------
```cuda
__global__ void k(float* out) {
    __shared__ float tile[128][160];
    tile[threadIdx.y][threadIdx.x] = 0.f;
    out[0] = tile[0][0];
}
```

Use instead
-----------
```cuda
__global__ void k(float* out) {
    __shared__ float tile[64][64];
    tile[threadIdx.y][threadIdx.x] = 0.f;
    out[0] = tile[0][0];
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import any_of, words
from hipgauge.rules.hit import HIGH, MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import TYPE_BYTES, call_args, call_name, declared_type, descendants, launch_config, text

CODE = "HG501"
RULE = RuleMeta(
    title="Shared memory over 64 KiB per block",
    category="memory",
    severity="blocker",
    message="shared memory per block exceeds the 64 KiB LDS of MI200/MI300",
    fix="Re-tile for 64 KiB (query sharedMemPerBlock), cut pipeline stages, keep data in registers.",
    effort=(4, 16),
    sources=(
        "https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html",
        "https://github.com/warpfront/hipfire/issues/582",
    ),
)
NODE = ("function_definition", "call_expression")
ANCHOR = any_of(words("__shared__", "cudaFuncSetAttribute"), rb"<<<")
LDS_BYTES = 64 * 1024  # per workgroup on gfx90a/gfx942 (arch specs, ROCm/ROCm @e396b48)


def check(node, ctx):
    if node.type == "function_definition":
        total, first, unknown = 0, None, False
        for decl in descendants(node, "declaration"):
            quals = {text(c) for c in decl.children if c.type in ("type_qualifier", "storage_class_specifier")}
            if "__shared__" not in quals or "extern" in quals:
                continue
            elem = TYPE_BYTES.get(declared_type(decl).replace("const ", ""))
            for d in decl.children_by_field_name("declarator"):
                count = 1
                for arr in descendants(d, "array_declarator"):
                    n = ctx.fold(arr.child_by_field_name("size")) if arr.child_by_field_name("size") is not None else None
                    if n is None:
                        unknown = True
                        count = 0
                        break
                    count *= n
                total += count * (elem or 4)
                first = first or decl
        if total > LDS_BYTES and first is not None:
            return [Hit(first, HIGH if not unknown else MEDIUM, f"static shared memory {total} bytes > 65536")]
        return []
    name = call_name(node)
    args = call_args(node)
    if name == "cudaFuncSetAttribute" and len(args) >= 3 and "MaxDynamicSharedMemorySize" in text(args[1]):
        v = ctx.fold(args[2])
        if v is not None and v > LDS_BYTES:
            return [Hit(node, HIGH, f"dynamic shared memory {v} bytes > 65536")]
        return []
    cfg = launch_config(node)
    if len(cfg) >= 3:
        v = ctx.fold(cfg[2])
        if v is not None and v > LDS_BYTES:
            return [Hit(cfg[2], HIGH, f"dynamic shared memory {v} bytes > 65536")]
    return []
