"""``skills tune``: the optimisation loop with the matcher as judge, and the CLI around it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.config import DisclosureSettings
from aiq_tui.ranking.match import SkillIndex
from aiq_tui.ranking.trigger_eval import TriggerCase
from aiq_tui.ranking.tune import DescriptionJudge, parse_proposal, proposal_prompt, tune
from aiq_tui.skills.model import SkillMeta
from aiq_tui.skills.store import StoreError, set_description_in_file
from tests.match.helpers import meta

POSITIVE = [
    "make an emoji reaction for our chat",
    "a looping emoji of a waving cat",
    "emoji that spins for the team",
    "an animated emoji saying shipped",
    "turn our logo into a bouncing emoji",
    "a wiggling thumbs up emoji",
    "create a party emoji with confetti",
    "emoji of a coffee cup filling up",
    "a dancing llama emoji",
    "celebration emoji for hitting 1000 users",
]
NEGATIVE = [
    "forecast for lisbon tomorrow",
    "weather warnings for the weekend",
    "export the sales table to csv",
    "run sql on the orders database",
    "convert this pdf to text",
    "sum the revenue column",
    "check the air quality in paris",
    "list tables in the database",
    "rain radar for berlin",
    "backup the sqlite file",
]
BODY = "# Emoji maker\n\nDraw each emoji frame, loop it, keep it small.\n"


def cases() -> list[TriggerCase]:
    return [TriggerCase(q, True, "gif-maker") for q in POSITIVE] + [
        TriggerCase(q, False, "gif-maker") for q in NEGATIVE
    ]


def collection(
    description: str = "Make animated GIFs for Slack.",
) -> tuple[SkillIndex, SkillMeta]:
    gif = meta("gif-maker", description)
    index = SkillIndex(
        [
            gif,
            meta("weather-report", "Forecasts and weather warnings for any city."),
            meta("sql-query", "Run read-only SQL on a database table."),
        ]
    )
    return index, gif


def judge_for(index: SkillIndex, gif: SkillMeta) -> DescriptionJudge:
    return DescriptionJudge(
        index, gif, lambda q: index.rank(q), 3, DisclosureSettings()
    )


def test_tune_raises_test_f1_with_words_users_use_and_keeps_the_index_as_it_was() -> (
    None
):
    index, gif = collection()
    result = tune(
        judge_for(index, gif), cases(), holdout=0.4, seed=42, rounds=5, body=BODY
    )
    assert result.original.test_f1 < result.best.test_f1
    assert result.best.train_f1 >= result.original.train_f1
    assert "emoji" in result.best.description and result.best.description.startswith(
        "Make animated GIFs"
    )
    assert (len(result.split.train), len(result.split.test)) == (12, 8)
    match = index.rank("an emoji").get(
        "gif-maker"
    )  # the judge put the real description back
    assert match is None or all(signal.term != "emoji" for signal in match.signals)


def test_a_skill_that_already_passes_every_query_is_left_alone() -> None:
    index, gif = collection(
        "Make animated emoji: reactions, loops and party emoji for chat."
    )
    result = tune(
        judge_for(index, gif), cases(), holdout=0.4, seed=42, rounds=5, body=BODY
    )
    assert (
        not result.changed
        and result.stopped == "the description passes every train query"
    )
    assert result.exit_reason == "all_passed (iteration 1)"


def test_a_candidate_that_creates_a_collision_is_rejected_for_the_next_best() -> None:
    index, gif = collection()
    result = tune(
        judge_for(index, gif),
        cases(),
        holdout=0.4,
        seed=42,
        rounds=5,
        body=BODY,
        collisions=lambda text: (
            ("gif-maker and weather-report collide",) if "emoji" in text else ()
        ),
    )
    assert "emoji" not in result.best.description
    assert result.rejected and result.rejected[0].collisions == (
        "gif-maker and weather-report collide",
    )


def test_a_description_over_1024_characters_is_brought_within_the_limit() -> None:
    long = "Make animated GIFs for Slack. " + " ".join(
        f"Handles case {n}, variant {n}, and option {n}." for n in range(60)
    )
    index, gif = collection(long)
    result = tune(
        judge_for(index, gif), cases(), holdout=0.4, seed=42, rounds=2, body=BODY
    )
    assert (
        len(result.original.description) > 1024 and len(result.best.description) <= 1024
    )
    assert result.changed


def test_a_model_proposal_is_judged_like_any_candidate_and_failures_are_reported() -> (
    None
):
    index, gif = collection()
    asked = []

    def propose(request):
        asked.append(request)
        return "<new_description>Make animated GIFs and emoji for chat reactions.</new_description>"

    result = tune(
        judge_for(index, gif),
        cases(),
        holdout=0.4,
        seed=42,
        rounds=1,
        body=BODY,
        propose=propose,
    )
    request = asked[0]
    assert request.missed and all(
        q in POSITIVE for q in request.missed
    )  # train evidence only
    assert not set(request.missed) & {c.query for c in result.split.test}
    assert any(s.candidate.origin == "model proposal" for s in result.history)
    failing = tune(
        judge_for(index, gif),
        cases(),
        holdout=0.4,
        seed=42,
        rounds=1,
        body=BODY,
        propose=lambda request: "<new_description>Use <b>this</b></new_description>",
    )
    assert failing.proposals_failed and "angle brackets" in failing.proposals_failed[0]


def test_the_proposal_prompt_and_its_answer() -> None:
    index, gif = collection()
    result = tune(
        judge_for(index, gif),
        cases(),
        holdout=0.4,
        seed=42,
        rounds=1,
        body=BODY,
        propose=lambda request: (captured.append(proposal_prompt(request)), "")[1],
    )
    assert (
        "<new_description>" in captured[0]
        and "Make animated GIFs for Slack." in captured[0]
    )
    assert (
        parse_proposal(
            'Sure!\n<new_description>\n  "Make GIFs.\n Fast."  </new_description>'
        )
        == "Make GIFs. Fast."
    )
    assert parse_proposal("   ") is None
    assert result.proposals_failed == (
        "round 1: the model's answer held no description",
    )


captured: list[str] = []


# -- writing ---------------------------------------------------------------------------------------

SKILL_MD = """---
# kept: a comment
name: gif-maker
description: >-
  Make animated GIFs
  for Slack.

