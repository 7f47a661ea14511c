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

``catalogue()`` / ``registry()`` import every rule module. A scan does not: ``anchor_index()`` is built from
``rule_table()`` (each running rule's anchors, ``REQUIRES``, ``KERNELS`` and kind, kept between runs by
``hipgauge.datafiles.cached_data``), and a rule's module is imported when one of its anchors first occurs in a
file (``load_rule``), so a two-file scan imports the few rules its files can fire, not all 71.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from hipgauge.datafiles import DATA_DIR, cached_data

from hipgauge.model import Confidence, Severity
from hipgauge.source.tokens import FileTokens
from hipgauge.rules import checks
from hipgauge.rules.checks._common import Words
from hipgauge.rules.spec import BUILD_KINDS, CODE_PATTERN, SOURCE_KINDS, RuleDoc, RuleMeta, RuleSpec, rationale_of

_MODULE_NAME = re.compile(r"hg\d{3}_\w+")

#: ``(folder, package)`` pairs the registry discovers rule modules in; the package is the import name of the
#: folder (``None``: load the files by path, as a test does with a throwaway rule)
RULE_DIRS: tuple[tuple[Path, str | None], ...] = ((Path(checks.__file__).parent, checks.__name__),)
_DEFAULT_DIRS = RULE_DIRS


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
    import pkgutil  # noqa: PLC0415 - only when every rule module is imported (a run reads the kept rule table)

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


class RuleEntry(NamedTuple):
    """What the anchor index needs of one running rule before its module is imported (``rule_table``)."""

    code: str
    folder: str
    package: str | None
    name: str  # the module's name in its folder
    anchors: tuple[tuple[bool, bytes], ...]  # (a word anchor?, its identifier regex or its text regex)
    requires: tuple[bytes, ...]  # ``REQUIRES``
    kernels: bool  # ``KERNELS``
    source: bool  # has ``check``
    build: bool  # has ``check_build``


#: code → the rule record of a rule module imported in this process (``load_rule``)
_specs: dict[str, RuleSpec] = {}

#: the form ``_table_rows`` makes (part of its cache key: change it when that form changes)
_TABLE_FORM = "rule-table-1"


def _entry_row(spec: RuleSpec, folder: Path, package: str | None, name: str) -> tuple[Any, ...]:
    mod = spec.module
    anchors: list[tuple[bool, bytes]] = []
    if hasattr(mod, "check"):
        for a in mod.ANCHOR if isinstance(mod.ANCHOR, tuple) else (mod.ANCHOR,):
            anchors.append((True, bytes(a.inner)) if isinstance(a, Words) else (False, bytes(a)))
    return (spec.code, str(folder), package, name, tuple(anchors), tuple(getattr(mod, "REQUIRES", None) or ()),
            bool(getattr(mod, "KERNELS", False)), hasattr(mod, "check"), hasattr(mod, "check_build"))


def _table_rows(dirs: tuple[tuple[Path, str | None], ...]) -> list[tuple[Any, ...]]:
    """The running rules of ``dirs`` as ``RuleEntry`` rows, by importing every rule module (``discover``)."""
    rows = []
    for spec in discover(*dirs):
        _specs.setdefault(spec.code, spec)
        if spec.retired:
            continue
        home = Path(spec.module.__file__).resolve().parent
        folder, package = next((Path(f), p) for f, p in dirs if Path(f).resolve() == home)
        rows.append(_entry_row(spec, folder, package, Path(spec.module.__file__).stem))
    return rows


