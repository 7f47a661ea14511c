"""The Typer application and what every command shares: JSON output, progress, error exits.

Command modules (``hipgauge/cli/<verb>.py``) register on ``app`` and only parse arguments, call the
pipeline and choose a renderer. Errors: ``InputError`` → one line on stderr, exit 2;
``GateFailed`` → its line, exit 1. Nothing else should escape; an unexpected exception is reported
in one line too (with ``HIPGAUGE_DEBUG=1`` for the traceback).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import typer

from hipgauge.cli.console import (LazyConsole, Table, Text, emit_json, err, out, progress,  # noqa: F401
                                  warn)  # re-exported

app = typer.Typer(
    name="hipgauge",
    help="Can this CUDA serving path move to AMD/ROCm through HIP, and what does it cost on the same latency target?",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
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
