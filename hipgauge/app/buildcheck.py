"""``build-check``: compile every translation unit for AMD (hipcc) and NVIDIA (nvcc); resources and occupancy.

A CUDA tree is translated on the fly into a temporary folder (the input is only read). Each ``.cu`` TU is
compiled with ``hipcc -c -O3 --offload-arch=X -Rpass-analysis=kernel-resource-usage`` per AMD arch and the
original with ``nvcc -c -Xptxas -v -arch=sm_XX`` per NVIDIA arch, in a thread pool. Compile errors come back
at the CUDA file:line (translation keeps lines) with the rule codes of the findings on that line. When the
front end stops on errors, the functions holding them are blanked in a scratch copy and the file compiled
again (up to ``MAX_PASSES``), so later errors (inline asm fails only in the assembler) and the resources of
the kernels that do compile still come out.
"""

from __future__ import annotations

import re
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from hipgauge.app.analyze import analyze_file
from hipgauge.app.scan import tree_scan_names
from hipgauge.app.translate import translate_tree
from hipgauge.errors import InputError
from hipgauge.kernel_names import unqualified_name, vendor_neutral
from hipgauge.model import Finding, Record, SkippedFile
from hipgauge.source.parse import load_file
from hipgauge.source.walk import walk_tree
from hipgauge.toolchain.drivers import (
    Compiler,
    CompileRun,
    find_hipcc,
    find_nvcc,
    hipcc_command,
    nvcc_command,
    run_command,
)
from hipgauge.toolchain.hipcc_output import (
    parse_clang_diagnostics,
    parse_resource_remarks,
)
from hipgauge.toolchain.isolate import Blanked, blank_error_regions
from hipgauge.toolchain.nvcc_output import parse_nvcc_diagnostics, parse_ptxas
from hipgauge.toolchain.occupancy import (
    DEFAULT_BLOCK_SIZE,
    Occupancy,
    amd_occupancy,
    arch_limits,
    known_archs,
    nvidia_occupancy,
)
from hipgauge.toolchain.resources import Diagnostic, KernelResources
from hipgauge.translate.rewrite import TranslateOptions
from hipgauge.source.conditions import BOTH, CUDA_ONLY, visibility
from hipgauge.source.build_selection import build_selection
from hipgauge.source.dualtarget import tree_dual

SCHEMA = "hipgauge.build-check/1"
MAX_PASSES = 6
LDS_LIMIT = 65536
_HIP_INCLUDE = re.compile(rb"#\s*include\s*[<\"]hip/")


@dataclass
class MappedDiagnostic(Record):
    file: str | None  # display path in the CUDA tree (None: the compiler itself / a system header)
    line: int | None
    column: int | None
    severity: str
    message: str
    rule_codes: list[str] = field(default_factory=list)
    source_line: str = ""  # the CUDA line the message points at
    compile_pass: int = 1


@dataclass
class CompileResult(Record):
    file: str
    vendor: str
    arch: str
    compiler: str
    ok: bool
    command: str
    seconds: float
    errors: int = 0
    warnings: int = 0
    diagnostics: list[MappedDiagnostic] = field(default_factory=list)
    error: str | None = None  # timeout / could not run
    passes: int = 1
    blanked: list[Blanked] = field(default_factory=list)  # regions blanked to reach the rest of the file
    kernels: list[KernelResources] = field(default_factory=list)


@dataclass
class KernelRow(Record):
    """One kernel side by side on every arch."""

    kernel: str
    file: str | None
    line: int | None
    block_size: int
    block_size_source: str  # "launch site file:line" | "assumed default (no constant block size at a launch site)"
    resources: dict[str, KernelResources] = field(default_factory=dict)  # arch → compiler figures (measured)
    occupancy: dict[str, Occupancy] = field(default_factory=dict)  # arch → estimate
    not_compiled: list[str] = field(default_factory=list)  # archs where the kernel did not compile
    flags: list[str] = field(default_factory=list)


