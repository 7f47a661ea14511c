"""What translating one file gives (``TranslatedFile``), the options of a translation, and ``finish_file``, the
step that turns a rewritten text and its references into the result (source and build files alike)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hipgauge.model import ApiCall, FileStats, Record
from hipgauge.translate.safe_rewrites import ALL_SAFE_REWRITES, SafeRewrite


@dataclass
class TranslateOptions:
    """What ``translate`` rewrites and how."""

    safe_rewrites: frozenset[str] = ALL_SAFE_REWRITES  # which safe rewrites run (empty: --no-safe-rewrites)
    launch_style: str = "chevron"  # keep <<<…>>> (hipcc accepts it) or emit hipLaunchKernelGGL
    amd_arch: tuple[str, ...] = ("gfx90a", "gfx940")  # for build files (--offload-arch, HIP_ARCHITECTURES)
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = 8 * 1024 * 1024
    known_local_names: frozenset[str] = frozenset()  # macros/functions the tree defines (not CUDA APIs)
    share_defined: frozenset[str] = frozenset()  # scan's tree-wide defined names (app.scan.tree_scan_names)
    share_qualifier_macros: tuple[Any, ...] = ()  # scan's tree-wide qualifier macros (the same pass)
    rules_share: bool = True  # also run scan's inventory + rules per file for the scan-defined translation share
    workers: int | None = None  # local process pool size for a tree; None = all cores (serial under 8 files)
    lexical: bool = True  # try the lexical fast path (translate/lexical.py) before parsing; False: tree path only
    include_dirs: tuple[str, ...] = ()  # header folders outside the tree (-I): their macros are the project's own
    rocm: Any = None  # knowledge.rocm_releases.RocmTarget the text is adjusted to (None: no target-aware pass)
    rocm_version: str | None = None  # --rocm-version as given (None: the installed hipcc's, else the newest)
    runtime_include_files: frozenset[str] = frozenset()  # files that get #include <hip/hip_runtime.h>
    device_symbols: frozenset[str] = frozenset()  # the tree's __device__/__constant__ variables (HIP_SYMBOL)
    #: project shims (headers mapping CUDA names to HIP: ``source.dualtarget``), copied as written, never rewritten;
    #: ``translate_tree`` finds them when None
    shims: frozenset[str] | None = None
    #: scan's dual-target view of the tree (``source.dualtarget.TreeDual``) for the scan-defined share; found when None
    share_dual: Any = None


@dataclass
class TranslatedFile(Record):
    """One translated file: its new text, statistics and references."""

    file: str
    kind: str
    text: str
    stats: FileStats
    references: list[ApiCall] = field(default_factory=list)  # every CUDA reference found, converted or not
    unconverted: list[ApiCall] = field(default_factory=list)
    safe_rewrites: list[SafeRewrite] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    changed: bool = False

    def summary(self) -> dict[str, Any]:
        """The per-file statistics row of the JSON document (no text)."""
        s = self.stats
        return {
            "file": self.file, "kind": self.kind, "changed": self.changed, "lines": s.lines,
            "cuda_lines": s.cuda_lines, "clean_lines": s.clean_lines, "lines_changed": s.lines_changed,
            "converted": s.refs_mapped, "unconverted": s.refs_unmapped, "converted_by_kind": dict(s.refs_by_kind),
            "safe_rewrites": _count_by(self.safe_rewrites, "rule"), "translation_share": round(s.translation_share, 4),
            "notes": list(self.notes),
        }


def _count_by(items: list[Any], attr: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for it in items:
        key = getattr(it, attr)
        out[key] = out.get(key, 0) + 1
    return dict(sorted(out.items()))


def finish_file(pf: Any, text: str, out: bytes, refs: list[ApiCall], flags: list[bool],
                rewrites: list[SafeRewrite], notes: list[str] | None = None) -> TranslatedFile:
    """The ``TranslatedFile`` of ``pf`` rewritten to ``text`` / ``out``: its references sorted, its statistics
    counted (the one place both source and build-file translation finish through)."""
    order = sorted(range(len(refs)), key=lambda i: (refs[i].line, refs[i].column))
    refs = [refs[i] for i in order]
    flags = [flags[i] for i in order]
    in_lines = pf.data.split(b"\n")
    out_lines = out.split(b"\n")
    changed_lines = sum(1 for a, b in zip(in_lines, out_lines) if a != b)
    cuda_lines: set[int] = set()
    dirty_lines: set[int] = set()
    by_kind: dict[str, int] = {}
    mapped = unmapped = 0
    unconverted: list[ApiCall] = []
    for ref, ok in zip(refs, flags):
        cuda_lines.add(ref.line)
        if ok:
            mapped += 1
            by_kind[ref.kind] = by_kind.get(ref.kind, 0) + 1
        else:
            unmapped += 1
            dirty_lines.add(ref.line)
            unconverted.append(ref)
    stats = FileStats(file=pf.display, lines=len(pf.lines), cuda_lines=len(cuda_lines),
                      clean_lines=len(cuda_lines - dirty_lines), refs_mapped=mapped, refs_unmapped=unmapped,
                      refs_by_kind=dict(sorted(by_kind.items())), lines_changed=changed_lines)
    return TranslatedFile(file=pf.display, kind=pf.kind, text=text, stats=stats, references=refs,
                          unconverted=unconverted, safe_rewrites=sorted(rewrites, key=lambda r: r.line),
                          notes=list(notes or []) + ([pf.decode_note] if getattr(pf, "decode_note", None) else []),
                          changed=out != pf.data)
