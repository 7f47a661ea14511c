"""The store keeps build-check errors that are the port's apart from missing-library environment gaps."""

from __future__ import annotations

from pathlib import Path

from hipgauge.store.history import HistoryStore
from hipgauge.store.record import _build_checks


DOC = {
    "schema": "hipgauge.assessment/1",
    "build_check": {
        "compiles": [
            {"file": "a.cu", "arch": "gfx90a", "vendor": "amd", "ok": False, "errors": 4},
            {"file": "b.cu", "arch": "gfx90a", "vendor": "amd", "ok": True, "errors": 0},
        ],
        "classification": {"by_arch": {"gfx90a": {"environment": 1, "consequence": 2, "toolchain": 0, "port": 1}}},
    },
}


def test_classified_counts_are_read() -> None:
    (entry,) = _build_checks(DOC)
    assert (entry.errors, entry.port_errors, entry.environment_errors) == (4, 1, 3)


def test_unclassified_documents_leave_them_unknown() -> None:
    doc = {"build_check": {"compiles": DOC["build_check"]["compiles"]}}
    (entry,) = _build_checks(doc)
    assert entry.port_errors is None and entry.environment_errors is None


def test_round_trip_through_the_store(tmp_path: Path) -> None:
    from hipgauge.store.history import record_assessment

    db = tmp_path / "h.duckdb"
    record_assessment({**DOC, "project": "p"}, db, probe_compilers=False)
    (rec,) = HistoryStore(db).assessments()
    (entry,) = rec.build_checks
    assert (entry.port_errors, entry.environment_errors) == (1, 3)
