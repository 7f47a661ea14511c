"""The fast path: ``hipgauge translate`` parsed without Typer.

Typer builds a pydantic adapter per parameter when a command runs (hundreds of milliseconds of imports), which
is most of a small translate's time. ``translate`` with the options below is parsed here with argparse and runs
the same ``run_translate`` the Typer command runs; anything else (``--help``, an unknown option, a bad value)
returns None and goes to Typer, which prints its usual usage errors.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable


class _NoExit(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ValueError(message)


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


def fast_command(args: list[str]) -> Callable[[], None] | None:
    """A callable that runs ``args`` without Typer, or None when Typer should handle them."""
    if args[:2] == ["capture", "torch"] and not any(a in ("--help", "-h") for a in args[2:]):
        return _capture_torch(args[2:])
    if not args or args[0] != "translate" or any(a in ("--help", "-h") for a in args[1:]):
        return None
    try:
        ns = _translate_parser().parse_args(args[1:])
    except ValueError:
        return None

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
