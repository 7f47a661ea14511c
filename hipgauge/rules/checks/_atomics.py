"""The pointee type of an atomic's target argument, and the hit of the FP-atomic rules on it."""

from __future__ import annotations

from typing import Any

from hipgauge.rules.hit import MEDIUM, Hit
from hipgauge.rules.syntax import call_args, text


def atomic_target_type(call: Any, ctx: Any) -> str | None:
    """``float*``-style type of the first argument of ``atomicAdd(...)`` when it can be read from the
    file: an explicit cast, or the declaration of its base name in the enclosing function."""
    args = call_args(call)
    if not args:
        return None
    node = args[0]
    while node is not None:
        if node.type == "cast_expression":
            return " ".join(text(node.child_by_field_name("type")).split())
        if node.type == "identifier":
            t = ctx.type_of(text(node), call)
            if t is None:
                return None
            t = t.replace("volatile ", "")
            return t if args[0].type == "identifier" else t.rstrip("*") + "*"
        if node.type in ("pointer_expression", "parenthesized_expression"):
            node = node.child_by_field_name("argument") or (node.named_children[0] if node.named_children else None)
        elif node.type == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif node.type == "binary_expression":
            node = node.child_by_field_name("left")
        elif node.type == "field_expression":
            return None
        else:
            return None
    return None


def atomic_on_types(call: Any, ctx: Any, bases: tuple[str, ...]) -> list[Hit]:
    """A MEDIUM hit on ``atomicAdd(...)`` when its target's pointee type is one of ``bases``."""
    t = atomic_target_type(call, ctx)
    if t is None:
        return []
    base = t.replace("const ", "").rstrip("*").strip()
    if base in bases:
        return [Hit(call, MEDIUM, f"on `{base}`")]
    return []
