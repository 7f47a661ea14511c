"""``capture.json``, the manifest ``hipgauge capture torch`` writes beside its traces: for each trace, the host time
of the forward call measured unprofiled right before the profiler started and profiled during the recorded steps
(``trace_host_ms``). Read when a trace is loaded from a folder that holds one; a manifest that is missing, foreign
or malformed gives nothing (the projection then carries the host's speed from the baseline, and says so)."""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path

from hipgauge.profiles.spell_ratio import SpellRatio, spell_ratio

MANIFEST = "capture.json"
SCHEMA_PREFIX = "hipgauge.capture-torch/"


@dataclass(frozen=True)
class TraceHostTimes:
    """Host time of the forward call beside one trace, medians in ms: unprofiled (right before the profiler
    started) and profiled (the recorded steps)."""

    variant: str  # the variant this trace is of
    unprofiled_ms: float
    profiled_ms: float | None
    steps: int  # unprofiled steps timed
    manifest: str  # the file it came from
    #: the variant timed alternately with this one right before the trace (the capture's first), and its median
    reference: str | None = None
    reference_unprofiled_ms: float | None = None
    #: this variant's host time over the reference's, the median over rounds of each round's ratio of block
    #: medians: adjacent blocks share the host's spell, so a spell that lasts a round cancels
    same_spell_ratio: float | None = None
    #: the same ratio with its order-statistic interval over the rounds (None without whole rounds to pair)
    same_spell: SpellRatio | None = None

    def to_dict(self) -> dict[str, object]:
        return {"variant": self.variant, "unprofiled_ms": self.unprofiled_ms, "profiled_ms": self.profiled_ms,
                "steps": self.steps, "reference": self.reference,
                "reference_unprofiled_ms": self.reference_unprofiled_ms, "same_spell_ratio": self.same_spell_ratio,
                "same_spell_interval": ([self.same_spell.ratio * (1 - self.same_spell.below),
                                         self.same_spell.ratio * (1 + self.same_spell.above)]
                                        if self.same_spell else None),
                "same_spell_rounds": self.same_spell.rounds if self.same_spell else None,
                "source": f"measured by hipgauge capture torch beside the trace ({self.manifest})"}


def _positive(values: object) -> list[float]:
    if not isinstance(values, list):
        return []
    out = [float(x) for x in values if isinstance(x, (int, float)) and not isinstance(x, bool)]
    return [x for x in out if math.isfinite(x) and x > 0]


def trace_host_times_for(trace: str | Path) -> TraceHostTimes | None:
    """The host times beside ``trace``, from ``capture.json`` in the same folder (None when there are none)."""
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
        times = variant.get("trace_host_ms")
        if not isinstance(times, dict):
            return None
        unprofiled, profiled = _positive(times.get("unprofiled")), _positive(times.get("profiled"))
        if len(unprofiled) < 3:
            return None
        ref = times.get("reference")
        ref_name, ref_ms, ratio, spell = None, None, None, None
        if isinstance(ref, dict) and isinstance(ref.get("variant"), str):
            values = _positive(ref.get("unprofiled"))
            if len(values) >= 3:
                ref_name, ref_ms = str(ref["variant"]), statistics.median(values)
                spell = _spell(unprofiled, values, times.get("block"))
                ratio = spell.ratio if spell else statistics.median(unprofiled) / ref_ms
        return TraceHostTimes(str(variant.get("name", "")), statistics.median(unprofiled),
                              statistics.median(profiled) if profiled else None, len(unprofiled), str(manifest),
                              ref_name, ref_ms, ratio, spell)
    return None


def _spell(values: list[float], reference: list[float], block: object) -> SpellRatio | None:
    """The per-round ratio when the blocks pair up (both lists alike, whole blocks); else None (the caller takes
    the ratio of the two medians, with no interval)."""
    if isinstance(block, int) and not isinstance(block, bool) and block > 0 and len(values) == len(reference) \
            and len(values) % block == 0:
        return spell_ratio(values, reference, block)
    return None


def paired_ratio(values: list[float], reference: list[float], block: object) -> float:
    """The median over rounds of (this variant's block median ÷ the reference's block median of the same round);
    without a block size (or with blocks that do not divide the lists alike): the ratio of the two medians."""
    spell = _spell(values, reference, block)
    return spell.ratio if spell else statistics.median(values) / statistics.median(reference)
