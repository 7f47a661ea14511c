"""The CLI's compiled-pattern cache (``hipgauge/regex_cache.py``): a run writes it, the next run loads it and
gives the same output; a damaged or unwritable cache, or ``HIPGAUGE_NO_CACHE=1``, changes nothing but the
time; nothing is written into the scanned tree."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hipgauge import regex_cache

PROGRAM = Path(__file__).resolve().parent / "data" / "issue16" / "warp_reduce_masks.cu"


def _scan(tree: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **env}
    full.pop("HIPGAUGE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "hipgauge", "scan", str(tree), "--json"], capture_output=True,
                          text=True, env=full, timeout=120)


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    folder = tmp_path / "tree"
    folder.mkdir()
    (folder / PROGRAM.name).write_bytes(PROGRAM.read_bytes())
    return folder


def test_a_run_writes_the_cache_and_the_next_gives_the_same_output(tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _scan(tree, {"HIPGAUGE_CACHE_DIR": str(cache)})
    assert first.returncode == 0, first.stderr
    files = list(cache.glob("regex-*.marshal"))
    assert len(files) == 1 and files[0].stat().st_size > 10_000
    written = files[0].stat().st_mtime_ns
    second = _scan(tree, {"HIPGAUGE_CACHE_DIR": str(cache)})
    off = _scan(tree, {"HIPGAUGE_NO_CACHE": "1", "HIPGAUGE_CACHE_DIR": str(tmp_path / "unused")})
    assert second.stdout == first.stdout == off.stdout
    assert files[0].stat().st_mtime_ns == written  # nothing new to add: not rewritten
    assert not (tmp_path / "unused").exists()
    assert sorted(p.name for p in tree.iterdir()) == [PROGRAM.name]


def test_a_damaged_or_unwritable_cache_changes_nothing(tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    good = _scan(tree, {"HIPGAUGE_CACHE_DIR": str(cache)})
    (path,) = cache.glob("regex-*.marshal")
    path.write_bytes(b"\x00garbage" * 100)
    damaged = _scan(tree, {"HIPGAUGE_CACHE_DIR": str(cache)})
    assert damaged.returncode == 0 and damaged.stdout == good.stdout and damaged.stderr == ""
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    unwritable = _scan(tree, {"HIPGAUGE_CACHE_DIR": str(blocked)})
    assert unwritable.returncode == 0 and unwritable.stdout == good.stdout and unwritable.stderr == ""


def test_load_puts_the_same_pattern_objects_re_would_make(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPGAUGE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(regex_cache, "_loaded", {})
    for name in ("_cache", "_cache2"):  # re's own caches, empty: only this test's patterns in them
        if isinstance(getattr(re, name, None), dict):
            monkeypatch.setattr(re, name, {})
    patterns = [(r"(?P<word>\b[A-Za-z_]\w*)\s*::", re.M), (rb"&\s*(?:31|0x1[fF])[uU]?\b", 0), (r"x{2,5}?y|z", re.I)]
    for pattern, flags in patterns:
        re.compile(pattern, flags)
    assert regex_cache.save() >= len(patterns)
    for pattern, flags in patterns:  # forget them, load them back from the file
        re._cache.pop((type(pattern), pattern, int(flags)), None)  # type: ignore[attr-defined]
    monkeypatch.setattr(regex_cache, "_loaded", {})
    assert regex_cache.load() >= len(patterns)
    for pattern, flags in patterns:
        loaded = re.compile(pattern, flags)
        fresh = re.sre_compile.compile(pattern, flags) if hasattr(re, "sre_compile") else re._compiler.compile(pattern, flags)  # type: ignore[attr-defined]
        assert loaded is re.compile(pattern, flags)  # served from re's cache
        assert (loaded.pattern, loaded.flags, loaded.groups, loaded.groupindex) == \
            (fresh.pattern, fresh.flags, fresh.groups, fresh.groupindex)
        sample = "a::b ab:: xxxy Z & 31u" if isinstance(pattern, str) else b"x & 0x1F, y & 31u"
        assert [m.span() for m in loaded.finditer(sample)] == [m.span() for m in fresh.finditer(sample)]
