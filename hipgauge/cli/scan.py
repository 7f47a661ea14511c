"""``hipgauge scan PATH…``: the inventory of a CUDA tree, its port findings and translation share."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from hipgauge.cli.app import app
from hipgauge.cli.scan_run import (SEVERITIES, checked_defines, exit_if_strict, expand_paths,  # noqa: F401
                                   fail_if_findings_at_or_above, render_summary, run_scan, severity_threshold,
                                   write_atomic_sarif)  # re-exported: the command's helpers live in scan_run


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
    fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="SEVERITY",
                                          help="exit 1 when a finding at or above this severity exists: blocker, "
                                               "wrong-results, slow or info (for CI and pre-commit)"),
    include_dir: Optional[list[Path]] = typer.Option(None, "--include-dir", "-I",
                                                     help="folder of headers the code includes, outside the tree "
                                                          "(repeatable): the names its headers define, such as a "
                                                          "CUDA_CHECK macro, are the project's own, not library calls"),
    strict: bool = typer.Option(False, "--strict", help="exit 2 when any file could not be analysed"),
    define: Optional[list[str]] = typer.Option(None, "-D", "--define", help="preprocessor switch for the dual-target "
                                               "view: NAME[=V] (both builds), hip:NAME[=V] or cuda:NAME[=V]; repeatable"),
) -> None:
    """Inventory a CUDA tree: kernels, launch sites, library calls with their HIP counterparts, port findings."""
    run_scan(paths, json_out=json_out, exclude=exclude, config=config, sarif=sarif, executor=executor,
             scheduler=scheduler, workers=workers, no_progress=no_progress, max_findings=max_findings,
             fail_on=fail_on, include_dir=include_dir, strict=strict, define=define)


__all__ = ["scan", "expand_paths", "severity_threshold", "checked_defines", "exit_if_strict"]
