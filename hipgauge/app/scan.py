"""Scan a tree: walk, then per file parse → inventory → rules → statistics, in a process pool.

``map_files(fn, items)`` is the executor: it applies ``fn`` to every item and yields the results in any
order. The default runs serially for a handful of files and in a local ``ProcessPoolExecutor`` otherwise;
``hipgauge.source.dask_executor.make_map`` gives a Dask one. Items are chunks of files (fewer round trips
than one task per file); results are sorted (file, line) afterwards, so every executor gives the same output.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, TypeVar

from hipgauge.app.analyze import analyze_file, library_name_test
from hipgauge.app.analyze import tree_qualifier_macros as tree_qualifier_macros  # re-exported: their home was here
from hipgauge.app.analyze import tree_scan_names as tree_scan_names
from hipgauge.app.overlap import Background, clear_preloaded, fork_available, preload, take_preloaded
from hipgauge.knowledge.mapping import load_mapping
from hipgauge.model import (
    ApiCall,
    DeviceFunction,
    FileStats,
    Finding,
    Kernel,
    LaunchSite,
    ScanResult,
    Severity,
    SkippedFile,
)
from hipgauge.progress import listening
from hipgauge.rules.engine import check_file
from hipgauge.rules.registry import anchor_index, load_all_rules
from hipgauge.rules.share import file_stats
from hipgauge.source.defined import QualifierMacro, tree_names
from hipgauge.source.dualtarget import inventory as dual_inventory
from hipgauge.source.dualtarget import builds_for_amd, tree_builds, tree_dual
from hipgauge.source.parse import ParsedFile, load_file, parse_bytes, read_entry
from hipgauge.source.walk import SourceEntry, walk_tree

MapFiles = Callable[[Callable[[Any], Any], list[Any]], Iterable[Any]]
SERIAL_BELOW = 8  # files: fewer than this are scanned in-process


@dataclass(frozen=True)
class ScanOptions:
    """What a scan is asked for: excludes, ignored codes, limits, workers, defines and tree-wide names."""

    exclude: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()  # rule codes never reported
    max_file_bytes: int = 8 * 1024 * 1024
    rules: bool = True
    workers: int | None = None  # local pool size; None = all cores
    #: names the scanned tree defines (``#define CUDA_CHECK``…): not CUDA API uses. ``scan_entries`` fills it
    #: from a lexical pre-pass over the whole tree when empty, so every executor sees the same set.
    defined: frozenset[str] = frozenset()
    #: macros the scanned tree defines that stand for function qualifiers (``#define KERNEL __global__``,
    #: CCCL's ``CUB_DETAIL_KERNEL_ATTRIBUTES``): ``scan_entries`` fills it in the same pre-pass when None
    qualifier_macros: tuple[QualifierMacro, ...] | None = None
    #: ``-D`` / ``[tool.hipgauge] defines`` for the dual-target view (``hipgauge.source.conditions.parse_define``)
    defines: tuple[str, ...] = ()
    #: the tree's vendor switches, shims and generated families (``hipgauge.source.dualtarget.TreeDual``):
    #: ``scan_entries`` fills it in a pre-pass when None
    dual: Any = None

    def __post_init__(self) -> None:  # accept lists too, keep the object hashable and picklable
        object.__setattr__(self, "exclude", tuple(self.exclude))
        object.__setattr__(self, "ignore", tuple(self.ignore))
        object.__setattr__(self, "defined", frozenset(self.defined))
        object.__setattr__(self, "defines", tuple(self.defines))
        if self.qualifier_macros is not None:
            object.__setattr__(self, "qualifier_macros", tuple(self.qualifier_macros))


@dataclass
class FileResult:
    """What scanning one file found (or why it was skipped), before the tree's results are assembled."""

    file: str
    lines: int = 0
    kernels: list[Kernel] = field(default_factory=list)
    device_functions: list[DeviceFunction] = field(default_factory=list)
    launch_sites: list[LaunchSite] = field(default_factory=list)
    api_calls: list[ApiCall] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    stats: FileStats | None = None
    skipped: SkippedFile | None = None
    warnings: list[str] = field(default_factory=list)
    #: what the two builds see of this file (``dualtarget.FileView.summary``), None when nothing vendor-specific
    dual: dict[str, Any] | None = None
    #: a .py file with no CUDA in it: neither scanned nor skipped (not listed)
    passed_over: bool = False


