"""The Dask executor gives the same scan (findings, inventory, stats) as the local executors, in order."""

from __future__ import annotations

from functools import partial
from operator import mul
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from hipgauge.errors import InputError  # noqa: E402 - after the importorskip above
from hipgauge.source.dask_executor import chunk_size_for, chunked, make_map  # noqa: E402 - after the importorskip above

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
TREES = [TESTS / "data" / "realistic", REPO / "examples" / "detector", TESTS / "data" / "source"]


def _scan(paths: list[Path], map_files=None) -> dict:
    from hipgauge.report.scan_json import scan_document
    from hipgauge.app.scan import ScanOptions, scan_tree

    return scan_document(scan_tree(paths, ScanOptions(), map_files=map_files))


@pytest.fixture(scope="module")
def many_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough files for several chunks per worker: the realistic file under 24 names, plus build files."""
    root = tmp_path_factory.mktemp("estate")
    src = (TESTS / "data" / "realistic" / "realistic.cu").read_text()
    for i in range(24):
        sub = root / f"repo{i % 3}" / "src"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"k{i:02d}.cu").write_text(src.replace("__global__", f"// copy {i}\n__global__", 1))
    (root / "repo0" / "CMakeLists.txt").write_text("project(x LANGUAGES CXX CUDA)\nfind_package(CUDAToolkit)\n")
    return root


def test_map_keeps_item_order() -> None:
    run = make_map(None, 2, processes=False, chunk_size=3)
    assert list(run(partial(mul, 3), range(20))) == [3 * i for i in range(20)]
    assert run.last_chunks == 7 and run.last_workers == 2
    assert list(run(partial(mul, 3), [])) == []


def test_chunking() -> None:
    assert chunked(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert chunk_size_for(1000, 2) == 64
    assert chunk_size_for(40, 2) == 5
    assert chunk_size_for(0, 4) == 1


def test_dask_scan_equals_local_on_real_trees() -> None:
    trees = [t for t in TREES if t.exists()]
    local = _scan(trees)
    assert local["kernels"] and local["api_calls"]
    dask_doc = _scan(trees, make_map(None, 2, processes=True))
    assert dask_doc == local


def test_dask_scan_on_an_existing_cluster_equals_local(many_files: Path) -> None:
    from hipgauge.app.scan import local_map

    local = _scan([many_files], local_map(2))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        run = make_map(cluster.scheduler_address, 2)
        remote = _scan([many_files], run)
    assert run.last_workers == 2
    assert remote == local
    assert len(remote["files"]) == 25


def test_unreachable_scheduler_is_an_input_error() -> None:
    run = make_map("tcp://127.0.0.1:9", None, connect_timeout_s=1)
    with pytest.raises(InputError) as info:
        list(run(str, ["a"]))
    assert "127.0.0.1:9" in str(info.value)


def test_scan_cli_dask_executor(many_files: Path, tmp_path: Path, capsys) -> None:
    import json

    from hipgauge.cli import main

    def run(argv: list[str]) -> tuple[int, dict]:
        with pytest.raises(SystemExit) as info:
            main(argv)
        return int(info.value.code or 0), json.loads(capsys.readouterr().out)

    code_local, local = run(["scan", str(many_files), "--json"])
    code_dask, dask_doc = run(["scan", str(many_files), "--json", "--executor", "dask", "--workers", "2"])
    assert code_local == code_dask
    assert dask_doc["findings"] == local["findings"] and dask_doc["kernels"] == local["kernels"]
