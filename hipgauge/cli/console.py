"""What every command prints through, without Typer: the two lazily made rich consoles (stdout for results,
stderr for progress, warnings and errors), JSON output, warnings. ``hipgauge.cli.app`` re-exports these; a
command's fast path (``cli/fast.py``) uses them without importing Typer."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Iterator


class LazyConsole:
    """A ``rich.console.Console`` made on first use, so a command that prints nothing through rich (``--json``,
    ``--version``) never imports rich. Attribute reads and writes go to the console."""

    __slots__ = ("_lazy_kwargs", "_lazy_console")

    def __init__(self, **kwargs: Any):
        object.__setattr__(self, "_lazy_kwargs", kwargs)
        object.__setattr__(self, "_lazy_console", None)

    def console(self) -> Any:
        c = object.__getattribute__(self, "_lazy_console")
        if c is None:
            from rich.console import Console

            c = Console(**object.__getattribute__(self, "_lazy_kwargs"))
            object.__setattr__(self, "_lazy_console", c)
        return c

    def __getattr__(self, name: str) -> Any:
        return getattr(self.console(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.console(), name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self.console(), name)


def Table(*args: Any, **kwargs: Any) -> Any:  # rich.table.Table, imported when a table is drawn
    from rich.table import Table as _Table

    return _Table(*args, **kwargs)


def Text(*args: Any, **kwargs: Any) -> Any:  # rich.text.Text, imported when used
    from rich.text import Text as _Text

    return _Text(*args, **kwargs)


#: human output goes to stdout; progress, warnings and errors to stderr so --json stays clean.
out: Any = LazyConsole(highlight=False, soft_wrap=False)
err: Any = LazyConsole(stderr=True, highlight=False)


def emit_json(document: dict[str, Any]) -> None:
    """Print one JSON document on stdout (with its "schema" key first): strict JSON, no Infinity/NaN
    (``hipgauge/report/jsontext.py``)."""
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
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err.console(), transient=True,
    ) as bar:
        task = bar.add_task(description, total=total)
        yield lambda n=1: bar.advance(task, n)
