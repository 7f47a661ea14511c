"""``hipgauge scan``'s pipeline call, without Typer: the Typer command (``cli/scan.py``) and the fast path
(``cli/fast.py``, what a pre-commit hook runs) both call ``run_scan``; the view is ``report/scan_terminal.py``'s."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

from hipgauge.cli.console import draw, emit_json, err, out, progress, warn
from hipgauge.cli.flags import include_folders
from hipgauge.errors import InputError


def render_summary(*args: Any, **kwargs: Any) -> Any:
    """``hipgauge.report.scan_terminal.render_summary``, imported when it draws (``--help`` and ``--json`` never import rich)."""
    from hipgauge.report.scan_terminal import render_summary as view

    return view(*args, **kwargs)


def expand_paths(paths: list[Path]) -> list[Path]:
    """PATHs as given; a ``.txt`` file lists trees one per line (relative to the list's folder; '#' comments).

    A ``.txt`` that is a file hipgauge reads (``CMakeLists.txt``), or none of whose lines names an existing
    path, is scanned as the file it is; in a list where some lines name existing paths, a line that does
    not is an error naming the list and the line."""
    result: list[Path] = []
    for p in paths:
        listed = _listed_trees(p) if p.suffix == ".txt" and p.is_file() else None
        if listed is not None:
            result.extend(listed)
        else:
            if not p.exists() and not p.is_symlink():
                raise InputError("not found", p)
            result.append(p)
    if not result:
        raise InputError("no tree to scan (the list is empty)", paths[0] if paths else None)
    return result


def _listed_trees(p: Path) -> list[Path] | None:
    """The trees a list file names, or None when ``p`` is not a list of trees (a file to scan as it is)."""
    from hipgauge.source.walk import kind_of

    if kind_of(p.name) is not None:  # CMakeLists.txt
        return None
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None  # not a list of paths
    except OSError as exc:
        raise InputError(f"cannot read the list of trees: {exc.strerror or exc.__class__.__name__}", p) from None
    rows: list[tuple[int, str, Path]] = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        tree = Path(line).expanduser()
        if not tree.is_absolute():
            tree = p.parent / tree
        rows.append((n, line, tree))
    found = [_exists(tree) for _n, _line, tree in rows]
    if rows and not any(found):
        return None  # no line names a path: not a list of trees
    for (n, line, _tree), ok in zip(rows, found):
        if not ok:
            raise InputError(f"{line}: not found", p, n)
    return [tree for _n, _line, tree in rows]


def _exists(path: Path) -> bool:
    try:
        return path.exists() or path.is_symlink()
    except (OSError, ValueError):  # a name too long, a NUL byte: not a path
        return False


def write_atomic_sarif(findings: list[Any], target: Path, scanned: set[Path]) -> str | None:
    """Write SARIF via a temporary file and a rename; never over a scanned source file."""
    import tempfile

    from hipgauge.report.sarif import write_sarif

    resolved = target.resolve()
    if resolved in scanned:
        raise InputError("refusing to overwrite a scanned source file with SARIF output", target)
    folder = resolved.parent
    if not folder.is_dir():
        raise InputError("the folder for the SARIF file does not exist", target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".hipgauge-", suffix=".sarif.tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"cannot write SARIF: {exc.strerror or exc}", target) from None
    os.close(fd)
    try:
        note = write_sarif(findings, tmp)
        os.replace(tmp, resolved)
    except OSError as exc:
        raise InputError(f"cannot write SARIF: {exc.strerror or exc}", target) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return note


SEVERITIES = ("blocker", "wrong-results", "slow", "info")  # worst first, as hipgauge.model.Severity


def severity_threshold(value: str | None) -> str | None:
    """``--fail-on``'s value checked (InputError naming the option), or None."""
    if value is None:
        return None
    v = value.strip().lower()
    if v not in SEVERITIES:
        raise InputError(f"--fail-on {value!r}: must be one of {', '.join(SEVERITIES)}")
    return v


def fail_if_findings_at_or_above(findings: list[Any], threshold: str) -> None:
    """GateFailed (exit 1) when a finding's severity is ``threshold`` or worse."""
    from hipgauge.errors import GateFailed

    worst = SEVERITIES[: SEVERITIES.index(threshold) + 1]
    hits = [f for f in findings if str(getattr(f.severity, "value", f.severity)) in worst]
    if hits:
        raise GateFailed(f"{len(hits)} finding(s) at or above {threshold} (--fail-on {threshold})")


def run_scan(paths: list[Path], json_out: bool = False, exclude: Optional[list[str]] = None,
             config: Optional[Path] = None, sarif: Optional[Path] = None, executor: str = "local",
             scheduler: Optional[str] = None, workers: Optional[int] = None, no_progress: bool = False,
             max_findings: int = 25, fail_on: Optional[str] = None, include_dir: Optional[list[Path]] = None,
             strict: bool = False, define: Optional[list[str]] = None) -> None:
    """Scan ``paths``; print the JSON document or the summary; exit 1 (``--fail-on``) or 2 (``--strict``)."""
    from hipgauge import config as config_mod
    from hipgauge.app.scan import ScanOptions, scan_entries
    from hipgauge.report.scan_json import scan_document
    from hipgauge.source.walk import walk_tree

    if executor not in ("local", "dask"):
        raise InputError(f"--executor must be local or dask, got {executor!r}")
    threshold = severity_threshold(fail_on)
    trees = expand_paths(list(paths))
    cfg = config_mod.load(config, start=None if config else trees[0])
    includes = include_folders(include_dir, None)
    options = ScanOptions(
        exclude=(*cfg.get("exclude"), *(exclude or [])),
        ignore=tuple(cfg.get("ignore")),
        max_file_bytes=int(cfg.get("max_file_bytes")),
        workers=workers,
        defines=checked_defines([*cfg.get("defines"), *(define or [])]),
    )
    map_files = None
    if executor == "dask":
        try:
            from hipgauge.source.dask_executor import make_map
        except ImportError:
            raise InputError("--executor dask needs dask[distributed]: pip install 'hipgauge[dask]'") from None
        map_files = make_map(scheduler, workers)
    entries, skipped = walk_tree(trees, list(options.exclude), options.max_file_bytes, python=True)
    if includes:  # headers outside the tree: read for the names they define only, never scanned for findings
        from dataclasses import replace as _replace

        from hipgauge.app.scan import tree_scan_names

        headers, _ = walk_tree(includes, [], options.max_file_bytes)
        defined, qual = tree_scan_names([*entries, *[h for h in headers if h.kind == "header"]],
                                        max_bytes=options.max_file_bytes)
        options = _replace(options, defined=defined, qualifier_macros=qual)
    root = str(trees[0]) if len(trees) == 1 else ", ".join(str(t) for t in trees)
    with progress("scanning", total=len(entries), enabled=not no_progress and not json_out) as advance:
        result = scan_entries(entries, skipped, options, root, map_files=map_files, on_progress=advance)
    sarif_note = None
    if sarif is not None:
        sarif_note = write_atomic_sarif(result.findings, sarif, {e.path.resolve() for e in entries})
    document = scan_document(result)
    if json_out:
        emit_json(document)
    else:
        draw(render_summary, document, max_findings=max_findings)
        if sarif is not None:
            out.print(f"SARIF written to {sarif}")
    for w in result.warnings:
        if not json_out:
            warn(w)
    if sarif_note:
        warn(sarif_note)
    exit_if_strict(strict, document["summary"].get("caveat"))
    if threshold is not None:
        fail_if_findings_at_or_above(result.findings, threshold)


def checked_defines(items: list[str]) -> tuple[str, ...]:
    """``-D`` / ``defines`` items, each checked (a one-line error naming the bad one)."""
    from hipgauge.source.conditions import parse_define

    for item in items:
        try:
            parse_define(item)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    return tuple(items)


def exit_if_strict(strict: bool, caveat: str | None) -> None:
    """``--strict``: exit 2 (after the output) when some file could not be analysed."""
    if strict and caveat:
        err.print(f"hipgauge: --strict: {caveat}", markup=False, highlight=False)
        raise SystemExit(2)
