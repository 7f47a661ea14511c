"""The fast path: ``hipgauge translate`` and ``hipgauge scan`` parsed without Typer.

Typer builds a pydantic adapter per parameter when a command runs (hundreds of milliseconds of imports), which
is most of a small translate's or a pre-commit scan's time. ``translate`` and ``scan`` with the options below are
parsed here with argparse and run the same ``run_translate`` / ``run_scan`` the Typer commands run; anything
else (``--help``, an unknown option, a bad value, ``--executor dask``) returns None and goes to Typer, which
prints its usual usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable


class _NoExit(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ValueError(message)

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse's own sizes it with ``shutil.get_terminal_size()``, and importing shutil (bz2, lzma, zlib) costs
        # ~3 ms of a two-file scan; this is the same width, the way shutil finds it
        return argparse.HelpFormatter(prog=self.prog, width=_columns() - 2)  # the class these parsers use


def _columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing shutil."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80
    return size.columns or 80


def _translate_parser() -> argparse.ArgumentParser:
    p = _NoExit(prog="hipgauge translate", add_help=False, allow_abbrev=False)
    p.add_argument("path", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument("--json", dest="json_out", action="store_true")
    p.add_argument("--no-safe-rewrites", action="store_true")
    p.add_argument("--no-rewrite", action="append")
    p.add_argument("--launch", default="chevron")
    p.add_argument("--amd-arch", action="append")
    p.add_argument("--exclude", action="append")
    p.add_argument("--config", type=Path)
    p.add_argument("--no-share", action="store_true")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--rocm-version")
    p.add_argument("-I", "--include-dir", dest="include_dir", action="append", type=Path)
    return p


def _scan_parser() -> argparse.ArgumentParser:
    p = _NoExit(prog="hipgauge scan", add_help=False, allow_abbrev=False)
    p.add_argument("paths", type=Path, nargs="+")
    p.add_argument("--json", dest="json_out", action="store_true")
    p.add_argument("--exclude", action="append")
    p.add_argument("--config", type=Path)
    p.add_argument("--sarif", type=Path)
    p.add_argument("--executor", choices=("local",), default="local")  # dask: through Typer
    p.add_argument("--workers", type=int)
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--max-findings", type=int, default=25)
    p.add_argument("--fail-on")
    p.add_argument("-I", "--include-dir", dest="include_dir", action="append", type=Path)
    p.add_argument("--strict", action="store_true")
    p.add_argument("-D", "--define", dest="define", action="append")
    return p


def _scan_values_ok(ns: argparse.Namespace) -> bool:
    """The range checks Typer makes (``--workers`` ≥ 1, ``--max-findings`` ≥ 0); a bad value goes to Typer for its
    usual usage error."""
    return (ns.workers is None or ns.workers >= 1) and ns.max_findings >= 0


def fast_command(args: list[str]) -> Callable[[], None] | None:
    """A callable that runs ``args`` without Typer, or None when Typer should handle them."""
    if args[:2] == ["capture", "torch"] and not any(a in ("--help", "-h") for a in args[2:]):
        return _capture_torch(args[2:])
    if not args or args[0] not in ("translate", "scan") or any(a in ("--help", "-h") for a in args[1:]):
        return None
    try:
        ns = (_translate_parser() if args[0] == "translate" else _scan_parser()).parse_args(args[1:])
    except ValueError:
        return None
    if args[0] == "scan":
        if not _scan_values_ok(ns):
            return None

        def run_scan() -> None:
            from hipgauge.cli.scan_run import run_scan

            run_scan(**vars(ns))

        return run_scan

    def run() -> None:
        from hipgauge.cli.translate_run import run_translate

        run_translate(**vars(ns))

    return run


def _capture_torch(args: list[str]) -> Callable[[], None] | None:
    """``hipgauge capture torch …`` without Typer (a GPU host may have PyTorch and little else: cli/capture_run.py)."""
    from hipgauge.cli.capture_run import run_torch_capture, torch_capture_parser

    try:
        ns = torch_capture_parser().parse_args(args)
    except ValueError:
        return None
    return lambda: run_torch_capture(**vars(ns))