def scan_file(entry: SourceEntry, options: ScanOptions) -> FileResult:
    """Everything hipgauge learns from one file. Never raises: a failure becomes a skipped file."""
    try:
        if entry.kind == "python":
            return _scan_python(entry, options)
        # read and parsed while the tree pass ran (hipgauge.app.overlap), or now
        pf: ParsedFile | SkippedFile | None = take_preloaded(entry)
        if pf is None:
            pf = load_file(entry)
        if isinstance(pf, SkippedFile):
            return FileResult(entry.display, skipped=pf)
        result = FileResult(entry.display, lines=pf.line_count)
        if pf.decode_note:
            result.warnings.append(f"{entry.display}: {pf.decode_note}")
        _analyze(pf, options, result, entry.kind)
        return result
    except RecursionError:
        return FileResult(entry.display, skipped=SkippedFile(entry.display, "too deeply nested to analyse"))
    except MemoryError:
        return FileResult(entry.display, skipped=SkippedFile(entry.display, "out of memory while analysing"))
    except Exception as exc:  # one bad file never stops a scan (re-raised under HIPGAUGE_DEBUG)
        if os.environ.get("HIPGAUGE_DEBUG", "") not in ("", "0"):
            raise
        return FileResult(entry.display, skipped=SkippedFile(
            entry.display, f"internal error while analysing: {exc.__class__.__name__}: {exc}"[:300]))


def _scan_python(entry: SourceEntry, options: ScanOptions) -> FileResult:
    """A .py file: its inline CUDA fragments analysed as a CUDA file on the .py's own lines, and its nvcc build
    settings (``load_inline(extra_cuda_cflags=…)``, ``CUDAExtension``) checked by the build rules."""
    from hipgauge.source import pyinline  # noqa: PLC0415 - a tree with Python files only

    data = read_entry(entry)
    if isinstance(data, SkippedFile):
        return FileResult(entry.display, skipped=data)
    if not pyinline.has_markers(data):
        return FileResult(entry.display, passed_over=True)
    if b"\x00" in data[:8192]:
        return FileResult(entry.display, skipped=SkippedFile(entry.display, "binary"))
    try:
        src = pyinline.extract(data)
    except pyinline.PythonSyntaxError as exc:
        return FileResult(entry.display, skipped=SkippedFile(entry.display, f"not analysed: {exc}"))
    build = pyinline.wants_build_rules(data, entry.display)
    if not src.fragments and not build:
        result = FileResult(entry.display, passed_over=not src.notes)
        if src.notes:  # it compiles CUDA from somewhere else: say what was not read
            result.skipped = SkippedFile(entry.display, "no inline CUDA string literal (" + src.notes[0] + ")")
        return result
    pf = parse_bytes(src.cuda, entry.display, "cuda", path=str(entry.path))
    result = FileResult(entry.display)
    _analyze(pf, options, result)
    result.warnings[:0] = [f"{entry.display}: {note}" for note in src.notes]
    if options.rules:
        if build:
            bf = parse_bytes(src.build_text, entry.display, "setup.py", path=str(entry.path))
            try:
                more = check_file(bf, None, set(options.ignore), options.defined)
            except Exception as exc:  # build rules are an aid; re-raised under HIPGAUGE_DEBUG
                if os.environ.get("HIPGAUGE_DEBUG", "") not in ("", "0"):
                    raise
                more = []
                result.warnings.append(f"{entry.display}: build rules not applied ({exc.__class__.__name__})")
            if more and options.dual is not None:  # as the two builds run it: `if not torch.version.cuda: return`
                from hipgauge.source.dualtarget import apply_to_findings, file_view  # noqa: PLC0415 - as above

                text = data.decode("utf-8", "replace")
                more = apply_to_findings(file_view(entry.display, data, options.dual, "python"), more, options.dual,
                                         text.splitlines())
            if more:
                result.findings = sorted([*result.findings, *more], key=lambda f: (f.line, f.column, f.code))
                if result.stats is not None:
                    result.stats = file_stats(pf, result.api_calls, result.findings)
    if not src.fragments and not result.findings:
        return FileResult(entry.display, passed_over=True)
    result.lines = src.fragment_lines if src.fragments else pf.line_count  # CUDA lines, or the build file's
    if result.stats is not None:
        result.stats = replace(result.stats, lines=result.lines)
    return result


