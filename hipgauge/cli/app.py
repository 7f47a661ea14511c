"""The Typer application and what every command shares: JSON output, progress, error exits.

Command modules (``hipgauge/cli/<verb>.py``) register on ``app`` and only parse arguments, call the
pipeline and choose a renderer. Errors: ``InputError`` → one line on stderr, exit 2;
``GateFailed`` → its line, exit 1. Nothing else should escape; an unexpected exception is reported
in one line too (with ``HIPGAUGE_DEBUG=1`` for the traceback).
"""

from __future__ import annotations

import os
import sys

import typer

from hipgauge.cli.console import (LazyConsole, Table, Text, emit_json, err, out, progress,  # noqa: F401
                                  warn)  # re-exported

app = typer.Typer(
    name="hipgauge",
    help="Can this CUDA serving path move to AMD/ROCm through HIP, and what does it cost on the same latency target?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def debug_enabled() -> bool:
    return os.environ.get("HIPGAUGE_DEBUG", "") not in ("", "0")


def _print_version(value: bool) -> None:
    if value:
        from hipgauge import __version__

        sys.stdout.write(f"hipgauge {__version__}\n")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                       help="print the hipgauge version and exit")) -> None:
    """hipgauge: evidence for a CUDA → HIP port decision (scan, translate, build-check, compare, project, assess)."""
