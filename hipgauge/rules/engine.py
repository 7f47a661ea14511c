"""The rule engine: runs every rule over one parsed file and returns its findings.

Source files are scanned once for all rules' anchor tokens (``AnchorIndex.find``: the file's shared
identifier set plus one literal-led regex, in C); a file with no anchor is not parsed; each anchor
is located in the syntax tree, anchors in comments and string literals are dropped, and the rule's
detector inspects the nearest enclosing node of the type it declares; an anchor inside a ``#define`` body
(raw text to the parser) goes to the rule's ``check_macro``, a lexical look (``hipgauge.rules.macrobody``). Build files are read line by
line with comments blanked. Suppressions: ``// hipgauge: ignore[HG101]`` or ``ignore[HG101,HG102]``
on the finding's line (``# hipgauge: ignore[...]`` in build files); a bare ``hipgauge: ignore``
silences every rule on that line; ``ignore`` (from config) silences codes everywhere.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any, Iterable

from hipgauge.model import Finding
from hipgauge.progress import within_file
from hipgauge.rules.buildtext import strip_comments
from hipgauge.rules.checks._common import DEVICE_CODE
from hipgauge.rules.hit import MEDIUM, Hit, LineHit
from hipgauge.rules.registry import anchor_index, build_rules, registry
from hipgauge.rules.spec import BUILD_KINDS, RuleSpec
from hipgauge.rules.syntax import Context, ancestor, in_code, path_to, set_path
from hipgauge.source.tokens import file_tokens

_SUPPRESS = re.compile(r"hipgauge:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")


def all_rules() -> list[RuleSpec]:
    """Every implemented rule, ordered by code."""
    return list(registry())


def check_file(pf: Any, inventory: Any = None, ignore: set[str] | frozenset[str] = frozenset(),
               defined: frozenset[str] = frozenset()) -> list[Finding]:
    """Findings for one ``ParsedFile`` (sorted by line, column, code), suppressions applied.

    ``defined``: names the scanned tree defines itself (``hipgauge.source.defined``); with the names the
    file defines (``inventory.own_names``) they are not library uses (``CUDNN_CHECK`` is not cuDNN), so
    library rules skip them."""
    ignore = {c.upper() for c in (ignore or ())}
    ctx = Context(pf, inventory)
    if ctx.kind in BUILD_KINDS:
        lines = _lines(pf)
        raw = _build_findings(lines, ctx, ignore)
    else:
        # device-only rules (``REQUIRES = DEVICE_CODE``) need a literal qualifier in the file, or a kernel or device
        # function the inventory found through a qualifier macro (``#define KERN __global__`` in a header)
        present = DEVICE_CODE if getattr(inventory, "device_ranges", None) else ()
        anchors = anchor_index().find(ctx.data, file_tokens(pf), present)
        if present:
            anchors = _with_kernel_anchors(anchors, ctx.data, inventory.device_ranges)
        if not anchors or ctx.tree is None:  # nothing to look at: the file is not even parsed
            return []
        lines = _lines(pf)
        own = set(defined) | set(getattr(inventory, "own_names", None) or ())
        if own:
            anchors = _drop_own_names(anchors, ctx.data, {n.encode() for n in own})
        raw = _source_findings(ctx, anchors, lines, ignore)
    return _finish(raw, lines, ignore) if raw else []


@lru_cache(maxsize=1)
def _kernel_keyed() -> tuple[RuleSpec, ...]:
    return anchor_index().kernel_rules()


def _kernel_rules(data: bytes) -> tuple[RuleSpec, ...]:
    """Rules anchored at every kernel definition the inventory found (``KERNELS = True``) whose ``REQUIRES`` the
    file meets."""
    return tuple(r for r in _kernel_keyed() if not getattr(r.module, "REQUIRES", None)
                 or any(n in data for n in r.module.REQUIRES))


def _with_kernel_anchors(anchors: list[tuple[int, int, tuple[RuleSpec, ...]]], data: bytes,
                         ranges: list[tuple[int, int, str, bool]]) -> list[tuple[int, int, tuple[RuleSpec, ...]]]:
    """``anchors`` plus one at the start of each kernel of the inventory (``device_ranges``) for the rules keyed
    on kernel definitions, so a kernel declared through a qualifier macro (no ``__global__`` in the file) is
    checked too; a kernel also reached from its literal qualifier is checked once (the engine's ``seen``)."""
    rules = None
    extra = []
    for start, _end, _name, is_kernel in ranges:
        if not is_kernel:
            continue
        if rules is None:
            rules = _kernel_rules(data)
            if not rules:
                return anchors
        extra.append((start, start + 1, rules))
    if not extra:
        return anchors
    return sorted(anchors + extra, key=lambda t: t[0])


def _drop_own_names(anchors: list[tuple[int, int, tuple[RuleSpec, ...]]], data: bytes,
                    own: set[bytes]) -> list[tuple[int, int, tuple[RuleSpec, ...]]]:
    """Library rules do not fire on identifiers the tree or the file defines."""
    out = []
    for start, end, rules in anchors:
        if data[start:end] in own:
            rules = tuple(r for r in rules if r.category != "library")
            if not rules:
                continue
        out.append((start, end, rules))
    return out


def _lines(pf: Any) -> list[str]:
    return getattr(pf, "lines", None) or pf.text.split("\n")


def _source_findings(ctx: Context, anchors: list[tuple[int, int, tuple[RuleSpec, ...]]], lines: list[str],
                     ignore: set[str]) -> list[tuple[RuleSpec, Finding]]:
    root = ctx.tree.root_node
    seen: set[tuple[str, int]] = set()
    out: list[tuple[RuleSpec, Finding]] = []
    folding: dict[str, tuple[RuleSpec, list[tuple[Finding, str]]]] = {}
    size = max(len(ctx.data), 1)
    for n, (start, end, rules) in enumerate(anchors):
        if n % 1024 == 1023:  # a large generated file: let the progress bar move inside it
            within_file(start / size)
        path = path_to(root, start, end)
        set_path(path)
        token = path[-1]
        code_ok: bool | None = None
        for rule in rules:
            if rule.code in ignore or ctx.kind not in rule.kinds:
                continue
            if not getattr(rule.module, "IN_STRINGS", False):
                if code_ok is None:
                    code_ok = in_code(token)
                if not code_ok:
                    if token.type == "preproc_arg" and hasattr(rule.module, "check_macro"):
                        out.extend(_macro_findings(rule, ctx, token, start, end, lines, seen))
                    continue
            target = token if rule.node is None else ancestor(token, rule.node)
            if target is None or (rule.code, target.id) in seen:
                continue
            seen.add((rule.code, target.id))
            for hit in rule.module.check(target, ctx) or ():
                at = start if hit.node.id == token.id and token.end_byte - token.start_byte > end - start else None
                finding = _finding(rule, hit, ctx, lines, at)
                if getattr(rule.module, "FOLD", None):
                    folding.setdefault(rule.code, (rule, []))[1].append((finding, hit.kind))
                else:
                    out.append((rule, finding))
    for rule, items in folding.values():
        out.extend((rule, f) for f in _fold(items, rule.module.FOLD))
    return out


def _macro_findings(rule: RuleSpec, ctx: Context, token: Any, start: int, end: int, lines: list[str],
                    seen: set[tuple[str, int]]) -> list[tuple[RuleSpec, Finding]]:
    """A rule's lexical check of the ``#define`` body holding the anchor (``hipgauge.rules.macrobody``)."""
    found = ctx.macro_bodies.code_anchor(start, end)
    if found is None:
        return []
    macro, body = found
    out = []
    for offset, detail in rule.module.check_macro(body, start - macro.start, end - macro.start, macro, ctx) or ():
        at = macro.start + offset
        if (rule.code, at) in seen:
            continue
        seen.add((rule.code, at))
        note = f"in macro {macro.name}" + (f": {detail}" if detail else "")
        out.append((rule, _finding(rule, Hit(token, MEDIUM, note), ctx, lines, at)))
    return out


def _fold(items: list[tuple[Finding, str]], label: str) -> list[Finding]:
    """One finding per call site (and per ``#include``) of a library rule; its other references (types, enums,
    constants) are folded into the nearest call's finding by line, else into the include's, else into one
    finding at the file's first reference. The inventory still lists every reference."""
    items = sorted(items, key=lambda i: (i[0].line, i[0].column))
    calls = [f for f, kind in items if kind == "call"]
    includes = [f for f, kind in items if kind == "include"]
    refs = [f for f, kind in items if kind not in ("call", "include")]
    if not refs:
        return calls + includes
    targets = calls or includes
    if not targets:
        first = refs[0]
        more = len(refs) - 1
        note = f"; {more} more {label} type/enum/constant reference(s) in this file, no call site" if more else ""
        return [replace(first, message=first.message + note)]
    folded: dict[int, list[int]] = {}
    for ref in refs:
        best = min(range(len(targets)), key=lambda i: (abs(targets[i].line - ref.line), targets[i].line < ref.line))
        folded.setdefault(best, []).append(ref.line)
    out = []
    for i, f in enumerate(targets):
        lines = folded.get(i)
        if lines:
            span = f"line {lines[0]}" if min(lines) == max(lines) else f"lines {min(lines)}-{max(lines)}"
            f = replace(f, message=f.message + f"; with {len(lines)} {label} type/enum/constant reference(s) ({span})")
        out.append(f)
    return out + (includes if calls else [])


def _finding(rule: RuleSpec, hit: Hit, ctx: Context, lines: list[str], at: int | None = None) -> Finding:
    """``at``: the anchor's byte offset, used when the hit node is a larger node around the anchor
    (e.g. an ERROR node that swallowed an #include) so the finding points at the anchor itself."""
    if at is None:
        line, byte_col = hit.node.start_point[0] + 1, hit.node.start_point[1]
    else:
        line_start = ctx.data.rfind(b"\n", 0, at) + 1
        line, byte_col = ctx.data.count(b"\n", 0, at) + 1, at - line_start
    column = _column(lines, line, byte_col)
    name, _kernel, _device = ctx.function_info(hit.node)
    return Finding(
        code=rule.code, severity=rule.severity, category=rule.category, confidence=rule.confidence if hit.confidence is None else hit.confidence,
        file=getattr(ctx.pf, "display", "?"), line=line, column=column,
        end_line=hit.node.end_point[0] + 1,
        message=rule.message + (f" ({hit.detail})" if hit.detail else ""),
        kernel=name, fix=rule.fix, effort_hours=rule.effort_hours,
        snippet=lines[line - 1].strip() if 0 < line <= len(lines) else "",
    )


def _column(lines: list[str], line: int, byte_col: int) -> int:
    """1-based character column from tree-sitter's byte column."""
    if 0 < line <= len(lines):
        s = lines[line - 1]
        if s.isascii():
            return byte_col + 1
        return len(s.encode("utf-8")[:byte_col].decode("utf-8", "replace")) + 1
    return byte_col + 1


def _build_findings(lines: list[str], ctx: Context, ignore: set[str]) -> list[tuple[RuleSpec, Finding]]:
    code_lines = strip_comments(lines, ctx.kind)
    out: list[tuple[RuleSpec, Finding]] = []
    for rule in build_rules():
        if rule.code in ignore:
            continue
        for hit in rule.module.check_build(code_lines, ctx) or ():
            out.append((rule, _line_finding(rule, hit, ctx, lines)))
    return out


def _line_finding(rule: RuleSpec, hit: LineHit, ctx: Context, lines: list[str]) -> Finding:
    return Finding(
        code=rule.code, severity=rule.severity, category=rule.category, confidence=rule.confidence if hit.confidence is None else hit.confidence,
        file=getattr(ctx.pf, "display", "?"), line=hit.line, column=hit.column, end_line=hit.line,
        message=rule.message + (f" ({hit.detail})" if hit.detail else ""), kernel=None,
        fix=rule.fix, effort_hours=rule.effort_hours,
        snippet=lines[hit.line - 1].strip() if 0 < hit.line <= len(lines) else "",
    )


def _finish(raw: Iterable[tuple[RuleSpec, Finding]], lines: list[str], ignore: set[str]) -> list[Finding]:
    by_key: dict[tuple[str, int], tuple[RuleSpec, Finding]] = {}
    for rule, f in raw:
        key = (f.code, f.line)
        if key not in by_key or f.column < by_key[key][1].column:
            by_key[key] = (rule, f)
    dropped: set[tuple[str, int]] = set()
    for (_code, line), (rule, _f) in by_key.items():
        for other in getattr(rule.module, "SUPERSEDES", ()):
            dropped.add((other, line))
    kept: list[Finding] = []
    for key, (_rule, f) in by_key.items():
        if key in dropped or f.code in ignore or _suppressed(lines, f.line, f.code):
            continue
        kept.append(f)
    kept.sort(key=lambda f: (f.line, f.column, f.code))
    return kept


def _suppressed(lines: list[str], line: int, code: str) -> bool:
    if not 0 < line <= len(lines):
        return False
    s = lines[line - 1]
    if "hipgauge:" not in s:
        return False
    for m in _SUPPRESS.finditer(s):
        if m.group(1) is None:
            return True
        if code in {c.strip().upper() for c in m.group(1).split(",")}:
            return True
    return False
