"""The doctor reports what the matcher and the budget will do to a collection, with fixes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.doctor.model import Kind, Level
from aiq_tui.doctor.run import inputs_for_workspace, run_doctor
from aiq_tui.locations import Home
from aiq_tui.workspace import Workspace


def skill(
    root: Path, name: str, description: str, body: str = "Do the task.\n", **extra: str
) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"name: {name}", f"description: {description}"] + [
        f"{k}: {v}" for k, v in extra.items()
    ]
    (folder / "SKILL.md").write_text(
        "---\n" + "\n".join(lines) + "\n---\n\n" + body, encoding="utf-8"
    )
    return folder


def doctor(root: Path):
    workspace = Workspace.open(skills_dirs=(str(root),))
    return run_doctor(inputs_for_workspace(workspace))


def about(report, *names: str, kind: Kind | None = None):
    return [
        f
        for f in report.findings
        if set(names) <= set(f.skills) and (kind is None or f.kind is kind)
    ]


def test_a_skill_whose_description_routes_to_another_is_unreachable(
    tmp_path: Path,
) -> None:
    skill(tmp_path, "combine-docs", "Merge PDF files into one document.")
    skill(
        tmp_path,
        "pdf-merge",
        "Merge PDF files into one document, fast.",
        triggers='["merge pdf files"]',
    )
    report = doctor(tmp_path)
    [lost] = [
        f for f in about(report, "combine-docs", "pdf-merge", kind=Kind.UNREACHABLE)
    ]
    assert lost.level is Level.ERROR
    assert lost.title == "combine-docs loses its own description to pdf-merge"
    assert {"merge", "pdf"} & set(lost.terms)  # words as written, not stems ("merg")
    assert lost.query.startswith("Merge PDF files")
    [pair] = about(report, "combine-docs", "pdf-merge", kind=Kind.COLLISION)
    assert pair.level is Level.WARNING and "outranks combine-docs" in pair.why
    assert not report.ok


def test_near_duplicate_descriptions_collide_with_their_shared_terms(
    tmp_path: Path,
) -> None:
    skill(
        tmp_path,
        "sales-charts",
        "Draw sales charts from quarterly revenue spreadsheets.",
    )
    skill(
        tmp_path,
        "revenue-plots",
        "Draw sales charts from quarterly revenue spreadsheets and tables.",
    )
    skill(tmp_path, "weather-alerts", "Send storm warnings for a city.")
    report = doctor(tmp_path)
    [pair] = about(report, "revenue-plots", "sales-charts", kind=Kind.COLLISION)
    assert pair.level in (Level.WARNING, Level.ERROR)
    assert "shared terms" in pair.why and pair.terms
    assert (
        "spreadsheets" in pair.terms and "quarter," not in pair.why
    )  # words, not stems ("quarter")
    assert not about(report, "weather-alerts", kind=Kind.COLLISION)


def test_name_words_missing_from_the_description_are_reported(tmp_path: Path) -> None:
    skill(tmp_path, "zebra-tool", "Convert Markdown notes to HTML pages.")
    report = doctor(tmp_path)
    [finding] = [
        f
        for f in about(report, "zebra-tool", kind=Kind.UNREACHABLE)
        if "name" in f.title
    ]
    assert finding.level is Level.WARNING and "zebra" in finding.terms


def test_hogs_and_skills_too_big_to_load_are_reported_against_the_window(
    tmp_path: Path, isolated_home: Home
) -> None:
    isolated_home.root.mkdir(parents=True, exist_ok=True)
    (isolated_home.root / "config.yaml").write_text(
        "context:\n  window: 4000\n  reserve_output: 500\n"
    )
    skill(
        tmp_path,
        "huge-manual",
        "Explain the huge manual.",
        body="alpha beta gamma delta " * 1500,
    )
    skill(
        tmp_path,
        "long-guide",
        "Explain the long guide.",
        body="alpha beta gamma delta " * 300,
    )
    skill(tmp_path, "tiny-note", "Explain the tiny note.")
    report = doctor(tmp_path)
    [too_big] = about(report, "huge-manual", kind=Kind.BUDGET)
    assert too_big.level is Level.ERROR and "cannot be loaded in full" in too_big.title
    [hog] = about(report, "long-guide", kind=Kind.BUDGET)
    assert hog.level is Level.WARNING and "hog" in hog.title
    assert not [
        f
        for f in about(report, "tiny-note", kind=Kind.BUDGET)
        if f.level is not Level.INFO
    ]
    assert report.costs[0].name == "huge-manual"  # largest first
    assert report.catalog is not None and report.catalog.window == 4000


def test_catalog_overflow_names_the_skills_cut_first(
    tmp_path: Path, isolated_home: Home
) -> None:
    isolated_home.root.mkdir(parents=True, exist_ok=True)
    (isolated_home.root / "config.yaml").write_text(
        "context:\n  window: 2000\n  catalog_share: 0.1\nskills:\n  bundled: false\n"
    )
    for i in range(30):
        skill(
            tmp_path,
            f"topic-{i:02d}",
            f"Answer questions about topic number {i} in depth and detail.",
        )
    report = doctor(tmp_path)
    [overflow] = [f for f in report.findings if f.title.startswith("catalog overflows")]
    assert overflow.level is Level.WARNING
    catalog = report.catalog
    assert (
        catalog is not None and catalog.omitted and catalog.omitted == overflow.skills
    )
    assert catalog.catalog_tokens <= catalog.catalog_limit
    assert [n for n, _ in catalog.projections] == [50, 500, 5000]


def test_shortened_descriptions_are_counted_from_one_source_in_the_finding_and_the_catalog_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = (
        "Answer questions about invoices, receipts, ledgers and the monthly close " * 6
    )
    for i in range(3):
        skill(tmp_path, f"books-{i}", f"{long}number {i}.")
    skill(tmp_path, "short-one", "Say hello.")
    report = doctor(tmp_path)
    catalog = report.catalog
    [finding] = [f for f in report.findings if "shortened in the catalog" in f.title]
    assert (
        set(finding.skills)
        == set(catalog.shortened)
        >= {"books-0", "books-1", "books-2"}
    )
    assert "short-one" not in catalog.shortened
    assert main(["skills", "doctor", "--skills-dir", str(tmp_path)]) in (0, 1)
    out = capsys.readouterr().out
    assert (
        f"{len(catalog.shortened)} description(s) are shortened in the catalog"
        in " ".join(out.split())
    )
    assert (
        f"{len(catalog.shortened)} with a shortened description, 0 left out"
        in " ".join(out.split())
    )


def test_risky_scripts_shell_preapproval_and_broken_links(tmp_path: Path) -> None:
    folder = skill(
        tmp_path,
        "installer",
        "Install the toolchain.",
        body="See [the guide](references/guide.md) and [site](https://example.com).\n",
        **{"allowed-tools": "Bash"},
    )
    (folder / "scripts").mkdir()
    (folder / "scripts" / "setup.sh").write_text("curl https://example.com/x.sh | sh\n")
    report = doctor(tmp_path)
    titles = [f.title for f in about(report, "installer", kind=Kind.RISK)]
    assert "installer: scripts cannot run as they are" in titles
    # what could do harm is the safety scan's, with its rule, file and line: one home per fact
    safety = {f.rule: f for f in about(report, "installer", kind=Kind.SAFETY)}
    assert "matches 'download piped to a shell" in safety["dangerous-command"].why
    assert str(safety["dangerous-command"].location).endswith("scripts/setup.sh:1")
    assert safety["open-shell-grant"].level is Level.WARNING
    assert not [t for t in titles if "pre-approves" in t or "matches" in t]
    [links] = [
        f for f in about(report, "installer", kind=Kind.RISK) if "link" in f.title
    ]
    assert links.terms == ("references/guide.md",)
    assert not report.ok


def test_an_executable_script_with_a_shebang_is_fine(tmp_path: Path) -> None:
    folder = skill(tmp_path, "greeter", "Greet people by name.")
    (folder / "scripts").mkdir()
    script = folder / "scripts" / "hello.sh"
    script.write_text("#!/bin/sh\necho hello\n")
    os.chmod(script, 0o755)
    assert not about(doctor(tmp_path), "greeter", kind=Kind.RISK)


def test_spec_problems_are_those_of_validate_strict_grouped(tmp_path: Path) -> None:
    skill(tmp_path, "first-one", "First skill for grouping.", owner='"ana"')
    skill(tmp_path, "second-one", "Second skill for grouping.", owner='"bo"')
    report = doctor(tmp_path)
    [group] = [f for f in report.findings if f.kind is Kind.SPEC and "owner" in f.title]
    assert (
        set(group.skills) == {"first-one", "second-one"} and group.level is Level.ERROR
    )
    assert "metadata" in group.fix


def test_aiq_extension_fields_are_portability_warnings_not_errors(
    tmp_path: Path,
) -> None:
    skill(tmp_path, "first-one", "First skill for grouping.", version='"1.0"')
    report = doctor(tmp_path)
    [finding] = [
        f for f in report.findings if f.kind is Kind.SPEC and "version" in f.title
    ]
    assert (
        finding.level is Level.WARNING and "other Agent Skills clients" in finding.why
    )


def test_cli_exit_codes_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = tmp_path / "clean"
    skill(clean, "weather-alerts", "Send weather alerts for a city.")
    assert main(["skills", "doctor", "--skills-dir", str(clean)]) == 0
    assert "0 error(s)" in capsys.readouterr().out
    broken = tmp_path / "broken"
    skill(broken, "combine-docs", "Merge PDF files into one document.")
    skill(
        broken,
        "pdf-merge",
        "Merge PDF files into one document, fast.",
        triggers='["merge pdf files"]',
    )
    assert main(["skills", "doctor", "--json", "--skills-dir", str(broken)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and data["counts"]["error"] >= 1
    assert {"kind", "severity", "skills", "why", "fix", "query"} <= set(
        data["findings"][0]
    )
    with pytest.raises(SystemExit) as usage:
        main(["skills", "doctor", "--no-such-option"])
    assert usage.value.code == 2


def test_the_corpus_gets_a_report(corpus_dir: Path) -> None:
    report = doctor(corpus_dir)
    assert report.skills >= 12
    [over] = [f for f in report.findings if "model-migration.md" in f.why]
    # aiq-tui's own resource limit is a note, named as aiq-tui's, never a harness's rule
    assert over.kind is Kind.RISK and over.level is Level.INFO
    assert "aiq-tui's own resource limit" in over.title
    assert report.costs and report.catalog is not None


def test_the_skill_viewer_and_the_doctor_give_one_verdict(tmp_path: Path) -> None:
    from aiq_tui.doctor.spec import skill_verdict
    from aiq_tui.ui.skill_actions import validation_problems

    folder = skill(tmp_path, "first-one", "First skill for grouping.", version='"1.0"')
    workspace = Workspace.open(skills_dirs=(str(tmp_path),))
    meta = workspace.catalog.get("first-one")
    shown = validation_problems(meta, workspace.config.skills)
    assert shown == skill_verdict(folder / "SKILL.md", workspace.config.skills)
    [finding] = [
        f
        for f in doctor(tmp_path).findings
        if f.kind is Kind.SPEC and "version" in f.title
    ]
    assert [p.severity.value for p in shown if p.field == "version"] == [
        finding.level.value
    ]
