"""Discovers the rule modules under ``hipgauge/rules/checks/``: a rule is one module, nothing else.

A rule module (one per rule, named ``hgNNN_<topic>.py``) defines:

* ``CODE`` — the stable ``HGnnn`` code (never reused; ``hipgauge/data/rules.toml`` is the generated ledger);
* ``RULE = RuleMeta(...)`` — what the rule says: title, category, severity, default confidence, effort,
  message, fix, rubric roles and sources (``hipgauge.rules.spec.RuleMeta``);
* for source files: ``NODE`` (the syntax node type(s) its ``check`` inspects, or ``None`` for the
  anchor token's own node), ``ANCHOR`` (a bytes regex naming the tokens that can start a hit — the
  engine scans for all anchors at once and climbs from each token to the nearest ``NODE``), and
  ``check(node, ctx) -> Iterable[Hit]``;
* for build files: ``check_build(lines, ctx) -> Iterable[LineHit]`` over comment-blanked lines;
* optionally ``SUPERSEDES`` (codes this rule replaces on the same line), ``IN_STRINGS``
  (anchors inside string literals count, e.g. PTX text inside ``asm``), ``REQUIRES`` (byte strings one
  of which the file must hold for the rule to fire at all, e.g. ``__device__`` for device-code rules:
  its anchors are then dropped before the file is parsed), ``FOLD`` (a library label: one finding
  per call site, other references folded in), ``check_macro(body, at, end, macro, ctx)`` (a lexical
  look at an anchor inside a ``#define`` body: ``hipgauge.rules.macrobody``) and ``KERNELS`` (with an
  inventory, the rule is also anchored at each kernel definition it found, those declared through a
  qualifier macro included: ``check`` then gets their ``function_definition``).

Its docstring is its documentation and the source of its rationale: What it does / Why is this bad? /
Example / Use instead (the Example must fire the rule and the Use-instead must not: tests run both).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

from hipgauge.model import Confidence, Severity
from hipgauge.source.tokens import FileTokens
from hipgauge.rules import checks
from hipgauge.rules.checks._common import Words
from hipgauge.rules.spec import BUILD_KINDS, CODE_PATTERN, SOURCE_KINDS, RuleDoc, RuleMeta, RuleSpec, rationale_of

_MODULE_NAME = re.compile(r"hg\d{3}_\w+")

#: ``(folder, package)`` pairs the registry discovers rule modules in; the package is the import name of the
#: folder (``None``: load the files by path, as a test does with a throwaway rule)
RULE_DIRS: tuple[tuple[Path, str | None], ...] = ((Path(checks.__file__).parent, checks.__name__),)


def _load(folder: Path, package: str | None, name: str) -> ModuleType:
    if package is not None:
        return importlib.import_module(f"{package}.{name}")
    qualified = "_hipgauge_rules" + re.sub(r"\W", "_", str(folder)) + f".{name}"
    if qualified in sys.modules:
        return sys.modules[qualified]
    spec = importlib.util.spec_from_file_location(qualified, folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = mod
    spec.loader.exec_module(mod)
    return mod


def spec_of(mod: ModuleType, name: str) -> RuleSpec:
    """The rule record of one rule module (``ValueError`` naming the module when its declaration is incomplete)."""
    code = getattr(mod, "CODE", None)
    if not isinstance(code, str) or not CODE_PATTERN.fullmatch(code):
        raise ValueError(f"{name}: CODE must be HGnnn, got {code!r}")
    if not name.startswith(code.lower()):
        raise ValueError(f"{name}: CODE {code} does not match the module name")
    meta = getattr(mod, "RULE", None)
    if not isinstance(meta, RuleMeta):
        raise ValueError(f"{name}: no RULE = RuleMeta(...) declaration")
    problems = meta.problems()
    if problems:
        raise ValueError(f"{name}: {'; '.join(problems)}")
    doc = RuleDoc.parse(mod.__doc__ or "")
    kinds: set[str] = set()
    if hasattr(mod, "check"):
        kinds |= set(getattr(mod, "KINDS", SOURCE_KINDS))
    if hasattr(mod, "check_build"):
        kinds |= BUILD_KINDS
    node = getattr(mod, "NODE", None) if hasattr(mod, "check") else "line"
    return RuleSpec(
        code=code, title=meta.title, category=meta.category, severity=Severity(meta.severity),
        message=meta.message, rationale=rationale_of(doc), fix=meta.fix,
        effort_low=float(meta.effort[0]), effort_high=float(meta.effort[1]), sources=tuple(meta.sources),
        doc=doc, node=node, kinds=frozenset(kinds), module=mod, confidence=Confidence(meta.confidence),
        rubric=tuple(meta.rubric), retired=meta.retired,
    )


def discover(*dirs: tuple[Path, str | None]) -> tuple[RuleSpec, ...]:
    """Every rule module (``hgNNN_*.py``) in the given ``(folder, package)`` pairs, ordered by code; a code
    declared twice is an error."""
    specs: dict[str, RuleSpec] = {}
    for folder, package in dirs:
        for info in sorted(pkgutil.iter_modules([str(folder)]), key=lambda i: i.name):
            if not _MODULE_NAME.fullmatch(info.name):
                continue
            spec = spec_of(_load(Path(folder), package, info.name), info.name)
            if spec.code in specs:
                raise ValueError(f"{info.name}: code {spec.code} is already used by {specs[spec.code].module.__name__}")
            specs[spec.code] = spec
    return tuple(specs[c] for c in sorted(specs))


@lru_cache(maxsize=1)
def catalogue() -> tuple[RuleSpec, ...]:
    """Every rule module, retired ones included (their codes stay taken)."""
    return discover(*RULE_DIRS)


@lru_cache(maxsize=1)
def registry() -> tuple[RuleSpec, ...]:
    """The rules that run: every rule module that is not retired."""
    return tuple(r for r in catalogue() if not r.retired)


def clear_caches() -> None:
    """Forget the discovered rules (after ``RULE_DIRS`` changes) and everything built from them."""
    for fn in (catalogue, registry, anchor_index):
        fn.cache_clear()
    engine = sys.modules.get("hipgauge.rules.engine")
    if engine is not None:
        engine._kernel_keyed.cache_clear()


def by_code() -> dict[str, RuleSpec]:
    """``code -> rule`` for every rule module, retired ones included (``hipgauge explain`` still explains them)."""
    return {r.code: r for r in catalogue()}


def codes_with_role(role: str) -> list[str]:
    """The codes of the running rules that declare ``role`` in their ``RULE.rubric`` (``spec.RUBRIC_ROLES``)."""
    return [r.code for r in registry() if role in r.rubric]


_INCLUDE_PREFIX = rb"#[ \t]*include"
_INCLUDE_ANY = rb'#[ \t]*include[ \t]*[<"][\w./+-]*'
#: a text anchor led by whole words and ``::`` or ``##`` (``\bcub\s*::\s*Warp…``, ``\b(?:cuda|CU_)\s*##``): tried
#: only where one of the words occurs
_WORD_LED = re.compile(rb"\\b(?:\(\?:([A-Za-z_][\w|]*)\)|([A-Za-z_]\w*))\\s\*(?:::|##)")


class AnchorIndex:
    """Finds every rule anchor in a file without a regex pass of its own over the text.

    Word anchors (identifier regexes) are matched against the file's *distinct* identifiers (shared with
    the inventory: ``hipgauge.source.tokens``), with a per-process memo identifier -> rules; their
    positions come from C-speed substring search. Text anchors (operators such as ``& 31``, ``<<<``,
    ``#include <...>``) are one regex whose alternatives all start with a literal byte, so the regex
    engine skips in C to the bytes that can start one; text anchors led by a word and ``::``
    (``cub::WarpReduce``) are tried only at that word's occurrences. A token is dispatched to the rules
    whose own pattern matches it in full.
    """

    def __init__(self, rules: tuple[RuleSpec, ...]):
        self.rules = [r for r in rules if hasattr(r.module, "check")]
        self._word_rules: list[tuple[RuleSpec, re.Pattern[bytes]]] = []
        self._text_rules: list[tuple[RuleSpec, re.Pattern[bytes]]] = []
        texts: set[bytes] = set()
        for r in self.rules:
            anchors = r.module.ANCHOR if isinstance(r.module.ANCHOR, tuple) else (r.module.ANCHOR,)
            for a in anchors:
                if isinstance(a, Words):
                    self._word_rules.append((r, re.compile(a.inner)))
                else:
                    self._text_rules.append((r, re.compile(a)))
                    texts.add(bytes(a))
        # every #include anchor is found by one generic pattern and dispatched by the rule's own
        if any(t.startswith(_INCLUDE_PREFIX) for t in texts):
            texts = {t for t in texts if not t.startswith(_INCLUDE_PREFIX)} | {_INCLUDE_ANY}
        ordered = sorted(texts, key=lambda t: (-len(t), t))  # longest first (the order a combined alternation tries
        # them in), ties by text: the same pattern in every run, so its compiled form is cached (regex_cache.py)
        self.word_led: dict[bytes, list[re.Pattern[bytes]]] = {}
        flat: list[bytes] = []
        for t in ordered:
            m = _WORD_LED.match(t)
            if m is None:
                flat.append(t)
                continue
            rx = re.compile(t)
            for word in (m.group(1) or m.group(2)).split(b"|"):
                self.word_led.setdefault(word, []).append(rx)
        self.word_led_names = frozenset(self.word_led)
        self.requires = {r: tuple(r.module.REQUIRES) for r in self.rules if getattr(r.module, "REQUIRES", None)}
        inner = [rx.pattern for _r, rx in self._word_rules]
        self._any_word = re.compile(rb"^(?:" + b"|".join(inner) + rb")$", re.M) if inner else None
        # Text anchors must start with a literal byte (not \b, a class or a group): then the engine derives
        # the set of first bytes and skips in C to them. Every rule's Example test fails if one does not.
        self.text_regex = re.compile(b"|".join(flat)) if flat else None
        self._words: dict[bytes, tuple[RuleSpec, ...]] = {}
        self._no_rules: set[bytes] = set()  # identifiers no word anchor matches
        self._texts: dict[bytes, tuple[RuleSpec, ...]] = {}

    def word_rules(self, ident: bytes) -> tuple[RuleSpec, ...]:
        hit = self._words.get(ident)
        if hit is None:
            seen: list[RuleSpec] = []
            for r, rx in self._word_rules:
                if r not in seen and rx.fullmatch(ident):
                    seen.append(r)
            hit = tuple(seen)
            if len(self._words) < 200_000:
                self._words[ident] = hit
        return hit

    def text_rules(self, token: bytes) -> tuple[RuleSpec, ...]:
        hit = self._texts.get(token)
        if hit is None:
            seen: list[RuleSpec] = []
            for r, rx in self._text_rules:
                if r not in seen and rx.fullmatch(token):
                    seen.append(r)
            hit = tuple(seen)
            if len(self._texts) < 100_000:
                self._texts[token] = hit
        return hit

    def relevant(self, idents: frozenset[bytes]) -> dict[bytes, tuple[RuleSpec, ...]]:
        """The identifiers among ``idents`` that some word anchor matches, with their rules."""
        new = idents - self._no_rules
        out: dict[bytes, tuple[RuleSpec, ...]] = {}
        if len(new) > 8 and self._any_word is not None:  # one C-level pass rejects the many that match no anchor
            matched = self._any_word.findall(b"\n".join(new))
            if len(self._no_rules) < 500_000:
                self._no_rules.update(new.difference(matched))
            new = new.intersection(matched)
        for ident in new:
            rs = self.word_rules(ident)
            if rs:
                out[ident] = rs
            elif len(self._no_rules) < 500_000:
                self._no_rules.add(ident)
        return out

    def find(self, data: bytes, tokens: Any = None, present: tuple[bytes, ...] = ()
             ) -> list[tuple[int, int, tuple[RuleSpec, ...]]]:
        """``(start, end, rules)`` of every anchor in ``data``, in file order. ``present``: ``REQUIRES`` strings to
        count as met though not written in the file (``__global__`` where the inventory found a kernel declared
        through a qualifier macro)."""
        if tokens is None:
            tokens = FileTokens(data)
        out: list[tuple[int, int, tuple[RuleSpec, ...]]] = []
        relevant = self.relevant(tokens.idents)
        for start, ident in tokens.occurrences(relevant):
            out.append((start, start + len(ident), relevant[ident]))
        texts: list[tuple[int, int, bytes]] = []
        if self.text_regex is not None:
            texts.extend((m.start(), m.end(), m.group()) for m in self.text_regex.finditer(data))
        led = tokens.idents & self.word_led_names
        if led:
            for start, word in tokens.occurrences(led):
                for rx in self.word_led[word]:
                    m = rx.match(data, start)
                    if m is not None:
                        texts.append((start, m.end(), m.group()))
                        break
            texts.sort()
        last_end = -1
        for start, end, token in texts:  # leftmost, non-overlapping: what one combined regex would find
            if start < last_end:
                continue
            last_end = end
            rs = self.text_rules(token)
            if rs:
                out.append((start, end, rs))
        out.sort(key=lambda t: t[0])
        if self.requires and out:
            unmet = {r for r, needs in self.requires.items()
                     if not any(n in present or n in data for n in needs)}
            if unmet:
                out = [(s, e, rs) for s, e, rs in ((s, e, tuple(r for r in rs if r not in unmet)) for s, e, rs in out) if rs]
        return out


@lru_cache(maxsize=1)
def anchor_index() -> AnchorIndex:
    return AnchorIndex(registry())


def module_of(code: str) -> Any:
    return by_code()[code].module
