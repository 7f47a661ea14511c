"""Sort build-check errors into port defects and environment gaps.

A compile that stops on ``'hipblas/hipblas.h' file not found`` (or ``cublas_v2.h: No such file or
directory``) says nothing about the port: the vendor library is simply not installed on the machine
that ran the check. Such errors are *environment* gaps. Errors that follow from them in the same
translation unit (``use of undeclared identifier 'hipcub'`` once hipCUB's header is missing) are
*consequences*. Everything else (wmma, inline asm, warp-size assumptions, …) is a *port* error.

Which headers belong to a vendor library is data: the header table of the CUDA→HIP mapping
(``hipgauge/data/hipify_mapping.tsv`` + ``mapping_extra.tsv``, from the public HIPIFY tables), both
the CUDA names (``cudnn.h``) and their HIP counterparts (``miopen/miopen.h``), plus the folder prefixes
(``cub/``, ``hipcub/``, ``thrust/`` …), and ``hipgauge/data/library_headers.toml`` for ROCm folders no CUDA
header maps to (``rocblas/``, ``rocprim/`` …). The CUDA runtime headers themselves are not library headers:
if ``hip/hip_runtime.h`` is missing, the toolchain is broken, which is a different gap (``toolchain``).

Input: a ``hipgauge.build-check/1`` dict. Output: a plain dict (``classification`` in the assessment).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import lru_cache
from typing import Any

from hipgauge.datafiles import load_data_toml
from hipgauge.knowledge.mapping import NON_LIBRARY, load_mapping

ENVIRONMENT, CONSEQUENCE, PORT, TOOLCHAIN = "environment", "consequence", "port", "toolchain"

_NOT_FOUND = [
    re.compile(r"^'(?P<h>[^']+)' file not found"),  # clang / hipcc
    re.compile(r"^(?P<h>[^\s:]+): No such file or directory"),  # gcc / nvcc host pass
    re.compile(r'^cannot open source file "(?P<h>[^"]+)"'),  # EDG (nvcc cudafe)
]
_UNDECLARED = re.compile(r"undeclared identifier|unknown type name|no (?:type|template|member) named|has not been "
                         r"declared|was not declared|is undefined|not a (?:class, )?namespace|does not name a type|"
                         r"has no member|incomplete type|no matching function")
_BARE = re.compile(r"(?:identifier|named|type name)\s+(?:::)?([A-Za-z_]\w*)")
_QUOTED = re.compile(r"""['"](?:::)?([A-Za-z_]\w*)""")
_HIP_RUNTIME_TOKENS = {"threadidx", "blockidx", "blockdim", "griddim", "warpsize", "__hip", "hip", "__syncthreads"}
_SCRATCH = re.compile(r"^.*?/hipgauge-build-check-[^/]+/(?:hip|cuda|src|tree)/")


@lru_cache(maxsize=1)
def library_headers() -> tuple[dict[str, str], dict[str, str], dict[str, str], tuple[set[str], tuple[str, ...]]]:
    """(exact header → library, folder prefix → library, runtime headers → component, CUDA headers and folder
    prefixes with no HIP counterpart) from the mapping data."""
    mapping = load_mapping()
    exact: dict[str, str] = {}
    runtime: dict[str, str] = {}
    cuda_only = {cuda for cuda, e in mapping.headers.items() if not e.hip_name}
    cuda_only_prefixes = tuple(r.prefix for r in mapping.header_prefixes if not r.hip)
    for cuda, entry in mapping.headers.items():
        target = runtime if entry.library in NON_LIBRARY else exact
        target[cuda] = entry.library
        if entry.hip_name:
            target.setdefault(entry.hip_name, entry.library)
    prefixes: dict[str, str] = {}
    for rule in mapping.header_prefixes:
        if rule.library in NON_LIBRARY or rule.library == "other":
            continue
        prefixes[rule.prefix] = rule.library
        if rule.hip and "/" in rule.hip:
            prefixes.setdefault(rule.hip.split("/", 1)[0] + "/", rule.library)
    extra = load_data_toml("library_headers.toml")
    for prefix, lib in (extra.get("prefixes") or {}).items():
        prefixes.setdefault(str(prefix), str(lib))
    for header, lib in list(exact.items()):  # hipblas/hipblas.h → every header under hipblas/
        if "/" in header:
            prefixes.setdefault(header.split("/", 1)[0] + "/", lib)
    return exact, prefixes, runtime, (cuda_only, cuda_only_prefixes)


def header_library(header: str, vendor: str | None = None) -> tuple[str, str] | None:
    """(kind, library) of an included header: ("environment", "cublas") for a vendor library header,
    ("toolchain", "runtime") for a CUDA/HIP runtime header, ("port", lib) for a CUDA header with no HIP
    counterpart met by an AMD compile (``mma.h``, ``cutlass/…``), None for a header of the project itself."""
    exact, prefixes, runtime, (cuda_only, cuda_only_prefixes) = library_headers()
    h = header.strip().strip('<>"')
    third = third_party_library(h)
    if third is not None:  # PyTorch, pybind11, CUTLASS…: neither toolchain ships them, on hipcc or nvcc
        return ENVIRONMENT, third
    nv_third = next((lib for prefix, lib in _third_party()[2] if h.startswith(prefix)), None)
    if vendor == "nvidia" and nv_third is not None:
        return ENVIRONMENT, nv_third  # NVIDIA's template library, not installed where nvcc ran
    if vendor == "amd" and (h in cuda_only or h.startswith(cuda_only_prefixes) or _is_cuda_header(h)):
        # a CUDA header reached by hipcc (cuda_fp16.h, cublas_v2.h): the unit was not ported or its vendor guard
        # let CUDA through; no machine could supply it, so it is the port's problem, not the toolchain's
        return PORT, exact.get(h) or runtime.get(h) or next((lib for p, lib in prefixes.items() if h.startswith(p)), "other")
    if h in runtime or h.startswith(("hip/", "cuda/")):
        return TOOLCHAIN, runtime.get(h, "runtime")
    if h in exact:
        return ENVIRONMENT, exact[h]
    for prefix, lib in prefixes.items():
        if h.startswith(prefix):
            return ENVIRONMENT, lib
    return None


@lru_cache(maxsize=1)
def _third_party() -> tuple[tuple[tuple[str, str], ...], tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(third-party header prefixes of both vendors, toolchain install folders, NVIDIA-only third-party prefixes)
    from ``library_headers.toml``."""
    extra = load_data_toml("library_headers.toml")
    third = tuple((str(k), str(v)) for k, v in (extra.get("third_party") or {}).items())
    paths = tuple(str(p) for p in (extra.get("toolchain_paths") or {}).get("prefixes", []))
    nv = tuple((str(k), str(v)) for k, v in (extra.get("nvidia_third_party") or {}).items())
    return third, paths, nv


def third_party_library(header: str) -> str | None:
    """The third-party library (``pytorch``, ``cutlass``…) an included header belongs to, None for any other."""
    for prefix, lib in _third_party()[0]:
        if header == prefix or (prefix.endswith("/") and header.startswith(prefix)):
            return lib
    return None


def in_toolchain(path: str | None) -> bool:
    """The error's location is inside an installed toolchain's own headers (``/usr/include/hip/…``)."""
    return bool(path) and str(path).startswith(_third_party()[1])


@lru_cache(maxsize=4096)
def _is_cuda_header(header: str) -> bool:
    """A header only the CUDA toolkit ships (a CUDA-side name of the HIPIFY header table, or under ``cuda/``)."""
    if header.startswith(("cuda/", "cub/", "thrust/system/cuda/")):
        return True
    entry = load_mapping().headers.get(header)
    return entry is not None and entry.hip_name != header


def _tokens(header: str, library: str) -> set[str]:
    """Identifier prefixes a missing header would have declared: the folder or file stem, the library."""
    h = header.strip().strip('<>"')
    stem = h.split("/", 1)[0] if "/" in h else h.rsplit(".", 1)[0]
    stem = re.sub(r"(_v2|_api|_kernel)$", "", stem)
    return {t.lower() for t in (stem, library) if t and len(t) >= 3}


def display_file(path: str | None) -> str | None:
    """A compiler path in the build check's scratch copy shown relative to the tree (``include/heads.cuh``)."""
    if not path:
        return path
    return _SCRATCH.sub("", path)


def _identifiers(message: str) -> list[str]:
    """The quoted names of an undeclared-name style message (empty for any other message)."""
    if not _UNDECLARED.search(message):
        return []
    return _QUOTED.findall(message) + _BARE.findall(message)


def classify_diagnostic(message: str, missing_tokens: set[str], vendor: str | None = None) -> tuple[str, str | None]:
    """(class, header) of one error message; ``missing_tokens`` from the unit's missing library headers."""
    for pattern in _NOT_FOUND:
        m = pattern.search(message.strip())
        if m:
            found = header_library(m.group("h"), vendor)
            if found is None:
                return PORT, m.group("h")  # a project header not found: include path, or a file hipify did not produce
            return found[0], m.group("h")
    names = _identifiers(message)
    if missing_tokens and any(n.lower().startswith(t) for n in names for t in missing_tokens):
        return CONSEQUENCE, None
    return PORT, None


def classify_build_check(doc: dict[str, Any] | None) -> dict[str, Any] | None:
    """The classification of a ``hipgauge.build-check/1`` document's errors (None when it has no compiles)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("compiles"), list):
        return None
    counts: Counter[str] = Counter()
    headers: dict[tuple[str, str], dict[str, Any]] = {}
    port_items: list[dict[str, Any]] = []
    units = {"total": 0, "compiled": 0, "failed_port": 0, "blocked_by_environment": 0, "failed_toolchain": 0}
    by_arch: dict[str, Counter[str]] = defaultdict(Counter)
    blocked_units: list[str] = []
    in_toolchain_errors: list[str] = []
    for unit in doc["compiles"]:
        if not isinstance(unit, dict):
            continue
        arch = str(unit.get("arch") or "?")
        vendor = unit.get("vendor")
        units["total"] += 1
        diags = [d for d in unit.get("diagnostics") or [] if isinstance(d, dict)
                 and str(d.get("severity", "")).endswith("error")]
        missing: set[str] = set()
        classes: Counter[str] = Counter()
        for d in diags:  # first the not-found errors, so the undeclared names after them are recognised
            kind, header = classify_diagnostic(str(d.get("message", "")), set(), vendor)
            if kind in (ENVIRONMENT, TOOLCHAIN) and header:
                lib = header_library(header, vendor)[1]  # type: ignore[index]
                missing |= _tokens(header, lib)
                if vendor == "amd":  # a HIP library header brings the HIP runtime with it: once it is gone (and
                    missing |= _HIP_RUNTIME_TOKENS  # blanked for the next pass), runtime names go undeclared too
        for d in diags:
            kind, header = classify_diagnostic(str(d.get("message", "")), missing, vendor)
            if kind == PORT and in_toolchain(d.get("file")):
                kind, header = ENVIRONMENT, None  # inside the installed toolchain's headers: not the port's code
                in_toolchain_errors.append(f"{d.get('file')}:{d.get('line')}: {d.get('message')}"[:200])
            classes[kind] += 1
            counts[kind] += 1
            by_arch[arch][kind] += 1
            if kind in (ENVIRONMENT, TOOLCHAIN) and header:
                key = (header, arch)
                entry = headers.setdefault(key, {"header": header, "library": header_library(header, vendor)[1],  # type: ignore[index]
                                                 "kind": kind, "arch": arch, "vendor": unit.get("vendor"),
                                                 "units": []})
                if unit.get("file") not in entry["units"]:
                    entry["units"].append(unit.get("file"))
            elif kind == PORT:
                port_items.append({"file": display_file(d.get("file")) or unit.get("file"), "line": d.get("line"),
                                   "arch": arch, "vendor": unit.get("vendor"), "severity": d.get("severity"),
                                   "message": d.get("message"), "rule_codes": list(d.get("rule_codes") or []),
                                   "source_line": d.get("source_line") or "", "unit": unit.get("file")})
        if unit.get("ok"):
            units["compiled"] += 1
        elif classes[PORT]:
            units["failed_port"] += 1
        elif classes[TOOLCHAIN]:
            units["failed_toolchain"] += 1
        elif classes[ENVIRONMENT] or classes[CONSEQUENCE]:
            units["blocked_by_environment"] += 1
            blocked_units.append(f"{unit.get('file')} ({arch})")
        else:  # failed without an error message we could read (link step, crash): not the environment's fault
            units["failed_port"] += 1
    missing_list = sorted(headers.values(), key=lambda e: (e["arch"], e["header"]))
    sentence = []
    if counts[ENVIRONMENT] or counts[CONSEQUENCE]:
        libs = sorted({e["header"] for e in missing_list if e["kind"] == ENVIRONMENT})
        sentence.append(f"{counts[ENVIRONMENT] + counts[CONSEQUENCE]} error(s) come from library headers not installed "
                        f"on the machine that ran the check ({', '.join(libs)}): an environment gap, not a port defect; "
                        f"{units['blocked_by_environment']} compile(s) failed on them only, and the code that needs those headers "
                        "is unchecked")
    if in_toolchain_errors:
        sentence.append(f"{len(in_toolchain_errors)} error(s) sit inside the installed toolchain's own headers: an "
                        "environment gap, not a port defect")
    if counts[TOOLCHAIN]:
        sentence.append(f"{counts[TOOLCHAIN]} error(s) are missing runtime headers: the toolchain install is incomplete")
    sentence.append(f"{counts[PORT]} error(s) are port errors" + (" (below)" if counts[PORT] else ""))
    return {
        "diagnostics": {ENVIRONMENT: counts[ENVIRONMENT], CONSEQUENCE: counts[CONSEQUENCE], TOOLCHAIN: counts[TOOLCHAIN],
                        PORT: counts[PORT]},
        "units": units,
        "blocked_units": blocked_units,
        "toolchain_errors": in_toolchain_errors[:20],
        "missing_headers": missing_list,
        "port_errors": port_items,
        "by_arch": {a: dict(c) for a, c in sorted(by_arch.items())},
        "summary": "; ".join(sentence) + ".",
        "basis": "library headers: the header table of hipgauge/data/hipify_mapping.tsv and mapping_extra.tsv "
                 "(CUDA and HIP names); errors naming an identifier of a missing library count as its consequence",
    }
