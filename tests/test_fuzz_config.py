"""Fuzz the config loader (``hipgauge.config.load``, ``find_config``): a Config or ``InputError``, nothing else."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from hipgauge import config as config_mod
from test_fuzz_support import fuzz_settings, REPO, Scratch, mutate_bytes, mutate_lines, run_checked, toml_document, weird_values

FAST = fuzz_settings(150)
REAL_CONFIG = REPO / "examples" / "detector" / "hipgauge.toml"
_SCRATCH = Scratch()

_SECTION = st.sampled_from(sorted(s for s in config_mod.SCHEMA if s) + ["tool", "unknown", "hipgauge"])
_KEY = st.one_of(st.sampled_from(sorted({k for keys in config_mod.SCHEMA.values() for k in keys})), st.text(max_size=8))


def _check(result):
    assert isinstance(result, (config_mod.Config, config_mod.InputError)), type(result)
    if isinstance(result, config_mod.InputError):
        assert "\n" not in str(result).strip()


@FAST
@given(st.dictionaries(_SECTION, st.one_of(st.dictionaries(_KEY, weird_values(), max_size=5), weird_values()), max_size=4),
       st.dictionaries(_KEY, weird_values(), max_size=3), st.sampled_from(["hipgauge.toml", "pyproject.toml"]))
def test_random_documents(sections, top, name):
    """Known and unknown sections/keys with values of every type and range."""
    doc = {**top, **sections}
    if name == "pyproject.toml" and random.Random(len(str(doc))).random() < 0.7:
        doc = {"tool": {"hipgauge": doc}} if random.Random(len(doc)).random() < 0.8 else {"tool": doc}
    path = _SCRATCH.write(toml_document(_flatten_tool(doc)).encode("utf-8", "surrogatepass"), name)
    _check(run_checked(lambda: config_mod.load(path)))
    _check(run_checked(lambda: config_mod.load(None, start=path.parent)))


def _flatten_tool(doc):
    """toml_document writes one level of tables; write [tool.hipgauge] as a dotted table name."""
    if isinstance(doc.get("tool"), dict) and isinstance(doc["tool"].get("hipgauge"), dict):
        inner = doc["tool"]["hipgauge"]
        rest = {k: v for k, v in doc.items() if k != "tool"}
        flat = {**rest, "tool.hipgauge": {k: v for k, v in inner.items() if not isinstance(v, dict)}}
        return flat
    return doc


@FAST
@given(st.binary(max_size=1024), st.sampled_from(["hipgauge.toml", "pyproject.toml"]))
def test_random_bytes(data, name):
    path = _SCRATCH.write(data, name)
    _check(run_checked(lambda: config_mod.load(path)))
    _check(run_checked(lambda: config_mod.load(None, start=path.parent)))


@FAST
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.booleans())
def test_mutated_real_config(rnd_seed, n_ops, lines):
    """The example's real hipgauge.toml with byte or line damage."""
    data = REAL_CONFIG.read_bytes()
    rnd = random.Random(rnd_seed)
    damaged = mutate_lines(data, rnd, n_ops) if lines else mutate_bytes(data, rnd, n_ops)
    path = _SCRATCH.write(damaged, "hipgauge.toml")
    _check(run_checked(lambda: config_mod.load(path)))


@FAST
@given(st.sampled_from(sorted(f"{s}.{k}" if s else k for s, keys in config_mod.SCHEMA.items() for k in keys)),
       weird_values())
def test_override_values(dotted, value):
    """``Config.override`` (command-line flags) validates like the file."""
    cfg = config_mod.defaults()
    _check(run_checked(lambda: (cfg.override(dotted, value), cfg)[1]))


@FAST
@given(weird_values(), st.booleans())
def test_pyproject_tool_of_any_type(value, nested):
    """``tool = 5`` or ``[tool] hipgauge = "x"`` in a pyproject.toml (found crashing: AttributeError/TypeError)."""
    doc = {"tool": {"hipgauge": value}} if nested else {"tool": value}
    text = f"tool = {{hipgauge = {_toml(value)}}}\n" if nested else f"tool = {_toml(value)}\n"
    path = _SCRATCH.write(text.encode("utf-8", "surrogatepass"), "pyproject.toml")
    assert doc
    _check(run_checked(lambda: config_mod.load(path)))
    _check(run_checked(lambda: config_mod.load(None, start=path.parent)))


def _toml(value):
    from test_fuzz_support import toml_value

    return "[]" if value is None else toml_value(value)