license: MIT
metadata:
  owner: team-fun
---

# GIF maker

Body stays.
"""


def test_only_the_description_changes_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_text(SKILL_MD, encoding="utf-8")
    set_description_in_file(
        path,
        "Make animated GIFs and emoji: for Slack.",
        expected="Make animated GIFs for Slack.",
    )
    after = path.read_text(encoding="utf-8")
    assert after == SKILL_MD.replace(
        "description: >-\n  Make animated GIFs\n  for Slack.\n",
        "description: 'Make animated GIFs and emoji: for Slack.'\n",
    )


def test_a_description_changed_on_disk_since_it_was_read_is_not_overwritten(
    tmp_path: Path,
) -> None:
    path = tmp_path / "SKILL.md"
    path.write_text(SKILL_MD, encoding="utf-8")
    with pytest.raises(StoreError, match="changed on disk"):
        set_description_in_file(path, "New.", expected="Something else.")
    with pytest.raises(StoreError, match="limit is 1024"):
        set_description_in_file(path, "x" * 1025)
    assert path.read_text(encoding="utf-8") == SKILL_MD


# -- the command -----------------------------------------------------------------------------------


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    (root / "gif-maker" / "evals").mkdir(parents=True)
    (root / "gif-maker" / "SKILL.md").write_text(
        SKILL_MD.replace("# GIF maker\n\nBody stays.", BODY.strip()), encoding="utf-8"
    )
    items = [{"query": c.query, "should_trigger": c.should_trigger} for c in cases()]
    (root / "gif-maker" / "evals" / "trigger_eval.json").write_text(
        json.dumps(items), encoding="utf-8"
    )
    for name, description in (
        ("weather-report", "Forecasts and weather warnings for any city."),
        ("sql-query", "Run read-only SQL on a database table."),
    ):
        (root / name).mkdir()
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\nBody.\n"
        )
    return root


def test_tune_reports_before_after_and_the_diff_and_writes_nothing_without_write(
    skills: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (skills / "gif-maker" / "SKILL.md").read_bytes()
    assert main(["skills", "tune", "gif-maker", "--skills-dir", str(skills)]) == 0
    out = capsys.readouterr().out
    assert "before" in out and "after" in out and "new collisions: none" in out
    assert (
        "{+Also use it for" in out or "{+Not for" in out
    )  # whole sentences added, nothing cut
    assert "not written: pass --write" in out
    assert (skills / "gif-maker" / "SKILL.md").read_bytes() == before


def test_tune_json_and_write(skills: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "skills",
                "tune",
                "gif-maker",
                "--skills-dir",
                str(skills),
                "--json",
                "--write",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert (
        data["changed"] and data["after"]["test"]["f1"] > data["before"]["test"]["f1"]
    )
    assert data["train_queries"] == 12 and data["test_queries"] == 8 and data["written"]
    text = (skills / "gif-maker" / "SKILL.md").read_text(encoding="utf-8")
    assert (
        data["after"]["description"] in text
        and "# kept: a comment" in text
        and "Body stays" not in text
    )
    assert text.endswith(BODY.strip() + "\n")
    # the written description is what the matcher now reads
    assert main(
        [
            "match",
            "--eval",
            str(skills / "gif-maker" / "evals" / "trigger_eval.json"),
            "--skills-dir",
            str(skills),
            "--json",
        ]
    ) in (0, 1)
    again = json.loads(capsys.readouterr().out)
    assert (
        again["skills"][0]["skill"] == "gif-maker"
    )  # the skill named by the file's folder
    assert (
        again["overall"]["passed"]
        == data["after"]["train"]["passed"] + data["after"]["test"]["passed"]
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["skills", "tune", "nope"], "no active skill named 'nope'"),
        (["skills", "tune", "weather-report"], "cannot read"),
        (
            ["skills", "tune", "gif-maker", "--rounds", "0"],
            "--rounds must be at least 1",
        ),
        (["skills", "tune", "gif-maker", "--holdout", "1.5"], "--holdout is a share"),
    ],
)
def test_tune_usage_errors_exit_2(
    skills: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--skills-dir", str(skills)]) == 2
    assert message in capsys.readouterr().err