def _table_sources() -> tuple[str, ...] | None:
    """The files a rule's anchors can come from: every Python file of ``hipgauge/rules`` (the rule modules and
    their helpers) and the bundled data files; None when a folder cannot be listed."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        return tuple(sorted(os.path.join(d, n) for d in (here, os.path.join(here, "checks")) for n in os.listdir(d)
                            if n.endswith(".py"))) + tuple(sorted(os.path.join(DATA_DIR, n) for n in os.listdir(DATA_DIR)))
    except OSError:
        return None


@lru_cache(maxsize=1)
def rule_table() -> tuple[RuleEntry, ...]:
    """Every running rule as the anchor index needs it, ordered by code, without importing the rule modules: the
    table is kept between runs (``hipgauge.datafiles.cached_data``, keyed by the size and modification time of
    every file under ``hipgauge/rules`` and ``hipgauge/data``) and rebuilt by importing them all when one changed.
    Rule folders added to ``RULE_DIRS`` (a test's throwaway rule) are always imported."""
    dirs = RULE_DIRS
    sources = _table_sources() if dirs == _DEFAULT_DIRS else None
    if sources is None:
        rows = _table_rows(dirs)
    else:
        rows = cached_data("rule-table", sources, _TABLE_FORM, lambda: _table_rows(dirs))
    return tuple(RuleEntry(r[0], r[1], r[2], r[3], tuple((a[0], a[1]) for a in r[4]), tuple(r[5]), r[6], r[7], r[8])
                 for r in rows)


def load_rule(entry: RuleEntry) -> RuleSpec:
    """The rule record of one table entry, its module imported on first use."""
    spec = _specs.get(entry.code)
    if spec is None:
        spec = _specs[entry.code] = spec_of(_load(Path(entry.folder), entry.package, entry.name), entry.name)
    return spec


def clear_caches() -> None:
    """Forget the discovered rules (after ``RULE_DIRS`` changes) and everything built from them."""
    for fn in (catalogue, registry, anchor_index, rule_table):
        fn.cache_clear()
    _specs.clear()
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

    def __init__(self, entries: tuple[RuleEntry, ...]):
        self.entries = tuple(e for e in entries if e.source)
        self._word_rules: list[tuple[RuleEntry, re.Pattern[bytes]]] = []
        self._text_rules: list[tuple[RuleEntry, re.Pattern[bytes]]] = []
        texts: set[bytes] = set()
        for e in self.entries:
            for is_words, a in e.anchors:
                if is_words:
                    self._word_rules.append((e, re.compile(a)))
                else:
                    self._text_rules.append((e, re.compile(a)))
                    texts.add(a)
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
        self.requires = {e.code: e.requires for e in self.entries if e.requires}
        inner = [rx.pattern for _r, rx in self._word_rules]
        self._any_word = re.compile(rb"^(?:" + b"|".join(inner) + rb")$", re.M) if inner else None
        # Text anchors must start with a literal byte (not \b, a class or a group): then the engine derives
        # the set of first bytes and skips in C to them. Every rule's Example test fails if one does not.
        self.text_regex = re.compile(b"|".join(flat)) if flat else None
        self._words: dict[bytes, tuple[RuleSpec, ...]] = {}
        self._no_rules: set[bytes] = set()  # identifiers no word anchor matches
        self._texts: dict[bytes, tuple[RuleSpec, ...]] = {}

    @property
    def rules(self) -> list[RuleSpec]:
        """Every source rule (all their modules imported)."""
        return [load_rule(e) for e in self.entries]

    def kernel_rules(self) -> tuple[RuleSpec, ...]:
        """The source rules anchored at every kernel definition of the inventory (``KERNELS``)."""
        return tuple(load_rule(e) for e in self.entries if e.kernels)

    def word_rules(self, ident: bytes) -> tuple[RuleSpec, ...]:
        hit = self._words.get(ident)
        if hit is None:
            seen: dict[str, RuleEntry] = {}
            for e, rx in self._word_rules:
                if e.code not in seen and rx.fullmatch(ident):
                    seen[e.code] = e
            hit = tuple(load_rule(e) for e in seen.values())
            if len(self._words) < 200_000:
                self._words[ident] = hit
        return hit

    def text_rules(self, token: bytes) -> tuple[RuleSpec, ...]:
        hit = self._texts.get(token)
        if hit is None:
            seen: dict[str, RuleEntry] = {}
            for e, rx in self._text_rules:
                if e.code not in seen and rx.fullmatch(token):
                    seen[e.code] = e
            hit = tuple(load_rule(e) for e in seen.values())
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
            unmet = {code for code, needs in self.requires.items()
                     if not any(n in present or n in data for n in needs)}
            if unmet:
                out = [(s, e, rs) for s, e, rs in ((s, e, tuple(r for r in rs if r.code not in unmet)) for s, e, rs in out)
                       if rs]
        return out


@lru_cache(maxsize=1)
def anchor_index() -> AnchorIndex:
    """The anchor index of the running rules; a rule's module is imported when one of its anchors is first met."""
    return AnchorIndex(rule_table())


def load_all_rules() -> int:
    """Import every running rule's module now (a process about to fork workers, so that they inherit them rather
    than each importing the ones its files reach); the number of rules."""
    return len([load_rule(e) for e in rule_table()])


def build_rules() -> tuple[RuleSpec, ...]:
    """The running rules with a build-file check (``check_build``), ordered by code."""
    return tuple(load_rule(e) for e in rule_table() if e.build)


def module_of(code: str) -> Any:
    return by_code()[code].module
