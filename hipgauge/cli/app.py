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
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
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


def _print_version(value: bool) -> None:
    if value:
        from hipgauge import __version__

        out.print(f"hipgauge {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", "-V", help="print the hipgauge version and exit",
                                 callback=_print_version, is_eager=True),
) -> None:
    """hipgauge: evidence for a CUDA → HIP port decision (scan, translate, build-check, compare, project, assess)."""


#: metavars by the annotated type, for the help (``PATH...`` rather than Typer's ``<list[Path]>``)
_METAVAR_BY_TYPE = {"Path": "PATH", "int": "N", "float": "NUMBER", "str": "TEXT"}


def _element_type(param: Any) -> str | None:
    """The name of a parameter's (element) type: ``Path`` for ``list[Path]``; None when unknown or a flag."""
    desc = getattr(param, "type_descriptor", None)
    annotation = getattr(desc, "annotation", None)
    if annotation is None:
        click_type = getattr(param, "type", None)
        return {"path": "Path", "integer": "int", "float": "float", "text": "str"}.get(getattr(click_type, "name", ""))
    args = getattr(annotation, "__args__", None)
    if getattr(annotation, "__origin__", None) is list and args:
        annotation = args[0]
    return getattr(annotation, "__name__", None)


def tidy_metavars(command: Any) -> Any:
    """Give every parameter of ``command`` (and its subcommands) that has no metavar a plain one: ``PATH``,
    ``N``, ``NUMBER``, ``TEXT``; an argument taking several values ends with ``...``. Returns ``command``."""
    for sub in getattr(command, "commands", {}).values():
        tidy_metavars(sub)
    for param in getattr(command, "params", []):
        if getattr(param, "metavar", None) is not None or getattr(param, "is_flag", False):
            continue
        label = _METAVAR_BY_TYPE.get(_element_type(param) or "")
        if label is None:
            continue
        if param.param_type_name == "argument":
            label += "..." if param.nargs == -1 else ""
            # the usage line and the help row show the metavar alone (``PATH...``, ``[PATH]``), not Typer's
            # ``{PATH}...`` and ``<list[Path]>``
            shown = label if param.required else f"[{label}]"
            param._usage_display_name = lambda shown=shown: shown
            param.display_type_rich = lambda ctx: None
        param.metavar = label
    return command
