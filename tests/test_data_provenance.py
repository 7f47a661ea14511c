"""Every bundled data table declares, machine-readably, when its facts were read (``as_of``) and from which public
sources (``sources``: https URLs, never a path outside the repository); the loader reads both for the reports."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from hipgauge.knowledge.provenance import DataSource, data_provenance, provenance_of

DATA = Path(__file__).resolve().parent.parent / "hipgauge" / "data"
FILES = sorted(p.name for p in DATA.iterdir() if p.suffix in (".toml", ".tsv"))


def test_the_loader_lists_every_data_file() -> None:
    assert FILES, "no data files found"
    assert [d.name for d in data_provenance()] == FILES


@pytest.mark.parametrize("name", FILES)
def test_data_file_declares_as_of_and_public_sources(name: str) -> None:
    d = provenance_of(name)
    assert d.as_of is not None, f"{name}: no as_of (TOML: top-level as_of = \"YYYY-MM-DD\"; TSV: '# as_of: …')"
    day = dt.date.fromisoformat(d.as_of)
    assert dt.date(2020, 1, 1) <= day <= dt.date.today(), f"{name}: as_of {d.as_of} out of range"
    assert d.sources, f"{name}: no sources"
    for src in d.sources:
        assert src.startswith("https://"), f"{name}: source is not an https URL: {src!r}"
        url = src.split()[0]
        assert "shared/knowledge" not in url and "/work/" not in url, f"{name}: source points outside the repo: {src!r}"


@pytest.mark.parametrize("name", FILES)
def test_data_file_header_names_no_path_outside_the_repo(name: str) -> None:
    head = [line for line in (DATA / name).read_text(encoding="utf-8").splitlines()[:40] if line.startswith("#")]
    assert not [line for line in head if "shared/knowledge" in line or "/work/" in line], name


def test_tsv_sources_split_on_the_separator() -> None:
    d = provenance_of("mapping_extra.tsv")
    assert len(d.sources) > 1 and all(" ; " not in s for s in d.sources)
    assert d.to_dict() == {"name": "mapping_extra.tsv", "as_of": d.as_of, "sources": list(d.sources)}


def test_a_data_source_is_plain_data() -> None:
    d = DataSource("x.toml", None, ())
    assert d.to_dict() == {"name": "x.toml", "as_of": None, "sources": []}


def _cli_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    import json

    from hipgauge.cli import main

    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code in (0, None)
    return json.loads(capsys.readouterr().out)


def test_rules_and_explain_json_name_the_catalogue_date_and_sources(capsys: pytest.CaptureFixture[str]) -> None:
    expected = provenance_of("rules.toml").to_dict()
    assert _cli_json(["rules", "--json"], capsys)["knowledge"] == [expected]
    assert _cli_json(["explain", "HG101", "--json"], capsys)["knowledge"] == [expected]


def test_reports_print_the_knowledge_used() -> None:
    from hipgauge.model import ScanResult
    from hipgauge.report.assessment import build_assessment
    from hipgauge.report.html import render_html
    from hipgauge.report.markdown import md, render_markdown

    doc = build_assessment(scan=ScanResult(root="src"), build_check={"status": "not run", "reason": "test"})
    assert doc["knowledge"] == [d.to_dict() for d in data_provenance()]
    mapping = provenance_of("hipify_mapping.tsv")
    text = render_markdown(doc)
    section = text[text.index("## Knowledge used"):]
    assert md("hipify_mapping.tsv") in section and f"<{mapping.sources[0]}>" in section and mapping.as_of in section
    html = render_html(doc)
    section = html[html.index('<section id="knowledge">'):]
    # shown without the scheme: the HTML report links to nothing outside itself
    assert mapping.sources[0].removeprefix("https://") in section and "rules.toml" in section


def test_provenance_keys_are_not_taken_for_table_entries() -> None:
    # arch_limits.toml is keyed by arch name at the top level: as_of / sources must not read as archs
    from hipgauge.knowledge.arch_limits import known_archs, load_arch_limits

    limits = load_arch_limits()
    assert "as_of" not in limits and "sources" not in limits
    assert set(known_archs("amd")) | set(known_archs("nvidia")) == {a for a, v in limits.items() if v.get("vendor")}