@dataclass
class BuildCheckResult(Record):
    path: str
    translated: bool
    amd_arch: list[str]
    nvidia_arch: list[str]
    toolchains: dict[str, Compiler | None] = field(default_factory=dict)
    compiles: list[CompileResult] = field(default_factory=list)
    kernels: list[KernelRow] = field(default_factory=list)
    translation: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    units_total: int = 0  # translation units found
    units_checked: int = 0  # units whose every planned compile ran (fewer when the time budget ran out)
    budget_s: float | None = None  # the time budget the run had (None: none)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d = {"schema": SCHEMA, **d}
        d["summary"] = {
            "translation_units": len({c.file for c in self.compiles}),
            "units_checked": self.units_checked,
            "units_total": self.units_total,
            "coverage": (f"{self.units_checked} of {self.units_total} units checked"
                         + (f" (the {self.budget_s:g} s budget ran out)" if self.units_checked < self.units_total
                            and self.budget_s is not None else "")),
            "amd": {a: _arch_summary(self.compiles, a) for a in self.amd_arch},
            "nvidia": {a: _arch_summary(self.compiles, a) for a in self.nvidia_arch},
            "kernels": len(self.kernels),
            "flagged": sum(1 for k in self.kernels if k.flags),
            "provenance": "resources: measured (compiler output, see evidence); occupancy: estimated "
                          "(arch_limits.toml models); block sizes: launch site or assumed default",
        }
        return d


def _arch_summary(compiles: list[CompileResult], arch: str) -> dict[str, Any]:
    mine = [c for c in compiles if c.arch == arch]
    return {"compiled": sum(1 for c in mine if c.ok), "failed": sum(1 for c in mine if not c.ok),
            "errors": sum(c.errors for c in mine)}


# ---------------------------------------------------------------------------------------------------------
# Block sizes from launch sites
# ---------------------------------------------------------------------------------------------------------

_INT_EXPR = re.compile(r"^[\d\s()+*/\-]+$")


def _eval_int(text: str) -> int | None:
    text = re.sub(r"(?<=\d)[uUlL]+", "", text.strip())
    if not text or not _INT_EXPR.match(text) or len(text) > 64:
        return None
    try:
        value = eval(text.replace("/", "//"), {"__builtins__": {}}, {})  # noqa: S307 - digits and operators only
    except Exception:  # noqa: BLE001 - any failure to evaluate means: not a constant
        return None
    return int(value) if isinstance(value, int) and value > 0 else None


def block_size_of(expr: str | None, source: str, depth: int = 0) -> int | None:
    """Threads per block of a launch's block argument when it folds to a constant (``256``, ``dim3(16, 16)``,
    a ``dim3 block(256)`` / ``const int T = 256`` / ``#define T 256`` of the same file)."""
    if not expr or depth > 3:
        return None
    expr = expr.strip()
    v = _eval_int(expr)
    if v is not None:
        return v
    m = re.fullmatch(r"(?:dim3)?\s*[({]\s*(.*?)\s*[)}]", expr, re.S)
    if m:
        total = 1
        for part in [p for p in m.group(1).split(",") if p.strip()]:
            pv = block_size_of(part, source, depth + 1)
            if pv is None:
                return None
            total *= pv
        return total
    if re.fullmatch(r"[A-Za-z_]\w*", expr):
        name = re.escape(expr)
        for pat in (rf"\bdim3\s+(?:[^;]*?[,\s])?{name}\s*[({{]([^;]*?)[)}}]\s*[,;]",
                    rf"\bdim3\s+{name}\s*=\s*(?:dim3)?\s*[({{]([^;]*?)[)}}]\s*;",
                    rf"\b(?:const|constexpr)\s+(?:unsigned\s+|signed\s+)?(?:int|size_t|long|unsigned|uint32_t|int32_t)?\s*{name}\s*=\s*([^;,]+)[;,]",
                    rf"^\s*#\s*define\s+{name}\s+(.+?)\s*$"):
            mm = re.search(pat, source, re.M)
            if mm:
                inner = mm.group(1)
                if pat.startswith(r"\bdim3"):
                    return block_size_of(f"dim3({inner})", source, depth + 1)
                return block_size_of(inner, source, depth + 1)
    return None


# ---------------------------------------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------------------------------------


@dataclass
class _Unit:
    display: str
    cuda_path: Path  # the original
    hip_path: Path  # the translated copy (or the original for a HIP tree)
    cuda_text: str
    lines: list[str]
    findings: list[Finding]
    kernels: list[Any]  # model.Kernel
    launches: list[Any]  # model.LaunchSite


def _is_hip_tree(paths: list[Path]) -> bool:
    """Every one of ``paths`` is already a HIP unit (``_is_hip_unit``)."""
    return bool(paths) and all(_is_hip_unit(p) for p in paths)


