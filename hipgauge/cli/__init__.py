"""CLI layer: the command-line entry point, ``hipgauge VERB …``. Each verb lives in its own module here and
only parses arguments, runs a pipeline and hands the result to a renderer.

May import every layer. Verbs import heavy modules (polars, duckdb, jinja2, dask, through the stages)
inside the command that needs them, on purpose: ``hipgauge --help`` and ``hipgauge scan`` start fast.
See ``hipgauge/layers.py``.
"""

from __future__ import annotations

import gc
import os
import sys
import types

from hipgauge.errors import HipgaugeError

#: ``typing.TYPE_CHECKING`` without importing typing: ``hipgauge --version`` stops in ``main`` below
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _load() -> Any:
    """The Typer app with every command registered (importing a module registers its commands on ``app``).
    Typer and rich are imported here, not when ``hipgauge.cli`` is: ``hipgauge --version`` needs neither."""
    from hipgauge.cli.app import app
    from hipgauge.cli import scan as _scan  # noqa: F401
    from hipgauge.cli import rules as _rules  # noqa: F401
    from hipgauge.cli import translate as _translate  # noqa: F401
    from hipgauge.cli import compare as _compare  # noqa: F401
    from hipgauge.cli import assess as _assess  # noqa: F401
    from hipgauge.cli import history as _history  # noqa: F401
    from hipgauge.cli import version as _version  # noqa: F401
    from hipgauge.cli import capture as _capture  # noqa: F401

    return app


class _CliPackage(types.ModuleType):
    """``hipgauge.cli.app`` is the registered Typer app (as when this package imported it eagerly), loaded on
    first use; binding the submodule of that name (Python does it after importing ``hipgauge.cli.app``) leaves
    it so."""

    @property
    def app(self) -> Any:
        return _load()

    @app.setter
    def app(self, value: Any) -> None:
        pass

    @property
    def err(self) -> Any:
        from hipgauge.cli.console import err

        return err

    @property
    def debug_enabled(self) -> Any:
        from hipgauge.cli.app import debug_enabled

        return debug_enabled


sys.modules[__name__].__class__ = _CliPackage


#: verbs with cache files of their own (``regex_cache``, ``code_cache``): the start-up-bound ones, whose patterns
#: and dataclass code the other verbs' runs would otherwise evict or bury
_OWN_CACHE_FILES = frozenset({"scan", "translate"})
#: the collector's young-generation threshold for those verbs (``gc.set_threshold``; Python's default is 700)
_YOUNG_OBJECTS = 50_000

#: verbs that read profiles (big tables): they get the allocator settings of ``cli/allocators.py``
_PROFILE_VERBS = frozenset({"compare", "project", "decide", "cost", "assess", "demo", "history", "gate"})


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; map errors to exit codes 2 (bad input/usage) and 1 (gate failed).

    Usage errors are Typer's own (exit 2 with its message); ours are ``HipgaugeError``.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:  # the fast path: no Typer, no rich
        from hipgauge import __version__

        sys.stdout.write(f"hipgauge {__version__}\n")
        if argv is None:
            _end_process(0)
        sys.exit(0)  # as Typer's commands end
    from hipgauge import code_cache, regex_cache

    part = args[0] if args and args[0] in _OWN_CACHE_FILES else ""
    threshold = gc.get_threshold()
    if part:
        # a young generation of 50,000 objects, not 700: the start-up (modules, classes, the name table) makes
        # fewer than that, so a two-file run is not collected at all (~8% of its time went to collections that
        # found nothing to free), and a large tree is still collected, every 50,000 net allocations
        gc.set_threshold(_YOUNG_OBJECTS, *gc.get_threshold()[1:])
    regex_cache.load(part)  # before the verb's modules compile their patterns (hipgauge/regex_cache.py)
    code_cache.install(part)  # before they make their dataclasses (hipgauge/code_cache.py)
    fast: list[bool] = []
    ended: SystemExit | None = None
    try:
        _run(args, argv, fast)
    except SystemExit as exc:
        ended = exc
    finally:
        for cache in (regex_cache, code_cache):
            try:
                cache.save()
            except Exception:  # noqa: BLE001 - a cache that cannot be written changes nothing of the command's
                pass
        if argv is not None:  # as it was, for a caller of ``main([...])`` (the console script's process ends here:
            gc.set_threshold(*threshold)  # put back, the next allocation would collect every young object, ~4 ms)
    if ended is None:
        return
    if argv is None and fast and (ended.code is None or isinstance(ended.code, int)):
        _end_process(ended.code or 0)
    raise ended


def _end_process(code: int) -> None:
    """End the process of a fast-path command (``cli/fast.py``, ``--version``) now, with its exit status: what it
    printed is flushed, its files are closed and the caches saved, so what is left is the interpreter's teardown
    (freeing every module and object one by one: ~20 ms, a fifth of a two-file scan), which ``os._exit`` skips. Only for
    the console script's process (``main()`` without ``argv``), never for a caller's ``main([...])``; when the
    output cannot be flushed (a closed pipe) the process ends the usual way."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def _run(args: list[str], argv: list[str] | None, fast_taken: list[bool]) -> None:
    """The command of ``args``: the fast path's (``cli/fast.py``; then ``fast_taken`` gets an item) or Typer's."""
    from hipgauge.cli.fast import fast_command

    if args and args[0] in _PROFILE_VERBS:
        from hipgauge.cli.allocators import tune_allocators

        tune_allocators()  # before polars is imported; the source verbs skip it (start-up time)
    fast = fast_command(args)
    if fast is None:
        app = _load()
    from hipgauge.cli.console import err

    try:
        if fast is not None:
            if args[0] in ("scan", "translate"):  # not ``capture torch``: PyTorch ends its own way
                fast_taken.append(True)
            fast()
            sys.exit(0)  # as Typer's commands end
        else:
            import typer.main

            from hipgauge.cli.app import tidy_metavars

            # plain metavars in the help (PATH..., N, TEXT); see tidy_metavars
            tidy_metavars(typer.main.get_command(app)).main(args=argv, prog_name="hipgauge")
    except HipgaugeError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # the reader went away (``hipgauge scan … | head``): stop quietly, as a tool killed by SIGPIPE does; what is
        # still buffered goes nowhere, so the interpreter's last flush cannot fail again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(141)
    except SystemExit:
        raise
    except Exception as exc:  # last line of defence: never a traceback (re-raised under HIPGAUGE_DEBUG)
        if os.environ.get("HIPGAUGE_DEBUG", "") not in ("", "0"):
            raise
        err.print(f"error: internal error: {exc.__class__.__name__}: {exc} (set HIPGAUGE_DEBUG=1 for the traceback)",
                  markup=False, highlight=False)
        sys.exit(3)
