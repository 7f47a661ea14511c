"""Translate a whole CUDA tree into a new folder, safely.

Rules: OUT is a new (or empty) folder that is neither the input nor inside it; the input is only read; every
path written is checked to resolve inside OUT (no ``..``, no absolute names, no symlinks followed out of the
input tree); every file is written to a temporary name in its final folder and renamed into place.
Source and build files are translated; other regular files are copied so the HIP tree stays buildable.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from hipgauge.errors import InputError
from hipgauge.model import ApiCall, FileStats, Record, SkippedFile
from hipgauge.translate.mapping import load_mapping
from hipgauge.translate.rewrite import TranslatedFile, TranslateOptions, translate_file
from hipgauge.translate.safe_rewrites import SafeRewrite

SCHEMA = "hipgauge.translate/1"
_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "node_modules", ".tox", ".mypy_cache", ".pytest_cache"}
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)


@dataclass
class TranslateResult(Record):
    source: str
    output: str
    files: list[dict[str, Any]] = field(default_factory=list)  # per-file statistics rows
    unconverted: list[ApiCall] = field(default_factory=list)
    safe_rewrites: list[SafeRewrite] = field(default_factory=list)
    copied: list[str] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    stats: list[FileStats] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)

    def totals(self) -> dict[str, Any]:
        by_kind: dict[str, int] = {}
        for s in self.stats:
            for k, v in s.refs_by_kind.items():
                by_kind[k] = by_kind.get(k, 0) + v
        cuda = sum(s.cuda_lines for s in self.stats)
        clean = sum(s.clean_lines for s in self.stats)
        rewrites: dict[str, int] = {}
        for r in self.safe_rewrites:
            rewrites[r.rule] = rewrites.get(r.rule, 0) + 1
        return {
            "files": len(self.stats),
            "files_changed": sum(1 for f in self.files if f["changed"]),
            "files_copied": len(self.copied),
            "lines": sum(s.lines for s in self.stats),
            "cuda_lines": cuda,
            "clean_lines": clean,
            "lines_changed": sum(s.lines_changed for s in self.stats),
            "converted": sum(s.refs_mapped for s in self.stats),
            "unconverted": sum(s.refs_unmapped for s in self.stats),
            "converted_by_kind": dict(sorted(by_kind.items())),
            "safe_rewrites": dict(sorted(rewrites.items())),
            "translation_share": round(1.0 if cuda == 0 else clean / cuda, 4),
            "translation_share_basis": "measured: CUDA lines needing no hand edit / CUDA lines "
                                       "(lines holding a CUDA reference or construct)",
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "source": self.source,
            "output": self.output,
            "options": self.options,
            "summary": self.totals(),
            "files": self.files,
            "unconverted": [u.to_dict() for u in self.unconverted],
            "safe_rewrites": [r.to_dict() for r in self.safe_rewrites],
            "copied": self.copied,
            "skipped": [s.to_dict() for s in self.skipped],
            "warnings": self.warnings,
        }


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def check_output_folder(src: Path, out: Path) -> tuple[Path, Path]:
    """(resolved src, resolved out) or InputError (exit 2) with one line."""
    if not src.exists():
        raise InputError("input path not found", src)
    src_r = src.resolve()
    if out.is_symlink():
        raise InputError("output folder is a symbolic link; give a new folder", out)
    out_r = out.resolve()
    src_dir = src_r if src_r.is_dir() else src_r.parent
    if out_r == src_dir or _inside(out_r, src_dir):
        raise InputError(f"output folder must not be the input tree or inside it ({src_dir})", out)
    if _inside(src_r, out_r):
        raise InputError("output folder must not contain the input tree", out)
    if out_r.exists():
        if not out_r.is_dir():
            raise InputError("output path exists and is not a folder", out)
        if any(out_r.iterdir()):
            raise InputError("output folder exists and is not empty; give a new folder", out)
    return src_r, out_r


def _safe_target(out_r: Path, display: str) -> Path | None:
    rel = PurePosixPath(display)
    if rel.is_absolute() or any(part in ("..", "") for part in rel.parts) or not rel.parts:
        return None
    target = out_r.joinpath(*rel.parts)
    parent = target.parent
    # every existing component under OUT must be a real folder we made, never a link
    cur = out_r
    for part in rel.parts[:-1]:
        cur = cur / part
        if cur.is_symlink():
            return None
    if not _inside(parent.resolve() if parent.exists() else parent, out_r):
        return None
    return target


def write_atomic(target: Path, data: bytes, out_r: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if not _inside(target.parent.resolve(), out_r) or target.is_symlink():
        raise InputError("refusing to write outside the output folder", target)
    fd, tmp = tempfile.mkstemp(prefix=".hipgauge-", suffix=".tmp", dir=str(target.parent))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _local_names(entries: list[Any]) -> frozenset[str]:
    """Macro names the tree defines (``#define``): CUDA-looking names that are the project's own."""
    names: set[str] = set()
    for e in entries:
        if e.kind in ("cmake", "make", "setup.py"):
            continue
        try:
            with open(e.path, "rb") as fh:
                names.update(m.decode("ascii", "replace") for m in _DEFINE.findall(fh.read()))
        except OSError:
            continue
    return frozenset(names)


def _other_files(src_r: Path, known: set[str], max_bytes: int) -> list[tuple[Path, str]]:
    """Regular files of the tree that are not source/build files (copied as they are); no symlinks."""
    found: list[tuple[Path, str]] = []
    for dirpath, dirnames, filenames in os.walk(src_r, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not (Path(dirpath) / d).is_symlink())
        for name in sorted(filenames):
            p = Path(dirpath) / name
            rel = p.relative_to(src_r).as_posix()
            if rel in known or p.is_symlink():
                continue
            try:
                if not p.is_file() or p.stat().st_size > max_bytes:
                    continue
            except OSError:
                continue
            found.append((p, rel))
    return found


def translate_tree(src: Path | str, out: Path | str, options: TranslateOptions | None = None,
                   on_progress: Callable[[int], None] | None = None, write: bool = True) -> TranslateResult:
    """Translate ``src`` (a folder or one file) into the new folder ``out``. ``src`` is never modified."""
    from hipgauge.source.parse import load_file
    from hipgauge.source.walk import walk_tree

    options = options or TranslateOptions()
    src_p, out_p = Path(src), Path(out)
    src_r, out_r = check_output_folder(src_p, out_p)
    entries, skipped = walk_tree([src_r], list(options.exclude), options.max_file_bytes)
    single = not src_r.is_dir()
    result = TranslateResult(source=str(src_p), output=str(out_p), skipped=list(skipped),
                             options={"safe_rewrites": sorted(options.safe_rewrites),
                                      "launch_style": options.launch_style, "amd_arch": list(options.amd_arch)})
    mapping = load_mapping()
    local = _local_names(entries)
    opts = TranslateOptions(options.safe_rewrites, options.launch_style, options.amd_arch, options.exclude,
                            options.max_file_bytes, frozenset(options.known_local_names) | local)
    if write:
        out_r.mkdir(parents=True, exist_ok=True)
    known: set[str] = set()
    for entry in entries:
        display = Path(entry.path).name if single else entry.display
        known.add(display)
        real = Path(entry.path).resolve()
        if not _inside(real, src_r if not single else src_r.parent):
            result.warnings.append(f"{display}: symbolic link pointing outside the input tree; not translated")
            result.skipped.append(SkippedFile(display, "symlink outside the input tree"))
            continue
        target = _safe_target(out_r, display)
        if target is None:
            result.warnings.append(f"{display}: path would leave the output folder; not written")
            result.skipped.append(SkippedFile(display, "unsafe path"))
            continue
        pf = load_file(entry)
        if isinstance(pf, SkippedFile):
            result.skipped.append(pf)
            continue
        pf.display = display
        try:
            tf = translate_file(pf, mapping, opts)
        except Exception as exc:  # noqa: BLE001 - one odd file never stops the tree
            result.warnings.append(f"{display}: not translated ({exc.__class__.__name__}: {exc}); copied as is")
            tf = None
        data = tf.text.encode(pf.encoding, errors="replace") if tf is not None else pf.data
        if tf is not None and not tf.changed:
            data = pf.data  # byte-identical copy when nothing changed
        if write:
            write_atomic(target, data, out_r)
        if tf is not None:
            _add(result, tf)
        if on_progress:
            on_progress(1)
    if not single and write:
        for path, rel in _other_files(src_r, known, options.max_file_bytes):
            target = _safe_target(out_r, rel)
            if target is None:
                continue
            try:
                data = path.read_bytes()
            except OSError as exc:
                result.skipped.append(SkippedFile(rel, f"unreadable: {exc.strerror or exc}"))
                continue
            write_atomic(target, data, out_r)
            result.copied.append(rel)
    return result


def _add(result: TranslateResult, tf: TranslatedFile) -> None:
    result.files.append(tf.summary())
    result.stats.append(tf.stats)
    result.unconverted.extend(tf.unconverted)
    result.safe_rewrites.extend(tf.safe_rewrites)
    result.warnings.extend(tf.notes)