def _is_hip_unit(path: Path, defines: Any = None) -> bool:
    """A translation unit written for HIP: it includes a ``<hip/…>`` header on a line both builds compile. One
    under a vendor guard (``#ifdef GGML_USE_HIP``) is a dual-target unit: still CUDA for nvcc, and hipcc
    compiles its HIP path. Decided per unit, never per tree."""
    try:
        data = path.read_bytes()[:2_000_000]
    except OSError:
        return False
    found = list(_HIP_INCLUDE.finditer(data))
    if not found:
        return False
    vis = visibility(data, defines)
    return any(vis.at(data.count(b"\n", 0, m.start()) + 1) in (BOTH, CUDA_ONLY) for m in found)


def _load_units(entries: list[Any], hip_root: Path | None, src_root: Path, single: bool) -> tuple[list[_Unit], list[str]]:
    units: list[_Unit] = []
    warnings: list[str] = []
    try:  # the names and qualifier macros the whole tree defines, as ``hipgauge scan`` uses them
        defined, qual_macros = tree_scan_names(entries)
    except Exception as exc:  # noqa: BLE001 - an aid to the inventory, never a reason to stop
        defined, qual_macros = frozenset(), ()
        warnings.append(f"tree-wide macro pre-pass failed ({exc.__class__.__name__}: {exc})")
    for e in entries:
        if e.kind != "cuda" or not str(e.path).endswith(".cu"):
            continue
        display = Path(e.path).name if single else e.display
        pf = load_file(e)
        if isinstance(pf, SkippedFile):
            warnings.append(f"{display}: skipped ({pf.reason or 'unreadable'})")
            continue
        pf.display = display
        a = analyze_file(pf, defined=defined, qualifier_macros=qual_macros, stats=False,
                         rules_without_inventory=True)
        inv, findings = a.inventory, a.findings
        kernels: list[Any] = inv.kernels if inv is not None else []
        launches: list[Any] = inv.launch_sites if inv is not None else []
        if a.inventory_error is not None:  # the inventory is an aid to the report, never a reason to stop
            failure = a.inventory_error
            warnings.append(f"{display}: kernels and launch sites not read ({failure.__class__.__name__}: {failure})")
        if a.rules_error is not None:  # rules are an aid to the report, never a reason to stop
            failure = a.rules_error
            warnings.append(f"{display}: rules not applied, errors carry no rule code "
                            f"({failure.__class__.__name__}: {failure})")
        hip_path = hip_root.joinpath(*display.split("/")) if hip_root is not None else Path(e.path)
        units.append(_Unit(display, Path(e.path), hip_path, pf.text, pf.lines, findings, kernels, launches))
    return units, warnings


def _rule_codes(unit: _Unit, line: int | None) -> list[str]:
    if line is None:
        return []
    on_line = [f for f in unit.findings if f.line == line]
    if not on_line:
        on_line = [f for f in unit.findings if f.line <= line <= (f.end_line or f.line)]
    if not on_line:  # an error inside a function: the blockers found in that function explain it
        kern = [k for k in unit.kernels if k.line <= line <= k.end_line]
        if kern:
            on_line = [f for f in unit.findings if f.kernel == kern[0].name and f.severity.value == "blocker"]
    ranked = sorted(on_line, key=lambda f: (f.severity.rank, f.code))
    codes: list[str] = []
    for f in ranked:
        if f.code not in codes:
            codes.append(f.code)
    return codes


def _map_diag(d: Diagnostic, path_map: dict[str, _Unit], units_by_display: dict[str, _Unit],
              display_of: dict[str, str], compile_pass: int, cwd: Path | None = None) -> MappedDiagnostic:
    display = None
    unit = None
    if d.file:
        fp = Path(d.file)
        if not fp.is_absolute() and cwd is not None:
            fp = cwd / fp
        key = str(fp.resolve()) if not d.file.startswith("<") else d.file
        unit = path_map.get(key)
        display = unit.display if unit else display_of.get(key, d.file)
        if unit is None and display in units_by_display:
            unit = units_by_display[display]
    src = ""
    codes: list[str] = []
    if unit is not None and d.line:
        if 1 <= d.line <= len(unit.lines):
            src = unit.lines[d.line - 1].strip()
        codes = _rule_codes(unit, d.line)
    return MappedDiagnostic(display, d.line, d.column, d.severity, d.message, codes, src, compile_pass)


