"""Translate a whole CUDA tree into a new folder, safely.

Rules: OUT is a new (or empty) folder that is neither the input nor inside it; the input is only read; every
path written is checked to resolve inside OUT (no ``..``, no absolute names, no symlinks followed out of the
input tree); every file is written to a temporary name in its final folder and renamed into place.
Source and build files are translated; other regular files are copied so the HIP tree stays buildable.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from hipgauge.app.tree_copy import copy_unchanged, keep_modes
from hipgauge.source.coverage import not_analysed
from hipgauge.source.dualtarget import tree_builds, tree_dual
from hipgauge.errors import InputError
from hipgauge.knowledge.mapping import load_mapping
from hipgauge.model import ApiCall, FileStats, Record, SkippedFile
from hipgauge.source.parse import load_file, looks_binary, parse_bytes
from hipgauge.source.walk import walk_tree
from hipgauge.translate.candidates import find_candidates, mapping_index
from hipgauge.translate.adjust import adjust_file
from hipgauge.translate.lexical import lexical_translate
from hipgauge.translate.rewrite import BUILD_KINDS as _BUILD_KINDS
from hipgauge.translate.rewrite import (
    TranslatedFile,
    TranslateOptions,
    translate_file,
    untouched_file,
)
from hipgauge.translate.runtime_include import collect_tree_facts
from hipgauge.translate.safe_rewrites import SafeRewrite
from hipgauge.translate.target import resolve_target

SCHEMA = "hipgauge.translate/1"
_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "node_modules", ".tox", ".mypy_cache", ".pytest_cache"}
SERIAL_BELOW = 8  # files: fewer than this are translated in-process
# ``#define NAME`` (kept only at a line start, after blanks): a literal first byte lets the engine skip ahead
_DEFINE = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)")
READ_CACHE_BYTES = 256 * 1024 * 1024  # files read by the defined-names pass are kept for the rewrite, up to this
_READ_CACHE: dict[str, bytes] = {}


@dataclass
class TranslateResult(Record):
    """The ``hipgauge.translate/1`` result: per-file rows, unconverted references, safe rewrites."""

    source: str
    output: str
    files: list[dict[str, Any]] = field(default_factory=list)  # per-file statistics rows
    unconverted: list[ApiCall] = field(default_factory=list)
    safe_rewrites: list[SafeRewrite] = field(default_factory=list)
    copied: list[str] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    stats: list[FileStats] = field(default_factory=list)  # the share's statistics (scan's definition if computed)
    options: dict[str, Any] = field(default_factory=dict)
    rewrite_stats: list[FileStats] = field(default_factory=list)  # translate's own count after rewriting
    share_stats: list[FileStats] | None = None  # rules.share per file (None: not computed)
    copied_not_analysed: list[str] = field(default_factory=list)  # over max_file_bytes: copied unchanged, in no count

    def totals(self) -> dict[str, Any]:
        rw = self.rewrite_stats or self.stats
        by_kind: dict[str, int] = {}
        for s in rw:
            for k, v in s.refs_by_kind.items():
                by_kind[k] = by_kind.get(k, 0) + v
        rw_cuda = sum(s.cuda_lines for s in rw)
        rw_clean = sum(s.clean_lines for s in rw)
        converted = sum(s.refs_mapped for s in rw)
        unconverted = sum(s.refs_unmapped for s in rw)
        rewrites: dict[str, int] = {}
        for r in self.safe_rewrites:
            rewrites[r.rule] = rewrites.get(r.rule, 0) + 1
        rewrite_share = round(1.0 if rw_cuda == 0 else rw_clean / rw_cuda, 4)
        if self.share_stats is not None:
            cuda = sum(s.cuda_lines for s in self.share_stats)
            clean = sum(s.clean_lines for s in self.share_stats)
            share = round(1.0 if cuda == 0 else clean / cuda, 4)
            basis = ("measured, as hipgauge scan defines it (rules.share): CUDA-relevant lines with no unmapped "
                     "reference and no blocker/wrong-results finding / CUDA-relevant lines of the source")
        else:
            cuda, clean, share = rw_cuda, rw_clean, rewrite_share
            basis = ("measured, translate's own count (scan's rules share not computed): CUDA lines with no "
                     "unconverted reference after rewriting / CUDA lines")
        return {
            "files": len(rw),
            "files_changed": sum(1 for f in self.files if f["changed"]),
            "files_copied": len(self.copied),
            "files_not_analysed": len(self.copied_not_analysed),
            "lines": sum(s.lines for s in rw),
            "cuda_lines": cuda,
            "clean_lines": clean,
            "lines_changed": sum(s.lines_changed for s in rw),
            "converted": converted,
            "unconverted": unconverted,
            "converted_by_kind": dict(sorted(by_kind.items())),
            "references_converted_share": round(1.0 if converted + unconverted == 0
                                                else converted / (converted + unconverted), 4),
            "references_converted_basis": "measured: CUDA references the rewrite converted / all it found",
            "safe_rewrites": dict(sorted(rewrites.items())),
            "rewrite_cuda_lines": rw_cuda,
            "rewrite_clean_lines": rw_clean,
            "rewrite_share": rewrite_share,
            "translation_share": share,
            "translation_share_basis": basis,
            "caveat": not_analysed(self.skipped)["caveat"],
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
            "not_analysed": self.copied_not_analysed,
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


def _safe_target(out_r: Path, display: str, checked: set[str] | None = None) -> Path | None:
    """Where ``display`` goes under OUT, or None when that path could leave OUT. ``checked``: folders under OUT
    already found free of links (a cache for one tree)."""
    rel = PurePosixPath(display)
    if rel.is_absolute() or any(part in ("..", "") for part in rel.parts) or not rel.parts:
        return None
    target = out_r.joinpath(*rel.parts)
    # every existing component under OUT must be a real folder we made, never a link
    cur = str(out_r)
    for part in rel.parts[:-1]:
        cur = os.path.join(cur, part)
        if checked is not None and cur in checked:
            continue
        if os.path.islink(cur):
            return None
        if not os.path.exists(cur):
            break  # nothing below exists yet; write_atomic makes and checks it
        if checked is not None:
            checked.add(cur)
    parent = os.path.dirname(target)
    if os.path.exists(parent) and not _inside(Path(os.path.realpath(parent)), out_r):
        return None
    return target


_VERIFIED_DIRS: set[tuple[str, str]] = set()  # (OUT, folder) pairs this process made and checked
_TMP_COUNTER = [0]


def _checked_parent(target: Path, out_r: Path) -> str:
    parent = os.path.dirname(target)
    key = (str(out_r), parent)
    if key not in _VERIFIED_DIRS:
        os.makedirs(parent, exist_ok=True)
        if not _inside(Path(os.path.realpath(parent)), out_r):
            raise InputError("refusing to write outside the output folder", target)
        _VERIFIED_DIRS.add(key)
    return parent


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def write_atomic(target: Path, data: bytes, out_r: Path) -> None:
    """Write ``data`` to ``target`` (inside ``out_r``) through a temporary file in the same folder."""
    parent = _checked_parent(target, out_r)
    if os.path.islink(target):
        raise InputError("refusing to write outside the output folder", target)
    while True:
        _TMP_COUNTER[0] += 1
        tmp = os.path.join(parent, f".hipgauge-{os.getpid()}-{_TMP_COUNTER[0]}.tmp")
        try:
            fd = os.open(tmp, _NEW_FILE, 0o600)
            break
        except FileExistsError:
            continue
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


def write_new(target: Path, data: bytes, out_r: Path) -> None:
    """Write ``data`` to ``target`` in the staging folder ``out_r`` (which this run made, and which is renamed
    into place only when the whole tree is written): created exclusively, never through a link; a name that
    exists already goes the ``write_atomic`` way."""
    _checked_parent(target, out_r)
    try:
        fd = os.open(target, _NEW_FILE, 0o600)  # the mode write_atomic's temporary file gives
    except FileExistsError:
        write_atomic(target, data, out_r)
        return
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _local_names(entries: list[Any], keep: bool = False) -> frozenset[str]:
    """Macro names the tree defines (``#define``): CUDA-looking names that are the project's own.
    ``keep``: the bytes read stay in this process's read cache for ``_translate_item`` (each file read once)."""
    names: set[str] = set()
    kept = 0
    _READ_CACHE.clear()
    for e in entries:
        if e.kind in ("cmake", "make", "setup.py"):
            continue
        try:
            with open(e.path, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if keep and kept + len(data) <= READ_CACHE_BYTES:
            _READ_CACHE[str(e.path)] = data
            kept += len(data)
        if b"define" not in data:
            continue
        for m in _DEFINE.finditer(data):
            start = m.start()
            if not data[data.rfind(b"\n", 0, start) + 1:start].strip(b" \t"):
                names.add(m.group(1).decode("ascii", "replace"))
    return frozenset(names)


def _load(entry: Any) -> Any:
    """``load_file`` for one entry, from the read cache when the defined-names pass kept its bytes."""
    data = _READ_CACHE.pop(str(entry.path), None)
    if data is None:
        return load_file(entry)
    if looks_binary(data):
        return SkippedFile(entry.display, "binary")
    return parse_bytes(data, entry.display, entry.kind, path=str(entry.path))


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
                if not p.is_file():  # any size: a file translate does not read is copied as it is
                    continue
            except OSError:
                continue
            found.append((p, rel))
    return found


def _real_inside(path: str, root: Path, cache: dict[str, bool]) -> bool:
    """Whether ``path`` really (links resolved) lies inside ``root``; folders are resolved once each."""
    if os.path.islink(path):
        return _inside(Path(os.path.realpath(path)), root)
    folder = os.path.dirname(path)
    ok = cache.get(folder)
    if ok is None:
        ok = cache[folder] = _inside(Path(os.path.realpath(folder)), root)
    return ok


@dataclass
class _Item:
    """One file to translate, in walk order."""

    index: int
    entry: Any  # SourceEntry
    display: str
    target: Path | None


@dataclass
class _Done:
    """One file's translation result, as a worker returns it."""

    index: int
    translated: TranslatedFile | None = None  # text dropped
    skipped: SkippedFile | None = None
    warnings: list[str] = field(default_factory=list)
    share_stats: FileStats | None = None  # scan's definition (rules.share), when asked for


def _translate_item(item: _Item, opts: TranslateOptions, out_r: Path, write: bool) -> _Done:
    """Read, translate and write one file (runs in a pool worker for a large tree). Never raises for one file.
    The syntax tree is only built (``pf.tree``) when the pre-check found something or scan's share is wanted."""
    done = _Done(item.index)
    pf = _load(item.entry)
    if isinstance(pf, SkippedFile):
        done.skipped = SkippedFile(item.display, pf.reason)
        return done
    pf.display = item.display
    source = pf.kind not in _BUILD_KINDS
    try:
        cands = find_candidates(pf.data) if source else None
        tf: TranslatedFile | None = None
        if opts.shims and item.display in opts.shims:  # the project's own CUDA→HIP mapping: it is the port
            tf = untouched_file(pf)
            tf.notes.append(f"{item.display}: project shim (maps CUDA names to HIP); kept as written, not rewritten")
        elif cands is not None and not cands.needs_tree:
            tf = untouched_file(pf)
        elif cands is not None and opts.lexical:
            tf = lexical_translate(pf, load_mapping(), opts, cands)  # None: the tokens cannot decide
        if tf is None:
            tf = translate_file(pf, load_mapping(), opts, cands)
        shim = opts.shims is not None and item.display in opts.shims
        if tf is not None and not shim and (opts.rocm is not None or opts.runtime_include_files):
            tf = adjust_file(tf, pf, opts)
    except Exception as exc:  # noqa: BLE001 - one odd file never stops the tree
        done.warnings.append(f"{item.display}: not translated ({exc.__class__.__name__}: {exc}); copied as is")
        tf = None
    data = pf.data if tf is None or not tf.changed else tf.text.encode(pf.encoding, errors="replace")
    if write and item.target is not None:
        write_new(item.target, data, out_r)
    if opts.rules_share:
        done.share_stats, note = _share_stats(pf, opts.share_defined, opts.share_qualifier_macros, opts.share_dual)
        if note:
            done.warnings.append(note)
    if tf is not None:
        tf.text = ""  # written already; keep the result small for the trip back from a worker
    done.translated = tf
    return done


def _share_stats(pf: Any, defined: frozenset[str] = frozenset(), qualifier_macros: tuple[Any, ...] = (),
                 dual: Any = None) -> tuple[FileStats | None, str | None]:
    """The file's statistics as ``hipgauge scan`` computes them (``analyze_file``: inventory → rules → share),
    with scan's dual-target view of the tree (``dual``) when given."""
    # imported here: the rule engine and the inventory are a third of translate's start-up, and --no-share
    # never needs them (issue #16: a small translate must start as fast as a hipify script)
    from hipgauge.app.analyze import analyze_file  # noqa: PLC0415 - see above

    a = analyze_file(pf, mapping=load_mapping(), defined=defined, qualifier_macros=qualifier_macros, dual=dual,
                     kind=getattr(pf, "kind", None))
    failed = a.inventory_error or a.stats_error
    if failed is not None:
        return None, f"{pf.display}: scan statistics not computed ({failed.__class__.__name__}: {failed})"[:300]
    if a.rules_error is not None:  # as scan does: the file keeps its references
        exc = a.rules_error
        return a.stats, f"{pf.display}: rules not applied ({exc.__class__.__name__}: {exc})"[:300]
    return a.stats, None


def _translate_chunk(args: tuple[list[_Item], TranslateOptions, Path, bool]) -> list[_Done]:
    items, opts, out_r, write = args
    return [_translate_item(it, opts, out_r, write) for it in items]


def _chunks(items: list[_Item], workers: int) -> list[list[_Item]]:
    """Chunks of similar byte size, about 8 per worker, largest files first (as scan's pool)."""
    from hipgauge.app.scan import chunk_by_size  # noqa: PLC0415 - with the pool only (app.scan loads the rules)

    return chunk_by_size(items, workers, lambda it: it.entry.size)


def _init_worker() -> None:
    mapping_index(load_mapping())


def _run_items(items: list[_Item], opts: TranslateOptions, out_r: Path, write: bool,
               on_progress: Callable[[int], None] | None) -> list[_Done]:
    """Every item, serially for a handful of files, else in a local process pool; in input order."""
    workers = opts.workers or os.cpu_count() or 1
    results: list[_Done] = []
    if len(items) < SERIAL_BELOW or workers <= 1:
        for it in items:
            results.append(_translate_item(it, opts, out_r, write))
            if on_progress:
                on_progress(1)
        return results
    mapping_index(load_mapping())  # built before the fork, so every worker inherits it
    if opts.rules_share:
        from hipgauge.rules.registry import load_all_rules  # noqa: PLC0415 - with the share only (see _share_stats)

        load_all_rules()  # and the rule modules the share runs
    chunks = _chunks(items, workers)
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait  # noqa: PLC0415 - a pool for 8+ files only

    with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), initializer=_init_worker) as pool:
        pending = {pool.submit(_translate_chunk, (c, opts, out_r, write)) for c in chunks}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                part = fut.result()
                results.extend(part)
                if on_progress:
                    on_progress(len(part))
    results.sort(key=lambda d: d.index)
    return results


