"""The layers of hipgauge, bottom to top; a module may import only from its own layer or a lower one.

This table is the one place that says which package sits where; ``tests/test_architecture_imports.py``
reads every module of ``hipgauge/`` (imports inside functions and under ``if TYPE_CHECKING`` included) and
fails on an import that goes up a layer or on an import cycle between modules. ``docs/internal-api.md``
describes each layer.

Inside the stage layer the stages are ordered too (``STAGE_ORDER``): a stage imports only the stages
before it, so ``source`` never reaches into ``rules`` and ``translate`` never into ``toolchain``.

This module imports nothing of hipgauge's (it sits below everything).
"""

from __future__ import annotations

#: layer names, bottom to top
LAYERS: tuple[str, ...] = ("knowledge", "model", "stages", "app", "report", "cli")

#: stage packages, in the order they may import each other (each only those before it)
STAGE_ORDER: tuple[str, ...] = ("source", "rules", "translate", "toolchain", "profiles", "decide", "store")

#: module or package (dotted, without the leading ``hipgauge.``) → layer. The longest matching prefix wins,
#: so a module entry overrides its package's.
LAYER_OF: dict[str, str] = {
    # knowledge: the bundled data tables, their loaders, and the base every layer may use
    "": "knowledge",  # the package root (``__version__``)
    "layers": "knowledge",
    "knowledge": "knowledge",
    "errors": "knowledge",
    "datafiles": "knowledge",
    "tomlfile": "knowledge",
    "config": "knowledge",
    "progress": "knowledge",  # the within-file progress hook (imports nothing of hipgauge's)
    "regex_cache": "knowledge",  # compiled patterns kept between CLI runs (imports nothing of hipgauge's)
    "code_cache": "knowledge",  # compiled dataclass methods kept between CLI runs
    # model: typed records, and the kernel-identity helpers the records are keyed by
    "model": "model",
    "kernel_names": "model",
    # stages (ordered by STAGE_ORDER)
    **{stage: "stages" for stage in STAGE_ORDER},
    # application: the pipelines that chain stages (scan, translate, build-check, compare, assess)
    "app": "app",
    # the public Python API (hipgauge.scan / hipgauge.compare): a facade over the pipelines. The package root
    # re-exports it lazily by name (importlib at attribute access), which is not an import edge.
    "api": "app",
    # report: every renderer, the terminal included
    "report": "report",
    # cli: argument parsing, and the process entry point
    "cli": "cli",
    "__main__": "cli",
}


def _key(module: str) -> str:
    """``hipgauge.source.parse`` → ``source.parse``; ``hipgauge`` → ``""``."""
    return module[len("hipgauge."):] if module.startswith("hipgauge.") else ("" if module == "hipgauge" else module)


def table_entry(module: str) -> str:
    """The ``LAYER_OF`` key that governs ``module`` (the longest matching prefix)."""
    key = _key(module)
    parts = key.split(".") if key else []
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in LAYER_OF:
            return prefix
    if "" in LAYER_OF and not parts:
        return ""
    raise KeyError(f"{module}: no layer in hipgauge/layers.py LAYER_OF")


def layer_of(module: str) -> str:
    """The layer name of a dotted module name (``hipgauge.source.parse`` → ``stages``)."""
    return LAYER_OF[table_entry(module)]


def rank_of(module: str) -> tuple[int, int]:
    """(layer index, stage index) of a module: an import may go to an equal or lower rank only."""
    layer = layer_of(module)
    stage = 0
    if layer == "stages":
        stage = STAGE_ORDER.index(_key(module).split(".")[0]) + 1
    return LAYERS.index(layer), stage
