"""The format registry: a format is one reader module, and adding one touches nothing else."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hipgauge.errors import InputError
from hipgauge.profiles import detect, load, readers
from hipgauge.profiles.detect import detect_format, find_in_directory
from hipgauge.profiles.load import load_profile, reader_for
from hipgauge.profiles.readers import finish, registry


#: a whole new format, written the way CONTRIBUTING's "Add a profile format" says: one module
TOY_READER = '''
"""Toy profiler: a text file starting with ``# toy-profile``, then ``name<TAB>start_ns<TAB>duration_ns``."""

from pathlib import Path

import polars as pl

from .finish import finish_profile
from .registry import Format, Head


def read_toy(path, max_bytes=None):
    rows = [line.split("\\t") for line in Path(path).read_text().splitlines()[1:] if line.strip()]
    df = pl.DataFrame({"raw_name": [r[0] for r in rows], "start_ns": [int(r[1]) for r in rows],
                       "duration_ns": [int(r[2]) for r in rows], "iteration": [int(r[3]) for r in rows]})
    return finish_profile(path, "toy-tsv", "amd", df, device="Toy GPU", empty="no toy rows",
                          attachments={"timeline": [("toyLaunch", 0, 5)]})


def _sniff(head: Head):
    return 1.0 if head.is_text and head.text.startswith("# toy-profile") else None


FORMATS = (Format("toy-tsv", read_toy, _sniff, files=(("*.toy", 5),)),)
'''


@pytest.fixture
def toy_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Registers the toy reader through the same discovery as the real ones (a module in a folder of the
    readers package's path); undone afterwards."""
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "toyfmt.py").write_text(TOY_READER)
    monkeypatch.setattr(readers, "__path__", [*readers.__path__, str(plugin)])
    registry.refresh()
    yield tmp_path
    sys.modules.pop("hipgauge.profiles.readers.toyfmt", None)
    monkeypatch.undo()
    registry.refresh()


def _toy_file(folder: Path, name: str = "run.toy") -> Path:
    p = folder / "out" / name
    p.parent.mkdir(exist_ok=True)
    p.write_text("# toy-profile\n_Z6kernelPfi\t100\t40\t1\nmy_kernel\t200\t60\t2\n")
    return p


def test_a_new_reader_module_is_detected_and_read(toy_format: Path) -> None:
    path = _toy_file(toy_format)
    assert "toy-tsv" in registry.profile_format_names()
    assert detect_format(path) == "toy-tsv"
    prof = load_profile(path)
    assert prof.source_format == "toy-tsv" and prof.vendor == "amd" and prof.device == "Toy GPU"
    assert prof.kernels["name"].to_list() == ["kernel(float*, int)", "my_kernel"]
    assert prof.kernels["key"].to_list() == ["kernel", "my_kernel"]
    assert prof.iterations == [(1, 100, 140), (2, 200, 260)]
    assert prof.metadata["device_name"] == "Toy GPU"
    assert prof.attachments == {"timeline": [("toyLaunch", 0, 5)]}
    assert load_profile(path, fmt="toy-tsv").kernels.height == 2
    # its folder pick: the tool's output folder finds the file by the pattern the reader declared
    assert find_in_directory(toy_format) == path
    assert load_profile(toy_format / "out").source_format == "toy-tsv"


def test_without_the_module_the_format_is_unknown(tmp_path: Path) -> None:
    path = _toy_file(tmp_path)
    assert "toy-tsv" not in registry.profile_format_names()
    assert detect_format(path) is None
    with pytest.raises(InputError, match="unrecognised profile format"):
        load_profile(path)
    with pytest.raises(InputError, match="unknown profile format 'toy-tsv'"):
        load_profile(path, fmt="toy-tsv")


def test_every_format_is_declared_once_and_complete() -> None:
    fmts = registry.formats()
    assert len(fmts) >= 12
    for name, fmt in fmts.items():
        assert fmt.name == name and callable(fmt.read) and callable(fmt.sniff)
        for pattern, rank in fmt.files:
            assert isinstance(pattern, str) and isinstance(rank, int)
        if fmt.role == registry.PROFILE:
            assert reader_for(name) is fmt.read
        else:
            assert fmt.not_a_profile, name
    with pytest.raises(KeyError):
        reader_for("latency-csv")


def test_no_format_name_is_written_outside_its_reader() -> None:
    """detect.py and load.py know no format by name: the registry is the one list."""
    for module in (detect, load, registry, finish):
        text = Path(str(module.__file__)).read_text()
        for name in registry.formats():
            assert f'"{name}"' not in text, (module.__name__, name)


def test_latency_csv_is_recognised_but_not_loaded(tmp_path: Path) -> None:
    p = tmp_path / "lat.csv"
    p.write_text("iteration,latency_ms\n0,1.5\n1,1.6\n")
    assert detect_format(p) == "latency-csv"
    with pytest.raises(InputError, match="--latency-csv"):
        load_profile(p)
