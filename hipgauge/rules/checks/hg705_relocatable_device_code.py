"""HG705: relocatable device code / separate compilation.

What it does
------------
Flags `-rdc=true`, `--relocatable-device-code`, `-dc` and `CUDA_SEPARABLE_COMPILATION` in build
files, and `extern __device__` declarations in source. With the scanned tree's inventory, an `extern`
declaration whose qualifier does not read `__device__` (a qualifier macro such as `#define DEV
__device__`) counts when the name it declares is used inside a kernel or device function of the file
(the inventory's device-code spans, macro-declared ones included) and the file does not define it.

Why is this bad?
----------------
Calling device code across translation units needs `-fgpu-rdc` on every compile and link step with
hipcc; without it the AMD build fails to link (or the build must make device code header-only).

Example
-------
```cmake
set_target_properties(kernels PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
```

Use instead
-----------
```cmake
target_compile_options(kernels PRIVATE -fgpu-rdc)
target_link_options(kernels PRIVATE -fgpu-rdc)
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._buildscan import scan
from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text

CODE = "HG705"
RULE = RuleMeta(
    title="Relocatable device code / separate compilation",
    category="build",
    severity="blocker",
    message="relocatable device code needs -fgpu-rdc on compile and link",
    fix="Add -fgpu-rdc to compile and link (hipcc), or make the device code header-only.",
    effort=(0.5, 2),
    sources=(
        "https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/hip_porting_guide.md#compiler-options-supported-on-amd-platforms",
    ),
)
REQUIRES = (b"__device__",)  # an extern __device__ symbol
NODE = "declaration"
ANCHOR = words("extern")
_FLAG = re.compile(r"-rdc[= ]\s*true\b|--relocatable-device-code\b|(?<![\w-])-dc\b|\bCUDA_SEPARABLE_COMPILATION\b")


_NOT_DEVICE_SYMBOL = frozenset({"__shared__", "__host__"})  # dynamic shared memory; a host declaration


def check(node, ctx):
    kinds = {c.type for c in node.children}
    storage = {c.text for c in node.children if c.type == "storage_class_specifier"}
    if b"extern" not in storage:
        return []
    if "__device__" in kinds:
        return [Hit(node, MEDIUM, "device symbol defined in another translation unit")]
    if kinds & _NOT_DEVICE_SYMBOL or not getattr(ctx.inventory, "device_ranges", None) \
            or b"__shared__" in node.text or b"__host__" in node.text:  # a misparsed head hides them from ``kinds``
        return []
    name = _declared_name(node)
    if name and _used_in_device_code(ctx, node, name):
        return [Hit(node, MEDIUM, f"`{name}` is used in device code and defined in another translation unit")]
    return []


def _declared_name(decl) -> str | None:
    """The one name an ``extern`` declaration declares (through pointer, array, function and init declarators)."""
    names = decl.children_by_field_name("declarator")
    if len(names) != 1:
        return None
    node = names[0]
    while node is not None and node.type != "identifier":
        node = node.child_by_field_name("declarator")
    return text(node) if node is not None else None


def _used_in_device_code(ctx, decl, name: str) -> bool:
    """``name`` occurs in code inside one of the inventory's device-code spans, other than in ``decl`` itself,
    and is not one of the file's own kernels or device functions."""
    if any(r[2] == name for r in ctx.inventory.device_ranges):
        return False
    needle = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
    for m in needle.finditer(ctx.data):
        at = m.start()
        if decl.start_byte <= at < decl.end_byte:
            continue
        if ctx.device_span_at(at) is not None:
            return True
    return False


def check_build(lines, ctx):
    return scan(lines, _FLAG)
