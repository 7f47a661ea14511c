"""The kept parses of the bundled data files (``hipgauge.datafiles.cached_data``): a kept form gives what a fresh
parse gives, a fresh object on every call; a damaged file or one made from other data is rebuilt; with
``HIPGAUGE_NO_CACHE=1`` nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipgauge import datafiles
from hipgauge.knowledge import mapping
from hipgauge.tomlfile import toml_module


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HIPGAUGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("HIPGAUGE_NO_CACHE", raising=False)
    monkeypatch.setattr(datafiles, "_memo", {})
    return tmp_path / "cache"


def test_a_kept_toml_parse_is_the_parse_and_a_fresh_object(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = toml_module().loads(datafiles.read_data_text("amd_targets.toml"))
    first = datafiles.load_data_toml("amd_targets.toml")
    assert first == parsed and len(list(cache.glob("data-toml-amd_targets.toml-*.marshal"))) == 1
    monkeypatch.setattr(datafiles, "_memo", {})  # as a new process: read from the file
    second = datafiles.load_data_toml("amd_targets.toml")
    assert second == parsed and second is not first
    second["target"].clear()  # a caller's change reaches no later call
    assert datafiles.load_data_toml("amd_targets.toml") == parsed


def test_the_kept_mapping_is_the_parsed_one(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = mapping._build()
    monkeypatch.setattr(datafiles, "_memo", {})
    kept = mapping._build()
    parsed = mapping._parse()
    for m in (built, kept):
        assert list(m.entries.items()) == list(parsed.entries.items())
        assert list(m.headers.items()) == list(parsed.headers.items())
        assert m.prefixes == parsed.prefixes and m.header_prefixes == parsed.header_prefixes
        assert all(type(e) is mapping.MappingEntry for e in m.entries.values())


def test_a_damaged_or_stale_file_is_rebuilt(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def build() -> dict[str, int]:
        calls.append(1)
        return {"n": len(calls)}

    assert datafiles.cached_data("t", ("amd_targets.toml",), "form-1", build) == {"n": 1}
    (path,) = cache.glob("data-t-*.marshal")
    path.write_bytes(b"\x00garbage" * 10)
    monkeypatch.setattr(datafiles, "_memo", {})
    assert datafiles.cached_data("t", ("amd_targets.toml",), "form-1", build) == {"n": 2}
    monkeypatch.setattr(datafiles, "_memo", {})
    assert datafiles.cached_data("t", ("amd_targets.toml",), "form-1", build) == {"n": 2}  # kept
    monkeypatch.setattr(datafiles, "_memo", {})
    assert datafiles.cached_data("t", ("amd_targets.toml",), "form-2", build) == {"n": 3}  # another form


def test_no_cache_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPGAUGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HIPGAUGE_NO_CACHE", "1")
    monkeypatch.setattr(datafiles, "_memo", {})
    assert datafiles.load_data_toml("backends.toml")
    assert not (tmp_path / "cache").exists()


def test_the_kept_rule_table_is_the_imported_one_and_loads_rules_on_demand(cache: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from hipgauge.rules import registry as reg

    reg.clear_caches()
    try:
        built = reg.rule_table()  # imports every rule module and keeps the table
        assert len(list(cache.glob("data-rule-table-*.marshal"))) == 1
        monkeypatch.setattr(datafiles, "_memo", {})
        reg.clear_caches()
        kept = reg.rule_table()  # from the file: no rule module imported for it
        assert kept == built == tuple(reg.RuleEntry(*r) for r in reg._table_rows(reg.RULE_DIRS))
        assert [e.code for e in kept] == [r.code for r in reg.registry()]
        # a rule loaded on demand is the rule the catalogue holds
        specs = reg.by_code()
        for e in kept:
            assert reg.load_rule(e) == specs[e.code] and reg.load_rule(e).module is specs[e.code].module
        assert {r.code for r in reg.build_rules()} == {r.code for r in reg.registry() if hasattr(r.module, "check_build")}
        assert {r.code for r in reg.anchor_index().kernel_rules()} == {
            r.code for r in reg.registry() if getattr(r.module, "KERNELS", False)}
    finally:
        reg.clear_caches()


def test_a_scan_imports_only_the_rules_its_anchors_reach(tmp_path: Path) -> None:
    import subprocess
    import sys

    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float* x) { x[threadIdx.x] = __shfl_sync(0xffffffff, x[0], 1); }\n")
    code = ("import sys; from hipgauge.cli import main\n"
            "try: main(['scan', sys.argv[1], '--json'])\n"
            "except SystemExit: pass\n"
            "print(sum(1 for m in sys.modules if m.startswith('hipgauge.rules.checks.hg')), file=sys.stderr)")
    env = {**__import__("os").environ, "HIPGAUGE_CACHE_DIR": str(tmp_path / "cache")}
    for _ in range(2):  # the first run keeps the table, the second reads it
        proc = subprocess.run([sys.executable, "-c", code, str(src)], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert '"HG103"' in proc.stdout
    assert 0 < int(proc.stderr.strip().splitlines()[-1]) < 20  # of 71


def test_the_kept_mapping_carries_its_plain_names(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mapping._build()
    monkeypatch.setattr(datafiles, "_memo", {})
    kept = mapping._build()
    assert kept._plain_names is not None and type(kept._plain_names[1]) is frozenset
    assert kept.plain_names() == mapping._parse().plain_names()
