"""Run build-check in a child process so the assessment can stop it at its time budget.

``python -m hipgauge.app.buildcheck_job ARGS_JSON OUT_JSON``: runs
``app.buildcheck.build_check(**args)`` and writes its ``to_dict()`` (or ``{"status": "failed", …}``)
to OUT_JSON. The parent starts it in its own session and kills the whole group when the budget is spent,
so no compiler outlives the assessment.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    args = json.loads(argv[0])
    out = Path(argv[1])
    try:
        # inside the try: an import failure is reported to the parent like any other failure
        from hipgauge.app.buildcheck import build_check  # noqa: PLC0415

        result = build_check(**args)
        doc = result.to_dict()
    except Exception as exc:  # noqa: BLE001 - reported to the parent as a failed stage
        doc = {"status": "failed", "reason": f"{type(exc).__name__}: {exc}"}
    out.write_text(json.dumps(doc, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
