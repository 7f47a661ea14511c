"""JSON text hipgauge writes: strict JSON (RFC 8259), so ``Infinity``/``NaN`` never appear.

Non-finite figures are refused where they come in (flags and config); a non-finite float that still
reaches a document (a ratio over a zero time, say) is written as ``null``, which every JSON reader takes.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable


def finite_only(value: Any) -> Any:
    """``value`` with every infinite or NaN float (at any depth of dicts, lists and tuples) replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_only(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_only(v) for v in value]
    return value


def dumps(document: Any, default: Callable[[Any], Any] | None = None, indent: int | None = 2) -> str:
    """Strict JSON text of ``document`` (see the module docstring)."""
    try:
        return json.dumps(document, indent=indent, default=default, ensure_ascii=False, allow_nan=False)
    except ValueError:  # a non-finite float somewhere: replace it (after ``default`` turned objects into data)
        plain = json.loads(json.dumps(document, default=default, ensure_ascii=False))
        return json.dumps(finite_only(plain), indent=indent, ensure_ascii=False, allow_nan=False)