def _diagnostics(vendor: str, output: str) -> list[Diagnostic]:
    if vendor == "amd":
        return parse_clang_diagnostics(output)
    # nvcc: cudafe "file(12): error: …" and the host compiler's "file:12:3: fatal error: …"
    return parse_nvcc_diagnostics(output) + parse_clang_diagnostics(output)


def _compile(unit: _Unit, vendor: str, arch: str, compiler: Compiler, work: Path, timeout_s: float,
             include_dirs: list[str], defines: list[str], units_by_display: dict[str, _Unit],
             display_of: dict[str, str] | None = None) -> CompileResult:
    """Compile one TU for one arch; on front-end errors blank their functions in a scratch copy and retry.

    ``display_of`` maps every file of the tree (its CUDA path and its translated HIP path, resolved) to
    its display path, so an error in an included header is reported at the header's CUDA path."""
    first_path = unit.hip_path if vendor == "amd" else unit.cuda_path
    data = first_path.read_bytes()
    current = first_path
    diags: list[MappedDiagnostic] = []
    seen: set[tuple[Any, ...]] = set()
    blanked: list[Blanked] = []
    first: CompileRun | None = None
    last: CompileRun | None = None
    passes = 0
    incs = [str(first_path.parent), *include_dirs]
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", unit.display)
    path_map = {str(first_path.resolve()): unit}
    for n in range(1, MAX_PASSES + 1):
        passes = n
        obj = work / f"{stem}.{arch}.{n}.o"
        if vendor == "amd":
            run = run_command(hipcc_command(compiler, current, arch, obj, incs, defines), timeout_s, cwd=work, hip=True)
        else:
            run = run_command(nvcc_command(compiler, current, arch, obj, incs, defines), timeout_s, cwd=work)
        first = first or run
        last = run
        local_errors: set[int] = set()
        for d in _diagnostics(vendor, run.output):
            if d.severity not in ("error", "fatal error") or (d.file or "").startswith("<"):
                continue
            md = _map_diag(d, path_map, units_by_display, display_of or {}, n, cwd=work)
            key = (md.file, md.line, md.column, md.message)
            if key in seen:
                continue
            seen.add(key)
            diags.append(md)
            if md.file == unit.display and md.line:
                local_errors.add(md.line)
        if run.ok or run.error or not local_errors:
            break
        data, newly = blank_error_regions(data, local_errors)
        if not newly:
            break
        blanked.extend(newly)
        scratch = work / "isolate" / f"{stem}.{arch}.{n}"
        scratch.mkdir(parents=True, exist_ok=True)
        current = scratch / first_path.name
        current.write_bytes(data)
        path_map[str(current.resolve())] = unit
    assert first is not None and last is not None
    if last.error is not None:
        kernels: list[KernelResources] = []
    elif vendor == "amd":
        kernels = parse_resource_remarks(last.output, arch)
    else:
        kernels = parse_ptxas(last.output, arch)
    blanked_names = {b.name for b in blanked if b.kind in ("body", "declaration")}
    blanked_lines = {b.body_line for b in blanked if b.kind == "body"} | {b.line for b in blanked}
    kept = []
    for k in kernels:
        k.file = unit.display
        base = unqualified_name(k.name)
        if (k.line is not None and k.line in blanked_lines) or base in blanked_names:
            continue  # an emptied body: its figures mean nothing
        if _calls_any(unit, base, blanked_names):
            continue  # it calls a function that had to be emptied: its figures would mislead
        kept.append(k)
    errors = sum(1 for d in diags if d.severity in ("error", "fatal error"))
    warnings = sum(1 for d in _diagnostics(vendor, first.output) if d.severity == "warning")
    seconds = first.seconds + (last.seconds if last is not first else 0.0)
    return CompileResult(unit.display, vendor, arch, compiler.name, first.ok, first.command_line, round(seconds, 3),
                         errors, warnings, diags, first.error, passes, blanked, kept)


def _calls_any(unit: _Unit, kernel: str, names: set[str]) -> bool:
    if not names:
        return False
    src = next((k for k in unit.kernels if k.name == kernel), None)
    if src is None:
        return False
    body = "\n".join(unit.lines[src.line - 1:src.end_line])
    return any(re.search(rf"\b{re.escape(n.split('::')[-1])}\s*[(<]", body) for n in names if n != kernel)


