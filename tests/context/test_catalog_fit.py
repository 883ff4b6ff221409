"""Issue 33 item 2: the catalog line's description follows the window. Whole (up to
disclosure.description_max_chars, 1,536 characters as in Claude Code) while the catalog keeps to its share of the window;
past it the longest are shortened first, never below the seeds' ~50 tokens and never losing an
exclusion clause; ``disclosure.metadata_tokens`` is a fixed cap. ``prompt`` says which lines
were shortened, from what to what and why, with the figures the builder and the doctor use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.config import ContextSettings, DisclosureSettings
from aiq_tui.context.catalog_line import (
    CATALOG_HEADER,
    FitReason,
    catalog_line,
    fit_catalog,
    line_cuts,
    shorten,
)
from aiq_tui.context.prompt import PromptBuilder, PromptInputs
from aiq_tui.context.tokens import TokenCounter
from aiq_tui.doctor.run import inputs_for_workspace, run_doctor
from aiq_tui.ranking.exclusions import parse_exclusions
from aiq_tui.skills.validate import DESCRIPTION_MAX
from aiq_tui.workspace import Workspace
from tests.context.helpers import text

WEB_ARTIFACTS = (
    "Suite of tools for creating elaborate, multi-component claude.ai HTML artifacts using modern "
    "frontend web technologies (React, Tailwind CSS, shadcn/ui). Use for complex artifacts requiring "
    "state management, routing, or shadcn/ui components - not for simple single-file HTML/JSX artifacts."
)
COUNTER = TokenCounter()


def whole(description: str) -> str:
    return " ".join(description.split())


def long_description(i: int, words: int) -> str:
    return f"Handles job {i}: " + text(words, i) + "."


# -- the line -----------------------------------------------------------------------------------


def test_a_shortened_description_keeps_its_exclusion_clause_whole() -> None:
    short = shorten(WEB_ARTIFACTS, 120)
    assert short.endswith("… (not for simple single-file HTML/JSX artifacts)")
    assert short.startswith("Suite of tools for creating elaborate")
    assert [c.text for c in parse_exclusions(short).exclusions] == [
        "not for simple single-file HTML/JSX artifacts"
    ]


def test_a_description_that_fits_is_sent_as_written_on_one_line() -> None:
    assert shorten("Line one\n  line two.", 1024) == "Line one line two."
    assert (
        catalog_line("web-artifacts-builder", WEB_ARTIFACTS, 1024)
        == f"- web-artifacts-builder: {WEB_ARTIFACTS}\n"
    )


# -- the fit ------------------------------------------------------------------------------------


def test_a_large_window_sends_every_description_whole() -> None:
    entries = [(f"skill-{i}", long_description(i, 60)) for i in range(12)]
    fit = fit_catalog(entries, 200_000, DisclosureSettings(), 0.15, COUNTER.count)
    assert (
        fit.reason == FitReason.WHOLE
        and fit.cap_chars == DisclosureSettings().description_max_chars == 1536
    )
    assert line_cuts(entries, fit, COUNTER.count) == ()


def test_past_the_share_the_longest_are_shortened_first_to_one_cap_that_fits() -> None:
    entries = [(f"short-{i}", f"Does small task {i}.") for i in range(5)]
    entries += [(f"long-{i}", long_description(i, 120)) for i in range(6)]
    disclosure = DisclosureSettings()
    fit = fit_catalog(entries, 8192, disclosure, 0.15, COUNTER.count)
    assert fit.reason == FitReason.SHARE and fit.budget == int(
        8192 * disclosure.descriptions_share
    )
    cuts = line_cuts(entries, fit, COUNTER.count)
    assert {cut.name for cut in cuts} == {
        f"long-{i}" for i in range(6)
    }  # the short ones stay whole
    assert all(
        cut.chars <= fit.cap_chars < cut.whole_chars and cut.tokens < cut.whole_tokens
        for cut in cuts
    )
    assert (
        max(cut.chars for cut in cuts) - min(cut.chars for cut in cuts) < 40
    )  # one cap for all: fair
    catalog = CATALOG_HEADER + "".join(
        catalog_line(name, text, fit.cap_chars) for name, text in entries
    )
    assert COUNTER.count(catalog) <= fit.budget
    # … and as long as it can be: a cap a tenth longer would not fit.
    longer = CATALOG_HEADER + "".join(
        catalog_line(n, t, int(fit.cap_chars * 1.1)) for n, t in entries
    )
    assert COUNTER.count(longer) > fit.budget


def test_a_small_window_gets_the_seeds_budget_and_no_less() -> None:
    entries = [(f"skill-{i}", long_description(i, 80)) for i in range(20)]
    disclosure = DisclosureSettings()
    fit = fit_catalog(entries, 4000, disclosure, 0.15, COUNTER.count)
    assert (
        fit.reason == FitReason.FLOOR
        and fit.cap_chars == 4 * disclosure.metadata_min_tokens == 200
    )
    for name, description in entries:
        sent = COUNTER.count(
            catalog_line(name, description, fit.cap_chars)
        ) - COUNTER.count(f"- {name}: \n")
        assert 40 <= sent <= 60  # "~50 tokens per skill"
    assert "disclosure.metadata_min_tokens" in fit.why()


def test_metadata_tokens_is_a_fixed_cap_whatever_the_window() -> None:
    entries = [("a", long_description(1, 120))]
    fit = fit_catalog(
        entries, 200_000, DisclosureSettings(metadata_tokens=50), 0.15, COUNTER.count
    )
    assert fit.reason == FitReason.FIXED and fit.cap_chars == 200
    [cut] = line_cuts(entries, fit, COUNTER.count)
    assert cut.chars <= 200 and "disclosure.metadata_tokens" in fit.why()


def test_the_builder_writes_its_catalog_with_the_fit_whatever_the_order() -> None:
    builder = PromptBuilder(COUNTER, ContextSettings())
    entries = [(f"skill-{i}", long_description(i, 20 + 15 * i)) for i in range(10)]
    first = builder.build(PromptInputs(catalog=entries, window=16_384))
    again = builder.build(PromptInputs(catalog=entries[::-1], window=16_384))
    assert first.catalog_fit == again.catalog_fit and first.catalog_fit is not None
    assert first.catalog_fit.reason == FitReason.SHARE
    assert first.breakdown.catalog <= first.catalog_fit.budget
    assert builder.catalog_line("skill-9", entries[9][1]) in first.system


# -- the corpus and the bundled skills (the "done when") ------------------------------


def _descriptions(*skills_dirs: Path) -> dict[str, str]:
    catalog = Workspace.open(skills_dirs=skills_dirs).catalog
    return {meta.name: meta.description for meta in catalog}


def _prompt(capsys: pytest.CaptureFixture[str], corpus_dir: Path, *extra: str) -> dict:
    assert (
        main(["prompt", "hello", "--skills-dir", str(corpus_dir), "--json", *extra])
        == 0
    )
    return json.loads(capsys.readouterr().out)


def test_with_a_200000_token_window_every_bundled_and_corpus_description_is_sent_whole(
    capsys: pytest.CaptureFixture[str], corpus_dir: Path
) -> None:
    descriptions = _descriptions(corpus_dir)
    assert {"web-artifacts-builder", "claude-api", "sql-explorer"} <= set(descriptions)
    # claude-api's 1,068 characters are past the specification's 1,024 (validate warns) but
    # within what Claude Code sends its model: whole here too.
    assert len(whole(descriptions["claude-api"])) > DESCRIPTION_MAX
    data = _prompt(capsys, corpus_dir, "--window", "200000")
    for name, description in descriptions.items():
        assert f"- {name}: {whole(description)}\n" in data["system"], name
    assert data["catalog"]["shortened"] == []


def test_a_description_past_description_max_chars_is_cut_there_with_its_clauses_kept(
    capsys: pytest.CaptureFixture[str],
    corpus_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    descriptions = _descriptions(corpus_dir)
    config = tmp_path / "home" / "config" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("disclosure:\n  description_max_chars: 1024\n")
    monkeypatch.setenv("AIQ_HOME", str(tmp_path / "home"))
    data = _prompt(capsys, corpus_dir, "--window", "200000")
    over = sorted(
        name for name, text in descriptions.items() if len(whole(text)) > 1024
    )
    assert "claude-api" in over
    assert [cut["name"] for cut in data["catalog"]["shortened"]] == over
    for name in over:
        line = next(
            line
            for line in data["system"].splitlines()
            if line.startswith(f"- {name}: ")
        )
        assert len(line) - len(f"- {name}: ") <= 1024
        assert all(
            clause.text in line
            for clause in parse_exclusions(whole(descriptions[name])).exclusions
        )


def test_at_the_default_window_the_catalog_keeps_to_its_share_and_every_exclusion_clause_survives(
    capsys: pytest.CaptureFixture[str], corpus_dir: Path
) -> None:
    descriptions = _descriptions(corpus_dir)
    data = _prompt(capsys, corpus_dir)
    clauses = [
        (name, clause.text)
        for name, text in descriptions.items()
        for clause in parse_exclusions(whole(text)).exclusions
    ]
    assert {name for name, _ in clauses} >= {
        "web-artifacts-builder",
        "algorithmic-art",
        "claude-api",
    }
    for name, clause in clauses:
        line = next(
            line
            for line in data["system"].splitlines()
            if line.startswith(f"- {name}: ")
        )
        assert clause in line, (name, clause)
    window, catalog = data["breakdown"]["window"], data["catalog"]
    context, disclosure = ContextSettings(), DisclosureSettings()
    assert window == 8192 and catalog["omitted"] == 0 and catalog["shortened"]
    assert data["breakdown"]["catalog"] <= context.catalog_share * window
    assert (
        catalog["share"] == disclosure.descriptions_share
        and "disclosure.descriptions_share" in catalog["why"]
    )


def test_the_bundled_catalog_alone_keeps_to_the_descriptions_share_at_the_default_window(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["prompt", "hello", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (
        data["breakdown"]["catalog"] <= DisclosureSettings().descriptions_share * 8192
    )
    assert data["catalog"]["reason"] == FitReason.SHARE


def test_prompt_says_which_lines_were_shortened_from_what_to_what_and_why_as_the_doctor_does(
    capsys: pytest.CaptureFixture[str], corpus_dir: Path
) -> None:
    data = _prompt(capsys, corpus_dir)
    shortened = {cut["name"]: cut for cut in data["catalog"]["shortened"]}
    web = shortened["web-artifacts-builder"]
    assert (
        web["chars"]
        == len(whole(_descriptions(corpus_dir)["web-artifacts-builder"]))
        > web["chars_sent"]
    )
    assert web["tokens"] > web["tokens_sent"] > 0

    report = run_doctor(
        inputs_for_workspace(Workspace.open(skills_dirs=[corpus_dir])),
        checks=("budget",),
    )
    assert report.catalog is not None
    assert {
        cut.name: cut.to_json() for cut in report.catalog.cuts
    } == shortened  # one source of figures
    [finding] = [f for f in report.findings if "shortened in the catalog" in f.title]
    assert (
        "disclosure.descriptions_share" in finding.why
        and report.catalog.cuts[0].text() in finding.why
    )

    assert main(["prompt", "hello", "--skills-dir", str(corpus_dir)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"catalog: {len(shortened)} description(s) shortened — " in out
    assert (
        f"web-artifacts-builder: {web['chars']:,} → {web['chars_sent']:,} characters "
        f"({web['tokens']:,} → {web['tokens_sent']:,} tokens)" in out
    )
