"""The Typer application and what every command shares: JSON output, progress, error exits.

Command modules (``hipgauge/cli/<verb>.py``) register on ``app`` and only parse arguments, call the
pipeline and choose a renderer. Errors: ``InputError`` → one line on stderr, exit 2;
``GateFailed`` → its line, exit 1. Nothing else should escape; an unexpected exception is reported
in one line too (with ``HIPGAUGE_DEBUG=1`` for the traceback).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Any, Iterator

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

app = typer.Typer(
    name="hipgauge",
    help="Can this CUDA serving path move to AMD/ROCm through HIP, and what does it cost on the same latency target?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

#: human output goes to stdout; progress, warnings and errors to stderr so --json stays clean.
out = Console(highlight=False, soft_wrap=False)
err = Console(stderr=True, highlight=False)


def emit_json(document: dict[str, Any]) -> None:
    """Print one JSON document on stdout (with its "schema" key first)."""
    from hipgauge.report.jsontext import dumps

    sys.stdout.write(dumps(document, default=_json_default) + "\n")
    sys.stdout.flush()


def _json_default(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "value"):
        return value.value
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    return str(value)


def warn(message: str) -> None:
    err.print(f"[yellow]warning:[/yellow] {message}", markup=True, highlight=False)


@contextmanager
def progress(description: str, total: int | None, enabled: bool = True) -> Iterator[Any]:
    """A rich progress bar on stderr; yields a callable ``advance(n=1)``. Silent when not a TTY or disabled."""
    show = enabled and err.is_terminal
    if not show:
        yield lambda n=1: None
        return
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err, transient=True,
    ) as bar:
        task = bar.add_task(description, total=total)
        yield lambda n=1: bar.advance(task, n)


def debug_enabled() -> bool:
    return os.environ.get("HIPGAUGE_DEBUG", "") not in ("", "0")


@app.callback()
def _root() -> None:
    """hipgauge: evidence for a CUDA → HIP port decision (scan, translate, build-check, compare, project, assess)."""