def _new_name(folder: Path, prefix: str, suffix: str, make: Callable[[str], None]) -> str:
    """A new file or folder in ``folder`` (``make(path)`` creates it, failing when the name exists): named
    ``prefix<pid>-<n>suffix``, as ``tempfile`` would with a random part (tempfile and the shutil it imports are
    ~4 ms of a small translate's start-up)."""
    while True:
        _TMP_COUNTER[0] += 1
        path = os.path.join(folder, f"{prefix}{os.getpid()}-{_TMP_COUNTER[0]}{suffix}")
        try:
            make(path)
            return path
        except FileExistsError:
            continue


def _remove_tree(path: Path) -> None:
    import shutil  # noqa: PLC0415 - only when a translate fails

    shutil.rmtree(path, ignore_errors=True)


def translate_tree(src: Path | str, out: Path | str, options: TranslateOptions | None = None,
                   on_progress: Callable[[int], None] | None = None, write: bool = True) -> TranslateResult:
    """Translate ``src`` (a folder or one file) into the new folder ``out``. ``src`` is never modified.

    Files run in a local process pool (``options.workers``; serial below 8 files); the result is the same
    either way. A file the lexical pre-check finds no CUDA name in is copied byte for byte without parsing,
    unless ``options.rules_share`` asks for scan's statistics, which need its syntax tree.
    """
    options = options or TranslateOptions()
    src_p, out_p = Path(src), Path(out)
    src_r, final_r = check_output_folder(src_p, out_p)
    if not write:
        return _translate_into(src_r, final_r, src_p, out_p, options, on_progress, write=False)
    # The whole tree is written into a staging folder beside OUT and renamed into place at the end, so a
    # failure (disk full, a kill, an error) never leaves a half-translated OUT behind.
    try:
        if final_r.exists():  # the user's own (empty) folder: it must take files, as it will hold the tree
            probe = _new_name(final_r, ".hipgauge-probe-", ".tmp", lambda p: os.close(os.open(p, _NEW_FILE, 0o600)))
            os.unlink(probe)
        final_r.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(_new_name(final_r.parent, f".{final_r.name}.", ".partial", lambda p: os.mkdir(p, 0o700)))
    except OSError as exc:
        raise InputError(f"cannot create the output folder: {exc.strerror or exc}", out_p) from None
    try:
        result = _translate_into(src_r, staging, src_p, out_p, options, on_progress, write=True)
        keep_modes(src_r, staging, single=not src_r.is_dir())
        if final_r.exists():
            final_r.rmdir()  # check_output_folder made sure it is empty
        os.replace(staging, final_r)
    except OSError as exc:
        _remove_tree(staging)
        raise InputError(f"cannot write the output folder: {exc.strerror or exc}", out_p) from None
    except BaseException:
        _remove_tree(staging)
        raise
    return result


