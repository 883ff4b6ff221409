"""The committed trigger eval sets of the twelve Anthropic skills in ../shared/corpus: each reads
and scores, and ``skills tune`` improves the weak ones without making anything worse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.match.test_match_cli import run

EVALS = Path(__file__).resolve().parents[1] / "match" / "data" / "trigger_evals"
SKILLS = sorted(path.stem for path in EVALS.glob("*.json"))
pytestmark = pytest.mark.corpus


def test_there_is_a_set_for_each_corpus_skill_with_near_misses(
    corpus_dir: Path,
) -> None:
    corpus = sorted(path.parent.name for path in corpus_dir.glob("*/SKILL.md"))
    assert corpus == SKILLS
    for name in SKILLS:
        items = json.loads((EVALS / f"{name}.json").read_text(encoding="utf-8"))
        assert sum(item["should_trigger"] for item in items) >= 8
        assert sum(not item["should_trigger"] for item in items) >= 8


def tune(capsys: pytest.CaptureFixture[str], corpus_dir: Path, name: str) -> dict:
    code, out, err = run(
        capsys,
        "skills",
        "tune",
        name,
        "--eval",
        str(EVALS / f"{name}.json"),
        "--skills-dir",
        str(corpus_dir),
        "--json",
    )
    assert code == 0, err
    return json.loads(out)


def test_tune_never_makes_a_corpus_skill_worse_and_raises_the_weak_ones(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weak_before, weak_after = [], []
    for name in SKILLS:
        data = tune(capsys, corpus_dir, name)
        before, after = data["before"], data["after"]
        assert after["test"]["f1"] >= before["test"]["f1"], name
        assert after["train"]["f1"] >= before["train"]["f1"], name
        assert after["chars"] <= 1024 and data["new_collisions"] == [], name
        if before["test"]["f1"] < 0.8:
            weak_before.append(before["test"]["f1"])
            weak_after.append(after["test"]["f1"])
    assert weak_before and sum(weak_after) > sum(weak_before)


def test_match_eval_reads_every_corpus_set(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in SKILLS:  # each file is one skill's set, named after it (no "skill" key): --skill names it
        code, out, _ = run(
            capsys,
            "match",
            "--eval",
            str(EVALS / f"{name}.json"),
            "--skill",
            name,
            "--skills-dir",
            str(corpus_dir),
            "--json",
        )
        data = json.loads(out)
        assert (
            code == 0
            and data["overall"]["queries"] == 20
            and data["skills"][0]["skill"] == name
        )
