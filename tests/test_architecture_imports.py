"""The import graph of ``hipgauge/`` follows ``hipgauge/layers.py``: no import goes up a layer (or to a later
stage), and no two modules import each other, directly or round a longer loop.

Every import counts: top level, inside functions, under ``if TYPE_CHECKING``. The graph is read with ``ast``
from the files, so nothing is imported to check it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from hipgauge import layers

PACKAGE = Path(__file__).resolve().parent.parent / "hipgauge"


def module_files(root: Path) -> dict[str, Path]:
    """Dotted module name → file, for every ``.py`` under ``root`` (a package named ``hipgauge``)."""
    out: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports_of(module: str, path: Path, known: set[str]) -> list[tuple[str, int]]:
    """The hipgauge modules ``module`` imports, with the line of each import statement.

    ``from a.b import c`` names the module ``a.b.c`` when that is a module, else ``a.b``; a relative import
    is resolved against the module's package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    edges: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            subs = [f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in known]
            targets = subs if subs and len(subs) == len(node.names) else [source, *subs]
        for target in targets:
            while target and target not in known:  # ``import hipgauge.a.b.func`` style: its module
                target = target.rpartition(".")[0]
            if target and target != module:
                edges.append((target, node.lineno))
    return edges


def import_graph(root: Path) -> dict[str, list[tuple[str, int]]]:
    files = module_files(root)
    known = set(files)
    return {mod: imports_of(mod, path, known) for mod, path in files.items()}


def _is_ancestor(target: str, module: str) -> bool:
    """``hipgauge.source`` is an ancestor of ``hipgauge.source.parse``: importing a submodule runs its
    package's ``__init__`` anyway, so that edge is not a dependency of its own."""
    return module.startswith(target + ".")


def upward_edges(graph: dict[str, list[tuple[str, int]]]) -> list[str]:
    """Each import that goes to a higher layer (or a later stage), as ``a -> b (line n): layer x -> y``."""
    bad = []
    for mod, edges in graph.items():
        for target, line in edges:
            if layers.rank_of(target) > layers.rank_of(mod):
                bad.append(f"{mod} -> {target} (line {line}): {layers.table_entry(mod) or 'hipgauge'} "
                           f"[{layers.layer_of(mod)}] may not import {layers.table_entry(target)} "
                           f"[{layers.layer_of(target)}]")
    return sorted(bad)


def cycles(graph: dict[str, list[tuple[str, int]]]) -> list[list[str]]:
    """The import cycles between modules (strongly connected components of more than one module), each
    listed from its first module round to it again. A package's import of its own submodules (``__init__``
    re-exports) is not counted against the submodule's import of the package."""
    succ = {m: sorted({t for t, _ in es if not _is_ancestor(m, t) and not _is_ancestor(t, m)})
            for m, es in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in succ.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(succ):
        if v not in index:
            visit(v)
    return found


def test_every_module_has_a_layer() -> None:
    missing = []
    for mod in module_files(PACKAGE):
        try:
            layers.layer_of(mod)
        except KeyError as exc:
            missing.append(str(exc))
    assert not missing, "\n".join(missing)


def test_no_import_goes_up_a_layer() -> None:
    bad = upward_edges(import_graph(PACKAGE))
    assert not bad, "imports that go up a layer (see hipgauge/layers.py):\n" + "\n".join(bad)


def test_no_import_cycle_between_modules() -> None:
    found = cycles(import_graph(PACKAGE))
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def _write(root: Path, rel: str, text: str) -> None:
    path = root / "hipgauge" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture()
def synthetic(tmp_path: Path) -> Path:
    """A tiny package named ``hipgauge`` with one stage module of each of two stages and a model."""
    _write(tmp_path, "__init__.py", "")
    _write(tmp_path, "model.py", "X = 1\n")
    _write(tmp_path, "source/__init__.py", "")
    _write(tmp_path, "source/parse.py", "from hipgauge.model import X\n")
    _write(tmp_path, "rules/__init__.py", "")
    _write(tmp_path, "rules/engine.py", "from hipgauge.source.parse import X\n")
    return tmp_path / "hipgauge"


def test_self_check_the_synthetic_package_is_clean(synthetic: Path) -> None:
    graph = import_graph(synthetic)
    assert graph["hipgauge.rules.engine"] == [("hipgauge.source.parse", 1)]
    assert upward_edges(graph) == [] and cycles(graph) == []


def test_self_check_an_upward_import_inside_a_function_is_named(synthetic: Path) -> None:
    _write(synthetic.parent, "source/parse.py",
           "from hipgauge.model import X\n\n\ndef f():\n    from hipgauge.rules import engine\n    return engine\n")
    bad = upward_edges(import_graph(synthetic))
    assert len(bad) == 1
    assert bad[0].startswith("hipgauge.source.parse -> hipgauge.rules.engine (line 5)")


def test_self_check_a_type_checking_import_and_a_model_reaching_a_stage_are_named(synthetic: Path) -> None:
    _write(synthetic.parent, "model.py",
           "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from hipgauge.source.parse import X\n")
    bad = upward_edges(import_graph(synthetic))
    assert bad and bad[0].startswith("hipgauge.model -> hipgauge.source.parse (line 3)")


def test_self_check_a_cycle_is_named(synthetic: Path) -> None:
    _write(synthetic.parent, "rules/hit.py", "from hipgauge.rules import engine\n")
    _write(synthetic.parent, "rules/engine.py", "from hipgauge.rules.hit import Y\n")
    found = cycles(import_graph(synthetic))
    assert found == [["hipgauge.rules.engine", "hipgauge.rules.hit"]]
