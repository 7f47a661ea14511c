"""``capture.json``, the manifest ``hipgauge capture torch`` writes beside its traces: the host-speed reference of
each trace (a fixed host workload timed right before and right after the profiled run, unprofiled) and of each
timed round. Read when a trace is loaded from a folder that holds one; a manifest that is missing, foreign or
malformed gives nothing (the projection then carries the host's speed by its older model, and says so)."""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "capture.json"
SCHEMA_PREFIX = "hipgauge.capture-torch/"


@dataclass(frozen=True)
class HostReference:
    """The host-speed reference beside one trace: ms of the manifest's fixed workload (smaller = faster host)."""

    trace_ms: float  # the median of the timings right before and right after the profiled run
    rounds_ms: tuple[float, ...]  # one per timed round of the same variant
    workload: str
    manifest: str  # the file it came from

    def to_dict(self) -> dict[str, object]:
        return {"trace_ms": self.trace_ms, "rounds_ms": list(self.rounds_ms), "workload": self.workload,
                "source": f"measured by hipgauge capture torch ({self.manifest})"}


def host_reference_for(trace: str | Path) -> HostReference | None:
    """The reference of the variant whose trace is ``trace``, from ``capture.json`` in the same folder."""
    trace = Path(trace)
    manifest = trace.parent / MANIFEST
    try:
        if not manifest.is_file() or manifest.stat().st_size > 50_000_000:
            return None
        doc = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, ValueError):
        return None
    if not isinstance(doc, dict) or not str(doc.get("schema", "")).startswith(SCHEMA_PREFIX):
        return None
    for variant in doc.get("variants") or []:
        if not isinstance(variant, dict) or variant.get("trace") != trace.name:
            continue
        ref = variant.get("host_reference_ms")
        if not isinstance(ref, dict):
            return None
        around = [float(x) for x in ref.get("trace") or [] if isinstance(x, (int, float)) and x > 0]
        rounds = tuple(float(x) for x in ref.get("rounds") or [] if isinstance(x, (int, float)) and x > 0)
        if not around or not all(math.isfinite(x) for x in around):
            return None
        return HostReference(statistics.median(around), rounds, str(ref.get("workload", "")), str(manifest))
    return None