def _kernel_rows(units: list[_Unit], compiles: list[CompileResult], amd: list[str], nv: list[str]) -> list[KernelRow]:
    rows: dict[tuple[str, str], KernelRow] = {}
    by_unit = {u.display: u for u in units}
    for c in compiles:
        unit = by_unit.get(c.file)
        for k in c.kernels:
            key = (c.file, vendor_neutral(k.name))
            row = rows.get(key)
            if row is None:
                base = unqualified_name(k.name)
                src_kernel = next((sk for sk in (unit.kernels if unit else []) if sk.name == base), None)
                if src_kernel is None and k.line is not None and unit is not None:
                    src_kernel = next((sk for sk in unit.kernels if sk.line <= k.line <= sk.end_line), None)
                block, how = _block_for(base, unit)
                row = KernelRow(kernel=vendor_neutral(k.name), file=c.file, line=src_kernel.line if src_kernel else k.line,
                                block_size=block, block_size_source=how)
                rows[key] = row
            row.resources[c.arch] = k
    for row in rows.values():
        unit = by_unit.get(row.file or "")
        dyn = _dynamic_smem(unqualified_name(row.kernel), unit)
        for arch, k in row.resources.items():
            src = "launch site" if not row.block_size_source.startswith("assumed") else "assumed default"
            if k.vendor == "nvidia":
                occ = nvidia_occupancy(arch, row.block_size, k.registers or 0, k.shared_bytes or 0, dyn, src)
            else:
                occ = amd_occupancy(arch, row.block_size, k.vgprs or 0, k.agprs or 0, k.sgprs or 0,
                                    (k.shared_bytes or 0) + dyn, src)
            if occ is not None:
                row.occupancy[arch] = occ
        for c in compiles:
            if c.file == row.file and c.arch not in row.resources and (c.kernels or not c.ok):
                row.not_compiled.append(c.arch)
        _flag(row)
    have = {(r.file, unqualified_name(r.kernel)) for r in rows.values()}
    for unit in units:
        ran = [c.arch for c in compiles if c.file == unit.display]
        for sk in unit.kernels:
            if (unit.display, sk.name) in have or not ran:
                continue
            block, how = _block_for(sk.name, unit)
            row = KernelRow(kernel=sk.name, file=unit.display, line=sk.line, block_size=block, block_size_source=how,
                            not_compiled=sorted(ran))
            _flag(row)
            rows[(unit.display, sk.name)] = row
    return sorted(rows.values(), key=lambda r: (r.file or "", r.line or 0, r.kernel))


def _launches_of(base: str, unit: _Unit | None) -> list[Any]:
    if unit is None:
        return []
    return [ls for ls in unit.launches if ls.kernel and unqualified_name(ls.kernel) == base]


def _block_for(base: str, unit: _Unit | None) -> tuple[int, str]:
    for ls in _launches_of(base, unit):
        size = block_size_of(ls.block, unit.cuda_text) if unit else None
        if size:
            return size, f"launch site {ls.file}:{ls.line}"
    return DEFAULT_BLOCK_SIZE, f"assumed default {DEFAULT_BLOCK_SIZE} (no constant block size at a launch site)"


def _dynamic_smem(base: str, unit: _Unit | None) -> int:
    for ls in _launches_of(base, unit):
        if ls.shared_mem:
            v = _eval_int(ls.shared_mem)
            if v:
                return v
    return 0


def _flag(row: KernelRow) -> None:
    nv = [o.occupancy for a, o in row.occupancy.items() if (arch_limits(a) or {}).get("vendor") == "nvidia"]
    amd = {a: o.occupancy for a, o in row.occupancy.items() if (arch_limits(a) or {}).get("vendor") == "amd"}
    if nv and amd:
        best_nv = max(nv)
        for a, occ in sorted(amd.items()):
            if occ + 1e-9 < best_nv:
                row.flags.append(f"occupancy drops on {a}: {occ:.0%} vs {best_nv:.0%} on NVIDIA (estimated)")
    for a, o in sorted(row.occupancy.items()):
        if (arch_limits(a) or {}).get("vendor") == "amd" and o.lane_utilization < 0.999:
            row.flags.append(f"block of {o.block_size} threads fills {o.lane_utilization:.0%} of the lanes of its "
                             f"wavefronts on {a} (wave{(arch_limits(a) or {}).get('wave_size', 64)}; estimated)")
    for a, k in sorted(row.resources.items()):
        if k.vendor == "amd" and (k.shared_bytes or 0) > LDS_LIMIT:
            row.flags.append(f"LDS {k.shared_bytes} B > 64 KiB on {a}")
        if k.vendor == "nvidia" and (k.shared_bytes or 0) > LDS_LIMIT:
            row.flags.append(f"shared memory {k.shared_bytes} B on {a} exceeds AMD's 64 KiB LDS")
        if k.spills:
            row.flags.append(f"spills on {a}")
    if row.not_compiled:
        row.flags.append("did not compile on " + ", ".join(sorted(row.not_compiled)))


