"""Attribute launches to annotation ranges (NVTX, roctx) on the launching thread."""

from __future__ import annotations

import re

#: range names that number an iteration: ProfilerStep#N, "iteration 12", "iter_3", "step 7"
ITER_RE = re.compile(r"(?:ProfilerStep#|\biter(?:ation)?[\s_#:=-]*|\bstep[\s_#:=-]*)(\d+)\s*$", re.IGNORECASE)


def iteration_of(name: str | None) -> int | None:
    m = ITER_RE.search(name or "")
    return int(m.group(1)) if m else None


def attribute_ranges(launches: list[tuple], ranges: list[tuple]) -> tuple[list[str | None], list[int | None]]:
    """Innermost NVTX range on the launching thread holding each launch, and the iteration number
    of the outermost iteration-like range holding it (one sweep per thread, ranges kept on a stack)."""
    events: list[tuple] = []
    for tid, s, e, text in ranges:
        if tid is not None and s is not None and e is not None:
            m = iteration_of(text)
            events.append((tid, s, 0, -e, e, text or "", m))
    for idx, (tid, ts) in enumerate(launches):
        if tid is not None and ts is not None:
            events.append((tid, ts, 1, 0, idx, None, None))
    events.sort(key=lambda x: x[:4])
    out_r: list[str | None] = [None] * len(launches)
    out_i: list[int | None] = [None] * len(launches)
    stack: list[tuple[int, str, int | None]] = []
    current = None
    for tid, ts, kind, _, payload, text, it in events:
        if tid != current:
            stack.clear()
            current = tid
        if kind == 0:
            while stack and stack[-1][0] <= ts:  # ended before (or as) this one starts: not a parent
                stack.pop()
            stack.append((payload, text, it))
            continue
        while stack and stack[-1][0] < ts:
            stack.pop()
        live = [x for x in stack if x[0] >= ts]  # overlapping (not nested) ranges can leave stale entries
        if live:
            out_r[payload] = live[-1][1]
            out_i[payload] = next((x[2] for x in live if x[2] is not None), None)
    return out_r, out_i
