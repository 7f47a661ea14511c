"""Commands of this module register on the shared app (placeholder until implemented)."""

from __future__ import annotations

from hipgauge.cli.app import app  # noqa: F401
