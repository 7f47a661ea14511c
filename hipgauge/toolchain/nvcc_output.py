"""Reader of ``nvcc -Xptxas -v`` (ptxas info) output and of nvcc/cudafe diagnostics.

ptxas prints, per entry function and arch::

    ptxas info    : Compiling entry function '_Z11sgemm_tiledPKfS0_Pfi' for 'sm_90'
    ptxas info    : Function properties for _Z11sgemm_tiledPKfS0_Pfi
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem, 360 bytes cmem[0]

Non-entry (device) functions get "Function properties" blocks too; only entry functions become rows.
"""

from __future__ import annotations

import re

from hipgauge.kernel_names import demangle
from hipgauge.toolchain.resources import Diagnostic, KernelResources

_ENTRY = re.compile(r"ptxas\s+info\s*:\s*Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"ptxas\s+info\s*:\s*Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"ptxas\s+info\s*:\s*Used (\d+) registers(.*)")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[(\d+)\]")
_BARRIERS = re.compile(r"used (\d+) barriers")
# cudafe/nvcc front end: "file.cu(12): error: identifier "x" is undefined"
_NV_DIAG = re.compile(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+)\): (?P<sev>error|warning|fatal error|catastrophic error)"
                      r"(?: #\S+)?: (?P<msg>.*)$")


def parse_ptxas(text: str, default_arch: str = "") -> list[KernelResources]:
    """Kernels (entry functions) with their resource usage, in the order ptxas reported them."""
    rows: dict[tuple[str, str], KernelResources] = {}
    entry_arch: dict[str, str] = {}
    current: KernelResources | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        m = _ENTRY.search(line)
        if m:
            mangled, arch = m.group(1), m.group(2)
            entry_arch[mangled] = arch
            current = rows.setdefault((mangled, arch), KernelResources(
                vendor="nvidia", arch=arch, mangled=mangled, name=demangle(mangled)))
            current.evidence.append(line.strip())
            continue
        m = _PROPS.search(line)
        if m:
            name = m.group(1)
            arch = entry_arch.get(name)
            current = rows.get((name, arch)) if arch else None
            if current is not None:
                current.evidence.append(line.strip())
            continue
        m = _FRAME.search(line)
        if m and current is not None:
            current.stack_frame_bytes = int(m.group(1))
            current.spill_stores_bytes = int(m.group(2))
            current.spill_loads_bytes = int(m.group(3))
            current.evidence.append(line.strip())
            continue
        m = _USED.search(line)
        if m and current is not None:
            current.registers = int(m.group(1))
            rest = m.group(2)
            sm = _SMEM.search(rest)
            current.shared_bytes = int(sm.group(1)) if sm else 0
            current.constant_bytes = {f"cmem[{b}]": int(n) for n, b in _CMEM.findall(rest)}
            bm = _BARRIERS.search(rest)
            current.barriers = int(bm.group(1)) if bm else None
            current.evidence.append(line.strip())
            current = None
            continue
    out = list(rows.values())
    for r in out:
        if not r.arch:
            r.arch = default_arch
    return out


def parse_nvcc_diagnostics(text: str) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        m = _NV_DIAG.match(line)
        if m:
            sev = m.group("sev")
            diags.append(Diagnostic(m.group("file"), int(m.group("line")), None,
                                    "error" if sev in ("catastrophic error", "fatal error") else sev,
                                    m.group("msg").strip(), line))
            continue
        if line.startswith("ptxas") and ("error" in line.split(":")[0] or "fatal" in line.split(":")[0]):
            diags.append(Diagnostic(None, None, None, "error", line.split(":", 1)[-1].strip(), line))
        elif line.startswith("nvcc fatal") or line.startswith("nvcc error"):
            diags.append(Diagnostic(None, None, None, "error", line.split(":", 1)[-1].strip(), line))
    return diags
