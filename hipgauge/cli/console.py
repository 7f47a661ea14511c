"""What every command prints through, without Typer: the two lazily made rich consoles (stdout for results,
stderr for progress, warnings and errors), JSON output, warnings. ``hipgauge.cli.app`` re-exports these; a
command's fast path (``cli/fast.py``) uses them without importing Typer.

Rich is imported only when it draws something plain text cannot: a line of text (a warning, an error) is written
plain (``hipgauge/report/plaintext.py``: markup dropped, or ANSI colours on a terminal), and ``draw`` gives a
terminal view plain text when the output is not a terminal or every line fits its width."""

from __future__ import annotations

import io
import os
import re
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator

#: variables that make rich colour or size output the way a user asked for: rich draws whenever one is set
_RICH_ENV = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _stream_of(stderr: bool) -> Any:
    return sys.stderr if stderr else sys.stdout


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def plain_mode(stderr: bool = False) -> str | None:
    """How to write plain text to stdout (stderr): ``"plain"`` (not a terminal), ``"color"`` (a terminal that
    takes ANSI colours), ``"mono"`` (a terminal with ``NO_COLOR`` or ``TERM=dumb``), or None when rich must draw
    (one of ``_RICH_ENV`` is set)."""
    if any(os.environ.get(v) for v in _RICH_ENV):
        return None
    if not _isatty(_stream_of(stderr)):
        return "plain"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return "mono"
    return "color"


class LazyConsole:
    """A ``rich.console.Console`` made on first use, so a command that prints nothing through rich (``--json``,
    ``--version``) never imports rich. Attribute reads and writes go to the console."""

    __slots__ = ("_lazy_kwargs", "_lazy_console")

    def __init__(self, **kwargs: Any):
        object.__setattr__(self, "_lazy_kwargs", kwargs)
        object.__setattr__(self, "_lazy_console", None)

    def print(self, *objects: Any, **kwargs: Any) -> None:
        """``Console.print``; lines of text are written without rich (``plain_mode``) until a rich console exists."""
        if object.__getattribute__(self, "_lazy_console") is None and all(isinstance(o, str) for o in objects):
            stderr = bool(object.__getattribute__(self, "_lazy_kwargs").get("stderr"))
            mode = plain_mode(stderr)
            if mode is not None:
                from hipgauge.report.plaintext import PlainConsole

                PlainConsole(stderr=stderr, color=mode == "color").print(*objects, **kwargs)
                return
        self.console().print(*objects, **kwargs)

    @property
    def is_terminal(self) -> bool:
        c = object.__getattribute__(self, "_lazy_console")
        if c is None and plain_mode(bool(object.__getattribute__(self, "_lazy_kwargs").get("stderr"))) is not None:
            return _isatty(_stream_of(bool(object.__getattribute__(self, "_lazy_kwargs").get("stderr"))))
        return bool(self.console().is_terminal)

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


def draw(view: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """``view(console, *args, **kwargs)``, a terminal view of ``hipgauge/report``, on stdout: plain text when stdout
    is not a terminal, or when the plain drawing's every line fits the terminal's width; rich otherwise."""
    from hipgauge.report.plaintext import PlainConsole

    mode = plain_mode() if object.__getattribute__(out, "_lazy_console") is None else None
    if mode == "plain":
        view(PlainConsole(), *args, **kwargs)
        return
    if mode is not None:
        buffer = io.StringIO()
        view(PlainConsole(buffer, color=mode == "color"), *args, **kwargs)
        text = buffer.getvalue()
        import shutil

        if max((len(_ANSI.sub("", line)) for line in text.splitlines()), default=0) <= shutil.get_terminal_size().columns:
            sys.stdout.write(text)
            sys.stdout.flush()
            return
    view(out, *args, **kwargs)


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