def _include_dirs(src_root: Path, hip_root: Path | None, given: list[str],
                  entries: list[Any]) -> tuple[list[str], list[str]]:
    """Include folders for the CUDA compile and for the HIP compile.

    Relative folders (from config or flags) are relative to the scanned tree, not to the compiler's
    working folder. Every folder of the tree that holds headers is added after them, as a build
    system's include list usually does; folders inside the tree point into the translated copy for hipcc.
    """
    base = src_root if src_root.is_dir() else src_root.parent
    folders: list[Path] = []
    for d in given:
        p = Path(d)
        folders.append(p if p.is_absolute() else (base / p))
    for e in entries:
        if e.kind == "header":
            parent = Path(e.path).parent
            if parent not in folders:
                folders.append(parent)
    nv: list[str] = []
    amd: list[str] = []
    for f in folders:
        nv.append(str(f))
        try:
            rel = f.resolve().relative_to(base)
        except ValueError:
            amd.append(str(f))
            continue
        amd.append(str((hip_root / rel) if hip_root is not None else f))
    return nv, amd


def build_check(path: Path | str, amd_arch: list[str] | None = None, nvidia_arch: list[str] | None = None,
                timeout_s: float = 300.0, jobs: int = 2, include_dirs: list[str] | None = None,
                defines: list[str] | None = None, exclude: list[str] | None = None,
                on_progress: Callable[[int], None] | None = None, rocm: Any = None,
                budget_s: float | None = None) -> BuildCheckResult:
    """Compile the tree at ``path`` for each AMD and NVIDIA arch; see the module docstring.

    ``budget_s``: stop starting compiles when this many seconds have passed (a compile in flight gets only the
    time left); the result keeps what ran and says ``k of n units checked``."""
    deadline = None if budget_s is None else time.monotonic() + budget_s
    src = Path(path)
    if not src.exists():
        raise InputError("not found", src)
    amd = list(amd_arch if amd_arch is not None else ["gfx90a", "gfx940"])
    nv = list(nvidia_arch if nvidia_arch is not None else ["sm_90", "sm_80"])
    for vendor, archs in (("amd", amd), ("nvidia", nv)):
        for a in archs:
            if (arch_limits(a) or {}).get("vendor") != vendor:
                raise InputError(f"{vendor} arch {a!r}: not a known {'AMD' if vendor == 'amd' else 'NVIDIA'} target "
                                 f"(known: {', '.join(known_archs(vendor))})")
    src_r = src.resolve()
    single = src_r.is_file()
    entries, _skipped = walk_tree([src_r], list(exclude or []), 8 * 1024 * 1024)
    if not any(e.kind == "cuda" and str(e.path).endswith(".cu") for e in entries):
        raise InputError("no .cu translation unit to compile", src)
    result = BuildCheckResult(path=str(src), translated=False, amd_arch=amd, nvidia_arch=nv)
    hipcc, nvcc = find_hipcc(), find_nvcc()
    result.toolchains = {"hipcc": hipcc, "nvcc": nvcc}
    if hipcc is None and amd:
        result.warnings.append("hipcc not found (Debian: apt-get install hipcc libamdhip64-dev rocm-device-libs; "
                               "or set HIPGAUGE_HIPCC): AMD compile checks skipped")
    if nvcc is None and nv:
        result.warnings.append("nvcc not found (install the CUDA toolkit or set HIPGAUGE_NVCC): NVIDIA compile "
                               "checks skipped")
    try:
        dual = tree_dual(entries)
    except ValueError:
        dual = None
    defs = dual.defines() if dual is not None else None
    unit_paths = [Path(e.path) for e in entries if e.kind == "cuda" and str(e.path).endswith(".cu")]
    hip_units = {str(p.resolve()) for p in unit_paths if _is_hip_unit(p, defs)}
    hip_tree = bool(unit_paths) and len(hip_units) == len(unit_paths)
    # the project's HIP switches (GGML_USE_HIP, BNB_HIP…): hipcc compiles a dual-target unit's HIP path with them
    amd_defines = list(defines or []) + [s.name for s in (dual.switches if dual is not None else ())
                                          if s.side == "hip" and s.how in ("name", "build", "config")
                                          and s.name not in (defines or [])]
    with tempfile.TemporaryDirectory(prefix="hipgauge-build-check-") as tmp:
        work = Path(tmp)
        hip_root: Path | None = None
        if not hip_tree:
            tr = translate_tree(src_r, work / "hip", TranslateOptions(amd_arch=tuple(amd), exclude=tuple(exclude or ()),
                                                                   rocm=rocm))
            result.translated = True
            result.translation = tr.totals()
            hip_root = work / "hip"
        elif nv:
            result.warnings.append("the tree is already HIP: nvcc checks of the original CUDA are skipped")
            nv_run: list[str] = []
            nv = nv_run
        if hip_units and not hip_tree and nv:
            result.warnings.append(f"{len(hip_units)} of {len(unit_paths)} translation unit(s) already HIP (an "
                                   "unguarded <hip/…> include): nvcc checks skipped for them only")
        units, warns = _load_units(entries, hip_root if not single else work / "hip", src_r, single)
        result.warnings.extend(warns)
        (work / "obj").mkdir()
        units_by_display = {u.display: u for u in units}
        nv_incs, amd_incs = _include_dirs(src_r, hip_root, list(include_dirs or []), entries)
        display_of: dict[str, str] = {}
        for e in entries:
            shown = Path(e.path).name if single else e.display
            display_of[str(Path(e.path).resolve())] = shown
            if hip_root is not None:
                display_of[str(hip_root.joinpath(*e.display.split("/")).resolve())] = shown
        tasks: list[tuple[str, Callable[[float], CompileResult]]] = []

        def task(u: _Unit, vendor: str, a: str, compiler: Compiler, incs: list[str],
                 defs: list[str]) -> Callable[[float], CompileResult]:
            """One compile, called with the seconds it may take."""
            return lambda t: _compile(u, vendor, a, compiler, work / "obj", t, incs, defs, units_by_display, display_of)

        selection = build_selection(entries)
        not_hip = set()
        if selection is not None and selection.has_hip_build:
            not_hip = {u.display for u in units if (b := selection.builds_for(u.display)) is not None and "hip" not in b}
            if not_hip and hipcc is not None:
                result.warnings.append(f"{len(not_hip)} unit(s) the tree's HIP build never compiles (its build scripts "
                                       "say so): not compiled with hipcc")
        for u in units:
            if hipcc is not None and u.display not in not_hip:
                tasks.extend((u.display, task(u, "amd", a, hipcc, amd_incs, amd_defines)) for a in amd)
            if nvcc is not None and not hip_tree and str(u.cuda_path.resolve()) not in hip_units:
                tasks.extend((u.display, task(u, "nvidia", a, nvcc, nv_incs, list(defines or []))) for a in nv)

        def run_task(item: tuple[str, Callable[[float], CompileResult]]) -> CompileResult | None:
            left = timeout_s if deadline is None else min(timeout_s, deadline - time.monotonic())
            if left <= 0:
                return None  # the budget ran out before this compile started
            return item[1](left)

        compiles: list[CompileResult] = []
        missed: set[str] = set()
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for item, res in zip(tasks, pool.map(run_task, tasks)):
                if res is None or (deadline is not None and res.error and time.monotonic() >= deadline):
                    missed.add(item[0])  # not run, or stopped by the budget: the unit is not checked
                    if res is None:
                        continue
                compiles.append(res)
                if on_progress:
                    on_progress(1)
        result.units_total = len(units)
        planned = {d for d, _t in tasks}  # a unit no compile was planned for (CUDA build only) is not checked
        result.units_checked = sum(1 for u in units if u.display not in missed and u.display in planned)
        result.budget_s = budget_s
        if missed:
            result.warnings.append(f"time budget of {budget_s:g} s ran out: {result.units_checked} of "
                                   f"{result.units_total} units checked; the rest were not compiled")
        result.compiles = sorted(compiles, key=lambda c: (c.file, c.vendor, c.arch))
        result.kernels = _kernel_rows(units, result.compiles, amd, nv)
        for c in result.compiles:
            if c.error:
                result.warnings.append(f"{c.file} [{c.arch}]: {c.error}")
    return result
