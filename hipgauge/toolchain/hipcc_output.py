"""Reader of hipcc (HIP-Clang) ``-Rpass-analysis=kernel-resource-usage`` remarks and clang diagnostics.

The AMDGPU backend prints, per kernel (one arch per invocation)::

    k.hip:3:1: remark: Function Name: _Z12softmax_rowsPKfPfi [-Rpass-analysis=kernel-resource-usage]
    k.hip:3:1: remark:     SGPRs: 10 [-Rpass-analysis=kernel-resource-usage]
    k.hip:3:1: remark:     VGPRs: 12 [...]            AGPRs, ScratchSize [bytes/lane], Occupancy [waves/SIMD],
                                                     SGPRs Spill, VGPRs Spill, LDS Size [bytes/block]

Clang echoes the source line and a caret after each remark; those lines are skipped.
"""

from __future__ import annotations

import re

from hipgauge.kernel_names import demangle
from hipgauge.toolchain.resources import Diagnostic, KernelResources

_REMARK = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): remark:\s+(?P<key>[^:]+?):\s*(?P<val>\S+)\s+"
                     r"\[-Rpass-analysis=kernel-resource-usage\]\s*$")
_DIAG = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>fatal error|error|warning|note): (?P<msg>.*)$")
_TOOL_DIAG = re.compile(r"^(?P<tool>clang(?:-\d+)?|clang\+\+|hipcc|lld|ld\.lld|ld)(?:\S*)?: (?P<sev>fatal error|error|warning): (?P<msg>.*)$")

_INT_KEYS = {
    "SGPRs": "sgprs",
    "VGPRs": "vgprs",
    "AGPRs": "agprs",
    "ScratchSize [bytes/lane]": "stack_frame_bytes",
    "SGPRs Spill": "sgpr_spills",
    "VGPRs Spill": "vgpr_spills",
    "LDS Size [bytes/block]": "shared_bytes",
}


def parse_resource_remarks(text: str, arch: str) -> list[KernelResources]:
    rows: list[KernelResources] = []
    current: KernelResources | None = None
    for raw in text.splitlines():
        m = _REMARK.match(raw.rstrip())
        if not m:
            continue
        key, val = m.group("key").strip(), m.group("val")
        if key == "Function Name":
            current = KernelResources(vendor="amd", arch=arch, mangled=val, name=demangle(val),
                                      file=m.group("file"), line=int(m.group("line")))
            rows.append(current)
        elif current is not None:
            attr = _INT_KEYS.get(key)
            if attr is not None:
                try:
                    setattr(current, attr, int(val))
                except ValueError:
                    continue
            elif key == "Occupancy [waves/SIMD]":
                try:
                    current.compiler_occupancy = float(val)
                except ValueError:
                    continue
            else:
                continue  # keys of newer LLVMs (Dynamic Stack, …) are kept in evidence only
        else:
            continue
        current.evidence.append(raw.strip())
    return rows


def parse_clang_diagnostics(text: str) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if "[-Rpass-analysis=" in line:
            continue
        m = _DIAG.match(line)
        if m:
            diags.append(Diagnostic(m.group("file"), int(m.group("line")), int(m.group("col")),
                                    m.group("sev"), m.group("msg").strip(), line))
            continue
        m = _TOOL_DIAG.match(line)
        if m:
            diags.append(Diagnostic(None, None, None, m.group("sev"), m.group("msg").strip(), line))
    return diags
