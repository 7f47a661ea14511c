"""HG108: `warpSize` used as a compile-time constant, in host code, or wavefront-size macros.

What it does
------------
Flags `warpSize` in `constexpr` declarations, `static_assert`, template arguments, `__shared__`
array sizes or host-only functions, and any use of `__AMDGCN_WAVEFRONT_SIZE`. A host function's own
local `warpSize` read from the device (`const int warpSize = props->warpSize;`) is that device's width: not
flagged.

Why is this bad?
----------------
Since ROCm 7.0 `warpSize` is no longer a `constexpr`: code that used it as a compile-time constant
stops compiling. `__AMDGCN_WAVEFRONT_SIZE` was deprecated in ROCm 6.3 and later removed. On the
host there is no single warp size: it depends on the device (64 on CDNA, 32 on RDNA).

Example
-------
```cuda
__global__ void k(float* out) {
    constexpr int W = warpSize;
    out[threadIdx.x] = W;
}
```

Use instead
-----------
```cuda
__global__ void k(float* out) {
    const int W = warpSize;
    out[threadIdx.x] = W;
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import HIGH, MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import ancestor, call_name, text

CODE = "HG108"
RULE = RuleMeta(
    title="warpSize as a compile-time constant, in host code, or wavefront-size macros",
    category="warp",
    severity="blocker",
    message="warpSize used as a compile-time constant or on the host",
    fix="Host: query hipDeviceAttributeWarpSize; device compile time: select 64/32 with __GFX9__-style macros or "
        "rocprim::device_warp_size(); dispatch templates at run time.",
    effort=(1, 4),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warpsize",
        "https://github.com/vllm-project/vllm/pull/20330",
        "https://github.com/alpaka-group/mallocMC/issues/299",
    ),
)
NODE = None
ANCHOR = words("warpSize", r"__AMDGCN_WAVEFRONT_SIZE(?:__)?")


def check(node, ctx):
    s = text(node)
    if s.startswith("__AMDGCN_WAVEFRONT_SIZE"):
        return [Hit(node, HIGH, f"`{s}` is deprecated/removed")]
    if node.type != "identifier":
        return []
    if ancestor(node, "template_argument_list", limit=4) is not None:
        return [Hit(node, HIGH, "`warpSize` as a template argument")]
    call = ancestor(node, "call_expression", limit=6)
    if call is not None and call_name(call) == "static_assert":
        return [Hit(node, HIGH, "`warpSize` in static_assert")]
    if ancestor(node, "static_assert_declaration", limit=6) is not None:
        return [Hit(node, HIGH, "`warpSize` in static_assert")]
    decl = ancestor(node, ("declaration", "field_declaration", "expression_statement", "compound_statement"), limit=8)
    if decl is not None and decl.type in ("declaration", "field_declaration"):
        quals = {text(c) for c in decl.children if c.type in ("type_qualifier", "storage_class_specifier")}
        if "constexpr" in quals:
            return [Hit(node, HIGH, "`warpSize` in a constexpr")]
        if "__shared__" in quals and ancestor(node, "array_declarator", limit=6) is not None:
            return [Hit(node, HIGH, "`warpSize` sizes a __shared__ array")]
    name, _kernel, device = ctx.function_info(node)
    if name is not None and not device:
        if _queried_local(ctx.function_of(node)):
            return []  # ``const int warpSize = props->warpSize;``: the device's own width, read at run time
        return [Hit(node, MEDIUM, f"`warpSize` in host function `{name}`")]
    return []


#: a host local named ``warpSize`` set from the device's properties or attribute (transducer_loss_kernel.cu in apex;
#: ``getCudaAttribute(&warpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev)`` in cuda-samples' deviceQueryDrv)
_QUERIED = re.compile(r"\bwarpSize\s*=\s*[^;]*(?:(?:->|\.)\s*warpSize\b|DevAttrWarpSize|DeviceAttributeWarpSize)|"
                      r"&\s*warpSize\s*,\s*(?:CU_DEVICE_ATTRIBUTE_WARP_SIZE|cudaDevAttrWarpSize|hipDeviceAttributeWarpSize)\b")


def _queried_local(fn):
    """The host function declares a local ``warpSize`` from the device's properties: its uses are that value."""
    if fn is None:
        return False
    body = text(fn)
    return bool(_QUERIED.search(body)) and not re.search(r"\bwarpSize\s*=\s*\d", body)
