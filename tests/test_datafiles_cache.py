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
