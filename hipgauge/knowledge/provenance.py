"""Where each bundled data table comes from: its ``as_of`` date and its public ``sources``.

Every file under ``hipgauge/data/`` declares both, machine-readably:

* a TOML table has top-level keys ``as_of = "YYYY-MM-DD"`` and ``sources = ["https://…", …]``;
* a TSV table has header comment lines ``# as_of: YYYY-MM-DD`` and ``# sources: https://… ; https://…``.

A source is a public URL (pinned to a commit where the facts were read from a repository), optionally followed by
a note in parentheses. Reports print these under "Knowledge used"; ``tests/test_data_provenance.py`` fails on a
data file that does not declare them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from hipgauge.datafiles import load_data_toml, read_data_text

#: the kinds of data file the package carries
DATA_SUFFIXES = (".toml", ".tsv")


@dataclass(frozen=True)
class DataSource:
    """One bundled data table: its file name, when its facts were read, and from where."""

    name: str  # file name under hipgauge/data/
    as_of: str | None  # YYYY-MM-DD; None when the file does not say
    sources: tuple[str, ...]  # public URLs, each optionally followed by a note

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "as_of": self.as_of, "sources": list(self.sources)}


def data_file_names() -> list[str]:
    """The data tables under ``hipgauge/data/``, by name."""
    folder = resources.files("hipgauge").joinpath("data")
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(DATA_SUFFIXES))


def _tsv_provenance(name: str) -> DataSource:
    as_of: str | None = None
    sources: tuple[str, ...] = ()
    for line in read_data_text(name).splitlines():
        if not line.startswith("#"):
            break  # the header comments end at the column-name line
        key, sep, value = line[1:].partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "as_of":
            as_of = value or None
        elif key == "sources":
            sources = tuple(s.strip() for s in value.split(" ; ") if s.strip())
    return DataSource(name, as_of, sources)


def _toml_provenance(name: str) -> DataSource:
    doc = load_data_toml(name)
    as_of = doc.get("as_of")
    sources = doc.get("sources")
    return DataSource(name, str(as_of) if as_of else None,
                      tuple(str(s) for s in sources) if isinstance(sources, list) else ())


@lru_cache(maxsize=None)
def provenance_of(name: str) -> DataSource:
    """The ``as_of`` and ``sources`` that ``hipgauge/data/<name>`` declares."""
    return _tsv_provenance(name) if name.endswith(".tsv") else _toml_provenance(name)


def data_provenance() -> list[DataSource]:
    """Every bundled data table with its ``as_of`` and ``sources``, by file name."""
    return [provenance_of(name) for name in data_file_names()]
