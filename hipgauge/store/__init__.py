"""Store stage: assessment history (embedded DuckDB), per-kernel trends across toolchain releases, and the
CI gate.

May import: knowledge, model, and every stage before it. See ``hipgauge/layers.py``.
"""

from hipgauge.store.history import HistoryStore, default_store_path, record_assessment

__all__ = ["HistoryStore", "default_store_path", "record_assessment"]
