"""``skills tune --write`` on real skills writes what a skill author would: the first sentence
kept, whole sentences added in the users' words, F1 raised on the weak skills and lowered on
none. The eval sets (tests/evals/data/, 8 should + 8 near-miss queries each) were written for
this test, apart from the sets the tuner was developed on (tests/match/data/trigger_evals)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from aiq_tui.ranking.trigger_eval import TriggerFigures
from aiq_tui.ranking.tune_phrases import first_sentence
from tests.match.test_match_cli import run

DATA = Path(__file__).resolve().parent / "data"
SKILLS = sorted(path.stem for path in DATA.glob("*.json"))
pytestmark = pytest.mark.corpus


def sentences(text: str) -> list[str]:
    return [
        part.strip()
        for part in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text.strip())
        if part.strip()
    ]


def overall(side: dict) -> TriggerFigures:
    """Train + test figures of ``skills tune --json`` summed (the whole eval set)."""
    figures = TriggerFigures("")
    for part in (side["train"], side["test"]):
        loaded = round(part["recall"] * part["should_trigger"])
        figures += TriggerFigures(
            "",
            part["should_trigger"],
            part["should_not_trigger"],
            loaded,
            0,
            part["false_triggers"],
        )
    return figures


def test_each_set_has_eight_should_and_eight_near_miss_queries() -> None:
    assert len(SKILLS) >= 4
    for name in SKILLS:
        items = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
        assert sum(item["should_trigger"] for item in items) == 8, name
        assert sum(not item["should_trigger"] for item in items) == 8, name


def test_tune_write_keeps_the_first_sentence_adds_whole_sentences_and_raises_the_weak_skills(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = tmp_path / "skills"
    for name in SKILLS:
        shutil.copytree(corpus_dir / name, skills / name)
    weak, raised = [], []
    for name in SKILLS:
        code, out, err = run(
            capsys,
            "skills",
            "tune",
            name,
            "--eval",
            str(DATA / f"{name}.json"),
            "--skills-dir",
            str(skills),
            "--write",
            "--json",
        )
        assert code == 0, err
        data = json.loads(out)
        before, after = data["before"]["description"], data["after"]["description"]
        assert after.startswith(first_sentence(before)), name
        # Only whole sentences are added: the author's text is all there, in order, and what
        # follows it are sentences the tuner wrote ("Also use it for …", "Not for …").
        assert after.startswith(before.rstrip(".")), name
        for sentence in sentences(after[len(before) :]):
            assert re.fullmatch(r"(Also use it for|Not for) [^.!?]+\.", sentence), (
                name,
                sentence,
            )
        assert len(after) <= 1024
        f1_before, f1_after = overall(data["before"]).f1, overall(data["after"]).f1
        assert f1_after >= f1_before - 1e-9, name
        # Issue 35: a false-trigger rate ≤ 0.25 after tuning, on every skill (theme-factory's
        # held-out near-misses share only "theme" with what it is for: 0.38 before the matcher
        # weighed a word its boundaries list in other senses at a share).
        assert overall(data["after"]).false_rate <= 0.25 + 1e-9, (
            name,
            overall(data["after"]),
        )
        if f1_before < 0.8:
            weak.append(name)
            raised += [name] if f1_after - f1_before >= 0.10 - 1e-9 else []
        written = (skills / name / "SKILL.md").read_text(encoding="utf-8")
        assert data["changed"] is (data["written"] is not None)
        if data["changed"]:
            assert " ".join(after.split()) in " ".join(written.split())
    assert weak and len(raised) * 2 >= len(weak), (weak, raised)


def test_the_reason_it_stopped_is_true_of_the_description_kept(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in SKILLS:
        code, out, err = run(
            capsys,
            "skills",
            "tune",
            name,
            "--eval",
            str(DATA / f"{name}.json"),
            "--skills-dir",
            str(corpus_dir),
            "--json",
        )
        assert code == 0, err
        data = json.loads(out)
        kept = data["after"]["train"]
        if data["stopped"].startswith(
            ("every train query passes", "the description passes every train query")
        ):
            assert kept["passed"] == kept["queries"], (name, data["stopped"], kept)
