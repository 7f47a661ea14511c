"""CLI layer: the command-line entry point, ``hipgauge VERB …``. Each verb lives in its own module here and
only parses arguments, runs a pipeline and hands the result to a renderer.

May import every layer. Verbs import heavy modules (polars, duckdb, jinja2, dask, through the stages)
inside the command that needs them, on purpose: ``hipgauge --help`` and ``hipgauge scan`` start fast.
See ``hipgauge/layers.py``.
"""

from __future__ import annotations

import sys

from hipgauge.cli.app import app, debug_enabled, err
from hipgauge.errors import HipgaugeError

# Importing a module registers its commands on ``app``.
from hipgauge.cli import scan as _scan  # noqa: F401 - imported for its commands
from hipgauge.cli import rules as _rules  # noqa: F401 - imported for its commands
from hipgauge.cli import translate as _translate  # noqa: F401 - imported for its commands
from hipgauge.cli import compare as _compare  # noqa: F401 - imported for its commands
from hipgauge.cli import assess as _assess  # noqa: F401 - imported for its commands
from hipgauge.cli import history as _history  # noqa: F401 - imported for its commands
from hipgauge.cli import version as _version  # noqa: F401 - imported for its commands


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; map errors to exit codes 2 (bad input/usage) and 1 (gate failed).

    Usage errors are Typer's own (exit 2 with its message); ours are ``HipgaugeError``.
    """
    try:
        import typer.main

        from hipgauge.cli.app import tidy_metavars

        tidy_metavars(typer.main.get_command(app)).main(args=argv, prog_name="hipgauge")
    except HipgaugeError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:  # last line of defence: never a traceback (re-raised under HIPGAUGE_DEBUG)
        if debug_enabled():
            raise
        err.print(f"error: internal error: {exc.__class__.__name__}: {exc} (set HIPGAUGE_DEBUG=1 for the traceback)",
                  markup=False, highlight=False)
        sys.exit(3)