def _analyze(pf: Any, options: ScanOptions, result: FileResult, kind: str = "cuda") -> None:
    """Inventory, findings and statistics (``analyze_file``). A failed inventory fails the file (the caller
    skips it); a rule that fails costs that file its findings (with a warning), not its inventory. With the
    tree's dual-target view (``options.dual``), findings in vendor branches and on shims are dropped or noted."""
    a = analyze_file(pf, mapping=load_mapping(), defined=options.defined,
                     qualifier_macros=options.qualifier_macros or (), ignore=set(options.ignore),
                     rules=options.rules, stats=options.rules, dual=options.dual, kind=kind)
    result.dual = a.view.summary() if a.view is not None else None
    if a.inventory_error is not None:
        raise a.inventory_error
    inv = a.inventory
    assert inv is not None
    result.kernels, result.device_functions = inv.kernels, inv.device_functions
    result.launch_sites, result.api_calls = inv.launch_sites, inv.api_calls
    if a.rules_error is not None:
        _step_failed(result, "rules not applied", a.rules_error)
    result.findings = a.findings
    if a.stats_error is not None:
        _step_failed(result, "statistics not computed", a.stats_error)
    result.stats = a.stats


def _step_failed(result: FileResult, what: str, exc: BaseException) -> None:
    """A step of one file's analysis failed: a warning naming the file and the error (raised under
    ``HIPGAUGE_DEBUG``); the rest of the file's results stand."""
    if os.environ.get("HIPGAUGE_DEBUG", "") not in ("", "0"):
        raise exc
    result.warnings.append(f"{result.file}: {what} ({exc.__class__.__name__}: {exc})"[:300])


def scan_chunk(args: tuple[list[SourceEntry], ScanOptions | None]) -> list[FileResult]:
    """Scan a chunk of files (the unit of work sent to an executor); options None: the ones this pool worker was
    started with (``local_map``)."""
    entries, options = args
    if options is None:
        options = _POOL_OPTIONS
        if options is None:
            raise RuntimeError("scan_chunk: a chunk without options outside a local_map worker")
    return [scan_file(e, options) for e in entries]


T = TypeVar("T")


