"""Checks of the command-line flags several commands share (one-line InputError on a bad value)."""

from __future__ import annotations

from hipgauge.errors import InputError


def check_percentile_target(percentile: float | None, target_ms: float | None) -> None:
    """``--percentile`` in (0, 100] and ``--target-ms`` positive, when given."""
    if percentile is not None and not (0 < percentile <= 100):
        raise InputError(f"--percentile {percentile:g}: must be in (0, 100]")
    if target_ms is not None and not (target_ms > 0):
        raise InputError(f"--target-ms {target_ms:g}: must be a positive number of milliseconds")
