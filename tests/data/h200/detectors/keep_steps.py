"""Keep the first N ProfilerStep windows of a Kineto chrome trace (to keep fixtures small).

    python3 keep_steps.py IN.json.gz OUT.json.gz N

Every event that starts after the end of the N-th kept ``ProfilerStep#`` window is dropped; events inside the
kept windows are left exactly as recorded (each step ends with torch.cuda.synchronize(), so the device work of a
kept step ends inside it). Flow events (ac2g) follow their timestamps like every other event.
"""

from __future__ import annotations

import gzip
import json
import sys


def main() -> int:
    src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with gzip.open(src, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    steps = sorted((e for e in events if e.get("cat") == "user_annotation"
                    and str(e.get("name", "")).startswith("ProfilerStep#")), key=lambda e: e["ts"])
    if len(steps) <= n:
        print(f"{src}: {len(steps)} steps, nothing to cut")
    else:
        # the cut: the start of the first step left out (its host events, and everything after)
        cut = float(steps[n]["ts"])
        doc["traceEvents"] = [e for e in events if "ts" not in e or float(e["ts"]) < cut]
        print(f"{src}: kept {n} of {len(steps)} steps, {len(doc['traceEvents'])} of {len(events)} events")
    with gzip.open(dst, "wt", encoding="utf-8", compresslevel=9) as f:
        json.dump(doc, f, separators=(",", ":"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