def chunk_by_size(items: list[T], workers: int, size_of: Callable[[T], int]) -> list[list[T]]:
    """Split into chunks of similar byte size, about 8 per worker, largest first (scan and translate pools)."""
    if not items:
        return []
    total = sum(max(size_of(it), 1) for it in items)
    target = max(total // max(workers * 8, 1), 64 * 1024)
    chunks: list[list[T]] = []
    cur: list[T] = []
    cur_size = 0
    for it in sorted(items, key=lambda it: -size_of(it)):
        cur.append(it)
        cur_size += max(size_of(it), 1)
        if cur_size >= target:
            chunks.append(cur)
            cur, cur_size = [], 0
    if cur:
        chunks.append(cur)
    return chunks


def chunk_entries(entries: list[SourceEntry], workers: int) -> list[list[SourceEntry]]:
    """Split into chunks of similar byte size, about 8 per worker, largest files first."""
    return chunk_by_size(entries, workers, lambda e: e.size)


#: the scan options a ``local_map`` worker was started with; None in any other process
_POOL_OPTIONS: ScanOptions | None = None


def _init_worker(options: ScanOptions | None = None) -> None:
    global _POOL_OPTIONS  # this worker process's own copy, set once at its start
    _POOL_OPTIONS = options
    load_mapping()
    anchor_index()


def local_map(workers: int | None = None, options: ScanOptions | None = None) -> MapFiles:
    """A ``map_files`` over a local process pool (results in completion order). ``options``: given to each worker
    once, at its start, for the chunks that carry None (``scan_chunk``) instead of a copy each: they hold the tree's
    cross-file macros (CCCL: 15 MB pickled, once per chunk, 16 chunks, was a third of the scan's CPU time)."""
    def run(fn: Callable[[Any], Any], items: list[Any]) -> Iterator[Any]:
        n = min(workers or os.cpu_count() or 1, len(items))
        if n <= 1:
            for item in items:
                yield fn(item)
            return
        # imported here: concurrent.futures and multiprocessing are a fifth of a small scan's start-up
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait  # noqa: PLC0415

        with ProcessPoolExecutor(max_workers=n, initializer=_init_worker, initargs=(options,)) as pool:
            pending = {pool.submit(fn, item) for item in items}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
    return run


def serial_map(fn: Callable[[Any], Any], items: list[Any]) -> Iterator[Any]:
    for item in items:
        yield fn(item)


def scan_entries(entries: list[SourceEntry], skipped: list[SkippedFile], options: ScanOptions, root: str = "",
                 map_files: MapFiles | None = None, on_progress: Callable[[int], None] | None = None) -> ScanResult:
    """Scan walked entries and assemble the sorted ``ScanResult``."""
    mapping = load_mapping()  # once here, so forked workers inherit it
    if options.rules:
        anchor_index()  # the anchor index, inherited the same way
        if len(entries) >= SERIAL_BELOW:  # workers may be forked: the rule modules too (a smaller run loads the
            load_all_rules()  # ones its anchors reach, hipgauge/rules/registry.py)
    workers = options.workers or os.cpu_count() or 1
    chunks = chunk_entries(entries, workers) if len(entries) >= SERIAL_BELOW else [[e] for e in entries]
    # a local pool of two or more workers, each given the options once: the chunks carry None
    pooled = map_files is None and len(entries) >= SERIAL_BELOW and workers > 1 and len(chunks) > 1
    try:
        options = _tree_options(entries, options, mapping, ahead=chunks if pooled and fork_available() else None)
        return _scan_chunks(entries, chunks, skipped, options, root, map_files, on_progress, pooled, workers)
    finally:
        clear_preloaded()


def _tree_options(entries: list[SourceEntry], options: ScanOptions, mapping: Any,
                  ahead: list[list[SourceEntry]] | None = None) -> ScanOptions:
    """``options`` with the tree-wide parts filled (the dual-target view, the build selection, the names).
    ``ahead``: the pool's chunks, on a platform that forks: the tree pass then runs in a child process while this
    one computes the names and reads and parses the chunks' files ahead (``hipgauge.app.overlap``)."""
    need_names = not options.defined or options.qualifier_macros is None
    names: tuple[frozenset[str], tuple[QualifierMacro, ...]] | None = None
    if options.dual is None:
        # the build scripts first: a tree whose HIP build shows only there (a ROCm branch of setup.py, a CMake
        # variant) ships for AMD, and the cross-file macros must know it (the nvcc-only names it leaves undefined)
        builds = tree_builds(entries, options.max_file_bytes)

        def dual_pass(options: ScanOptions = options, builds: Any = builds) -> Any:
            return tree_dual(entries, options.defines, options.max_file_bytes, mapping.entries, builds=builds)

        if ahead is None:
            dual = dual_pass()
        else:
            background = Background(dual_pass)
            try:
                if need_names:
                    names = tree_names(entries, library_name_test(mapping, options.rules), options.max_file_bytes)
                preload((e for chunk in ahead for e in chunk), background.ready)
                dual = background.result()
            finally:
                background.close()
        options = replace(options, dual=dual)
    if options.dual is not None and options.dual.builds is None:
        options = replace(options, dual=replace(options.dual, builds=tree_builds(entries, options.max_file_bytes)))
    if need_names:
        defined, qual = names or tree_names(entries, library_name_test(mapping, options.rules), options.max_file_bytes)
        options = replace(options, defined=options.defined or defined,
                          qualifier_macros=qual if options.qualifier_macros is None else options.qualifier_macros)
    return options


def _scan_chunks(entries: list[SourceEntry], chunks: list[list[SourceEntry]], skipped: list[SkippedFile],
                 options: ScanOptions, root: str, map_files: MapFiles | None,
                 on_progress: Callable[[int], None] | None, pooled: bool, workers: int) -> ScanResult:
    if map_files is None:
        map_files = serial_map if len(entries) < SERIAL_BELOW or workers <= 1 else \
            local_map(workers, options if pooled else None)
    results: list[FileResult] = []
    if map_files is serial_map and on_progress is not None:  # in this process: progress inside each file too
        for chunk in chunks:
            for entry in chunk:
                done = [0.0]

                def moved(fraction: float, done: list[float] = done) -> None:
                    if fraction > done[0]:
                        on_progress(fraction - done[0])  # type: ignore[arg-type]
                        done[0] = fraction

                with listening(moved):
                    results.append(scan_file(entry, options))
                on_progress(1 - done[0])  # type: ignore[arg-type]
    else:
        # forked workers: what this process holds (the tree's macros, the mapping) is left out of their collector's
        # passes, which would walk it all, page by page (gc.freeze); not when a caller has frozen some already
        frozen = pooled and gc.isenabled() and gc.get_freeze_count() == 0
        if frozen:
            gc.freeze()
        try:
            for chunk_result in map_files(scan_chunk, [(c, None if pooled else options) for c in chunks]):
                if pooled:  # the workers are forked: what this process read ahead is theirs now
                    clear_preloaded()
                results.extend(chunk_result)
                if on_progress is not None:
                    on_progress(len(chunk_result))
        finally:
            if frozen:
                gc.unfreeze()
    res = assemble(results, skipped, root)
    res.dual_target = dual_inventory(options.dual, [r.dual for r in sorted(results, key=lambda r: r.file)
                                                    if r.dual is not None and r.skipped is None])
    selection = options.dual.builds if options.dual is not None else None
    res.dual_target.update(builds_for_amd(selection, res.dual_target))
    res.dual_target["build_selection"] = selection.to_dict() if selection is not None else None
    res.dual_target["library_units"] = library_units(options.dual, res.findings)
    return res


def library_units(tree: Any, findings: list[Finding]) -> dict[str, list[str]]:
    """For each file with a library finding, the compiled units that include it (its kernels): headers of one kernel
    are one piece of library work, not one each (DeepSpeed's evoformer attention: 25 CUTLASS headers, 3 units)."""
    macros = getattr(tree, "macros", None)
    files = {f.file for f in findings if str(f.category).startswith("library")}
    if macros is None or not files:
        return {}
    from hipgauge.source.includes import units_reaching  # noqa: PLC0415 - only with library findings

    return {f: list(u) for f, u in sorted(units_reaching(macros.includes, files).items()) if u}


def scan_tree(paths: list[Path] | list[str], options: ScanOptions, map_files: MapFiles | None = None,
              on_progress: Callable[[int], None] | None = None) -> ScanResult:
    """Walk ``paths`` and scan every file found."""
    paths = [Path(p) for p in paths]
    entries, skipped = walk_tree(paths, list(options.exclude), options.max_file_bytes, python=True)
    root = str(paths[0]) if len(paths) == 1 else ", ".join(str(p) for p in paths)
    return scan_entries(entries, skipped, options, root, map_files, on_progress)


def assemble(results: list[FileResult], skipped: list[SkippedFile], root: str) -> ScanResult:
    res = ScanResult(root=root)
    res.skipped = list(skipped)
    for r in sorted(results, key=lambda r: r.file):
        if r.passed_over:
            continue
        if r.skipped is not None:
            res.skipped.append(r.skipped)
            continue
        res.files.append(r.file)
        res.lines_scanned += r.lines
        res.kernels.extend(r.kernels)
        res.device_functions.extend(r.device_functions)
        res.launch_sites.extend(r.launch_sites)
        res.api_calls.extend(r.api_calls)
        res.findings.extend(r.findings)
        if r.stats is not None:
            res.file_stats.append(r.stats)
        res.warnings.extend(r.warnings)
    res.skipped.sort(key=lambda s: s.path)
    res.kernels.sort(key=lambda k: (k.file, k.line, k.name))
    res.device_functions.sort(key=lambda d: (d.file, d.line, d.name))
    res.launch_sites.sort(key=lambda s: (s.file, s.line, s.kernel or "", s.via))
    res.api_calls.sort(key=lambda a: (a.file, a.line, a.column, a.cuda_name))
    res.findings.sort(key=lambda f: (f.file, f.line, f.column, _rank(f.severity), f.code))
    return res


def _rank(sev: Any) -> int:
    try:
        return Severity(sev).rank
    except ValueError:
        return 9