def _translate_into(src_r: Path, out_r: Path, src_p: Path, out_p: Path, options: TranslateOptions,
                    on_progress: Callable[[int], None] | None, write: bool) -> TranslateResult:
    entries, skipped = walk_tree([src_r], list(options.exclude), options.max_file_bytes)
    single = not src_r.is_dir()
    result = TranslateResult(source=str(src_p), output=str(out_p), skipped=list(skipped),
                             options={"safe_rewrites": sorted(options.safe_rewrites),
                                      "launch_style": options.launch_style, "amd_arch": list(options.amd_arch),
                                      "rules_share": options.rules_share})
    for skip in skipped:  # the walk never follows a link out of the tree: say so, as for one found below
        if "outside the tree" in skip.reason:
            result.warnings.append(f"{skip.path}: symbolic link pointing outside the input tree; not translated")
    load_mapping()
    headers: list[Any] = []
    if options.include_dirs:  # -I: headers outside the tree are read for the names they define, never written
        found, _ = walk_tree([Path(d) for d in options.include_dirs], [], options.max_file_bytes)
        headers = [h for h in found if h.kind == "header"]
    header_names = _local_names(headers) if headers else frozenset()  # first: each call empties the read cache
    local = _local_names(entries, keep=True) | header_names
    opts = replace(options, known_local_names=frozenset(options.known_local_names) | local)
    if opts.shims is None or (opts.rules_share and opts.share_dual is None):
        dual = tree_dual(entries, max_bytes=options.max_file_bytes, known_cuda=load_mapping().entries)
        dual = replace(dual, builds=tree_builds(entries, options.max_file_bytes))
        if opts.shims is None:
            opts = replace(opts, shims=frozenset(Path(entries[0].path).name if single else d for d in dual.shim_files))
        if opts.rules_share and opts.share_dual is None:
            opts = replace(opts, share_dual=dual)
    opts = _with_tree_facts(opts, entries, result)
    if opts.rules_share:
        from hipgauge.app.analyze import tree_scan_names  # noqa: PLC0415 - scan's pipeline: only for its share

        defined, qualifier_macros = tree_scan_names([*entries, *headers], max_bytes=options.max_file_bytes)
        opts = replace(opts, share_defined=defined, share_qualifier_macros=qualifier_macros)
    if write:
        out_r.mkdir(parents=True, exist_ok=True)
    known: set[str] = set()
    items: list[_Item] = []
    root = src_r if not single else src_r.parent
    real_dirs: dict[str, bool] = {}
    checked: set[str] = set()
    for entry in entries:
        display = Path(entry.path).name if single else entry.display
        known.add(display)
        if not _real_inside(str(entry.path), root, real_dirs):
            result.warnings.append(f"{display}: symbolic link pointing outside the input tree; not translated")
            result.skipped.append(SkippedFile(display, "symlink outside the input tree"))
            continue
        target = _safe_target(out_r, display, checked)
        if target is None:
            result.warnings.append(f"{display}: path would leave the output folder; not written")
            result.skipped.append(SkippedFile(display, "unsafe path"))
            continue
        items.append(_Item(len(items), entry, display, target))
    share_stats: list[FileStats] = []
    try:
        done_items = _run_items(items, opts, out_r, write, on_progress)
    finally:
        _READ_CACHE.clear()
    for done in done_items:
        if done.skipped is not None:
            result.skipped.append(done.skipped)
            continue
        result.warnings.extend(done.warnings)
        if done.translated is not None:
            _add(result, done.translated, done.share_stats)
            if done.share_stats is not None:
                share_stats.append(done.share_stats)
    result.share_stats = share_stats if opts.rules_share else None
    if write:
        _copy_too_large(result, entries_root=root, out_r=out_r, single=single, max_bytes=options.max_file_bytes)
    if not single and write:
        for path, rel in _other_files(src_r, known, options.max_file_bytes):
            target = _safe_target(out_r, rel)
            if target is None:
                continue
            try:
                _checked_parent(target, out_r)
                copy_unchanged(path, target)
            except OSError as exc:
                result.skipped.append(SkippedFile(rel, f"unreadable: {exc.strerror or exc}"))
                continue
            result.copied.append(rel)
    return result


