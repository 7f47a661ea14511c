"""Assessment history (embedded DuckDB), per-kernel trends across toolchain releases, and the CI gate."""

from hipgauge.store.history import HistoryStore, default_store_path, record_assessment

__all__ = ["HistoryStore", "default_store_path", "record_assessment"]
