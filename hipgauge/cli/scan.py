"""``hipgauge scan PATH…``: the inventory of a CUDA tree, its port findings and translation share."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Optional

import typer

from hipgauge.cli.app import Table, app, emit_json, err, out, progress, warn
from hipgauge.errors import InputError


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


def write_atomic_sarif(findings: list[Any], target: Path, scanned: set[Path]) -> None:
    """Write SARIF via a temporary file and a rename; never over a scanned source file."""
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
        write_sarif(findings, tmp)
        os.replace(tmp, resolved)
    except OSError as exc:
        raise InputError(f"cannot write SARIF: {exc.strerror or exc}", target) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@app.command()
def scan(
    paths: list[Path] = typer.Argument(..., help="CUDA trees or files; a .txt file lists trees one per line"),
    json_out: bool = typer.Option(False, "--json", help="print the hipgauge.scan/1 JSON document"),
    exclude: Optional[list[str]] = typer.Option(None, "--exclude", help="glob (gitignore syntax) to leave out; repeatable"),
    config: Optional[Path] = typer.Option(None, "--config", help="hipgauge.toml (default: found from PATH upwards)"),
    sarif: Optional[Path] = typer.Option(None, "--sarif", help="also write the findings as SARIF 2.1.0 to this file"),
    executor: str = typer.Option("local", "--executor", help="local (process pool) or dask"),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address (default: a local cluster)"),
    workers: Optional[int] = typer.Option(None, "--workers", min=1, help="worker processes (default: all cores)"),
    no_progress: bool = typer.Option(False, "--no-progress", help="no progress bar"),
    max_findings: int = typer.Option(25, "--max-findings", min=0, help="findings listed in the terminal view (0: counts only)"),
) -> None:
    """Inventory a CUDA tree: kernels, launch sites, library calls with their HIP counterparts, port findings."""
    from hipgauge import config as config_mod
    from hipgauge.source.scan_json import scan_document
    from hipgauge.source.scanner import ScanOptions, scan_entries
    from hipgauge.source.walk import walk_tree

    if executor not in ("local", "dask"):
        raise InputError(f"--executor must be local or dask, got {executor!r}")
    trees = expand_paths(list(paths))
    cfg = config_mod.load(config, start=None if config else trees[0])
    options = ScanOptions(
        exclude=[*cfg.get("exclude"), *(exclude or [])],
        ignore=list(cfg.get("ignore")),
        max_file_bytes=int(cfg.get("max_file_bytes")),
        workers=workers,
    )
    map_files = None
    if executor == "dask":
        try:
            from hipgauge.source.dask_executor import make_map
        except ImportError:
            raise InputError("--executor dask needs dask[distributed]: pip install 'hipgauge[dask]'") from None
        map_files = make_map(scheduler, workers)
    entries, skipped = walk_tree(trees, list(options.exclude), options.max_file_bytes, python=True)
    root = str(trees[0]) if len(trees) == 1 else ", ".join(str(t) for t in trees)
    with progress("scanning", total=len(entries), enabled=not no_progress and not json_out) as advance:
        result = scan_entries(entries, skipped, options, root, map_files=map_files, on_progress=advance)
    if sarif is not None:
        write_atomic_sarif(result.findings, sarif, {e.path.resolve() for e in entries})
    document = scan_document(result)
    if json_out:
        emit_json(document)
    else:
        render_summary(document, max_findings=max_findings)
        if sarif is not None:
            out.print(f"SARIF written to {sarif}")
    for w in result.warnings:
        if not json_out:
            warn(w)


_SEVERITY_ORDER = {"blocker": 0, "wrong-results": 1, "slow": 2, "info": 3}
_SEVERITY_STYLE = {"blocker": "bold red", "wrong-results": "red", "slow": "yellow", "info": "dim"}


def render_findings(findings: list[dict[str, Any]], limit: int) -> None:
    """The to-do list: worst first, then by file and line; each with its rule code and enclosing kernel."""
    if limit <= 0 or not findings:
        return
    ordered = sorted(findings, key=lambda f: (_SEVERITY_ORDER.get(f["severity"], 9), f["file"], f["line"], f["code"]))
    t = Table(title="Findings (worst first; `hipgauge explain CODE` for why and how to fix)", title_justify="left")
    for col in ("code", "severity", "where", "in", "message"):
        t.add_column(col, overflow="fold")
    for f in ordered[:limit]:
        sev = f["severity"]
        t.add_row(f["code"], f"[{_SEVERITY_STYLE.get(sev, '')}]{sev}[/]", f"{f['file']}:{f['line']}",
                  f.get("kernel") or "-", f["message"])
    if len(ordered) > limit:
        t.caption = f"… and {len(ordered) - limit} more (--max-findings N, or all of them with --json / --sarif)"
    out.print(t)


def render_summary(doc: dict[str, Any], limit: int = 15, max_findings: int = 25) -> None:
    """The terminal view of a ``hipgauge.scan/1`` document."""
    s = doc["summary"]
    out.print(f"[bold]hipgauge scan[/bold] {doc['root']}")
    out.print(f"{s['files']} files, {s['lines']} lines scanned; {s['skipped']} skipped  "
              f"[dim](measured from the source tree)[/dim]")
    out.print(f"kernels {s['kernels']} · device functions {s['device_functions']} · launch sites "
              f"{s['launch_sites']} · CUDA API references {s['api_calls']}")

    if doc["kernels"]:
        t = Table(title="Kernels", title_justify="left")
        for col in ("kernel", "where", "launch bounds", "static smem (B)", "launched"):
            t.add_column(col, overflow="fold")
        launched: dict[str, int] = {}
        for site in doc["launch_sites"]:
            if site["kernel"]:
                short = site["kernel"].split("::")[-1]
                launched[short] = launched.get(short, 0) + 1
        for k in doc["kernels"][:limit]:
            smem = k["static_smem_bytes"]
            t.add_row(k["qualified_name"] or k["name"], f"{k['file']}:{k['line']}", ", ".join(k["launch_bounds"]) or "-",
                      "?" if smem is None else str(smem), str(launched.get(k["name"], 0)))
        if len(doc["kernels"]) > limit:
            t.caption = f"… and {len(doc['kernels']) - limit} more (see --json)"
        out.print(t)

    if doc["launch_sites"]:
        t = Table(title="Launch sites", title_justify="left")
        for col in ("kernel", "where", "via", "grid", "block", "smem", "stream"):
            t.add_column(col, overflow="fold")
        for site in doc["launch_sites"][:limit]:
            where = f"{site['file']}:{site['line']}" + (" (macro)" if site["in_macro"] else "")
            t.add_row(site["kernel"] or "?", where, site["via"], site["grid"] or "-", site["block"] or "-",
                      site["shared_mem"] or "-", site["stream"] or "-")
        if len(doc["launch_sites"]) > limit:
            t.caption = f"… and {len(doc['launch_sites']) - limit} more (see --json)"
        out.print(t)

    if s["library_mix"]:
        t = Table(title="Library mix (references; mapped = HIP counterpart in the HIPIFY tables)", title_justify="left")
        for col, just in (("library", "left"), ("references", "right"), ("mapped", "right"), ("unmapped", "right"),
                          ("unmapped names (most frequent)", "left")):
            t.add_column(col, justify=just)  # type: ignore[arg-type]
        unmapped_names: dict[str, dict[str, int]] = {}
        for c in doc["api_calls"]:
            if c["status"] not in ("mapped", "deprecated"):
                d = unmapped_names.setdefault(c["library"], {})
                d[c["cuda_name"]] = d.get(c["cuda_name"], 0) + 1
        for lib, row in s["library_mix"].items():
            top = sorted(unmapped_names.get(lib, {}).items(), key=lambda kv: (-kv[1], kv[0]))[:3]
            t.add_row(lib, str(row["mapped"] + row["unmapped"]), str(row["mapped"]), str(row["unmapped"]),
                      ", ".join(n for n, _ in top))
        out.print(t)

    if s["findings"]:
        sev = ", ".join(f"{k} {v}" for k, v in s["findings_by_severity"].items() if v)
        cat = ", ".join(f"{k} {v}" for k, v in s["findings_by_category"].items())
        out.print(f"[bold]Findings[/bold] {s['findings']}: {sev}")
        out.print(f"  by category: {cat}")
        render_findings(doc["findings"], max_findings)
    else:
        out.print("[bold]Findings[/bold] none")

    if s["hottest_files"]:
        t = Table(title="Hottest files (severity-weighted findings + unmapped references)", title_justify="left")
        for col in ("file", "score", "findings", "unmapped refs", "kernels"):
            t.add_column(col, overflow="fold")
        for row in s["hottest_files"][:10]:
            t.add_row(row["file"], str(row["score"]), str(row["findings"]), str(row["unmapped_refs"]), str(row["kernels"]))
        out.print(t)

    if doc["skipped"]:
        t = Table(title="Skipped files", title_justify="left")
        t.add_column("file", overflow="fold")
        t.add_column("why", overflow="fold")
        for sk in doc["skipped"][:50]:
            t.add_row(sk["path"], sk["reason"])
        if len(doc["skipped"]) > 50:
            t.caption = f"… and {len(doc['skipped']) - 50} more (see --json)"
        out.print(t)

    share = s["translation_share"]
    if share is None:
        out.print(f"Translation share: n/a ({s['translation_share_source']})")
    else:
        out.print(f"Translation share: [bold]{share * 100:.1f}%[/bold] "
                  f"[dim]({s['translation_share_source']})[/dim]")


__all__ = ["scan", "render_summary", "render_findings", "expand_paths"]
_ = err