def _copy_too_large(result: TranslateResult, entries_root: Path, out_r: Path, single: bool, max_bytes: int) -> None:
    """A source file over ``max_file_bytes`` is copied unchanged into the HIP tree, with a warning; it stays in
    ``skipped`` (not analysed: its lines are in no count)."""
    for skip in list(result.skipped):
        if not skip.reason.startswith("too large"):
            continue
        source = entries_root / (Path(skip.path).name if single else Path(*skip.path.split("/")))
        target = _safe_target(out_r, Path(skip.path).name if single else skip.path)
        if target is None or not source.is_file() or source.is_symlink():
            continue
        try:
            _checked_parent(target, out_r)
            copy_unchanged(source, target)
        except OSError as exc:
            result.warnings.append(f"{skip.path}: over max_file_bytes ({max_bytes}) and could not be copied: "
                                   f"{exc.strerror or exc}")
            continue
        result.copied_not_analysed.append(skip.path)
        result.warnings.append(f"{skip.path}: over max_file_bytes ({max_bytes} bytes): copied unchanged, not "
                               "translated and not counted in the share")


def _with_tree_facts(opts: TranslateOptions, entries: list[Any], result: TranslateResult) -> TranslateOptions:
    """The target release and the tree-wide facts of ``runtime_include.py`` (runtime include, device symbols)."""
    rocm = opts.rocm if opts.rocm is not None else resolve_target(opts.rocm_version)
    result.options["rocm"] = rocm.to_dict()

    def read(entry: Any) -> bytes | None:
        data = _READ_CACHE.get(str(entry.path))
        if data is not None:
            return data
        try:
            with open(entry.path, "rb") as fh:
                return fh.read(opts.max_file_bytes + 1)
        except OSError:
            return None

    facts = collect_tree_facts(entries, read)
    for header, host in sorted(facts.relies_on_includer.items()):
        result.warnings.append(f"{header}: uses device code or the runtime API and includes no runtime header; "
                               f"not given one because {host} (a host file) includes it: its includers must "
                               "include <hip/hip_runtime.h> first")
    return replace(opts, rocm=rocm, runtime_include_files=facts.include_files, device_symbols=facts.device_symbols)


def _add(result: TranslateResult, tf: TranslatedFile, share: FileStats | None = None) -> None:
    row = tf.summary()
    row["rewrite_share"] = row["translation_share"]
    if share is not None:
        row["translation_share"] = round(share.translation_share, 4)
        row["scan_cuda_lines"], row["scan_clean_lines"] = share.cuda_lines, share.clean_lines
    result.files.append(row)
    result.rewrite_stats.append(tf.stats)
    if share is not None:
        share.lines_changed = tf.stats.lines_changed
    result.stats.append(share if share is not None else tf.stats)
    result.unconverted.extend(tf.unconverted)
    result.safe_rewrites.extend(tf.safe_rewrites)
    result.warnings.extend(tf.notes)
