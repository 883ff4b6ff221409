"""``aiq-tui match --eval`` on trigger sets from the CLI: text, JSON, CI gates, usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.match.test_match_cli import run, write_skill


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "slack-gif-creator", "Create animated GIFs optimised for Slack.")
    write_skill(root, "sql-query", "Run read-only SQL queries against a database.")
    write_skill(root, "weather-report", "Forecasts for any city.")
    return root


@pytest.fixture
def trigger_set(tmp_path: Path) -> Path:
    path = tmp_path / "gif.json"
    path.write_text(
        json.dumps(
            [
                {"query": "make a gif for slack", "should_trigger": True},
                {"query": "an animated party parrot", "should_trigger": True},
                {
                    "query": "a looping confetti burst",
                    "should_trigger": True,
                },  # no shared word: a miss
                {
                    "query": "convert this mp4 into a gif",
                    "should_trigger": False,
                },  # near miss: loads
                {
                    "query": "what's the weather in slack city",
                    "should_trigger": False,
                    "skill": "weather-report",
                },
            ]
        )
    )
    return path


def test_trigger_report_per_skill_with_each_failure_and_its_scores(
    skills: Path, trigger_set: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "match",
        "--eval",
        str(trigger_set),
        "--skill",
        "slack-gif-creator",
        "--skills-dir",
        str(skills),
    )
    assert code == 0
    assert "5 trigger queries for 2 skill(s)" in out and "overall" in out
    assert "gif.json[2] slack-gif-creator: should trigger, not loaded" in out
    assert (
        "gif.json[3] slack-gif-creator: should not trigger, loaded" in out
        and "gif@name" in out
    )
    assert "missing terms" in out


def test_trigger_report_json(
    skills: Path, trigger_set: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "match",
        "--eval",
        str(trigger_set),
        "--skill",
        "slack-gif-creator",
        "--skills-dir",
        str(skills),
        "--json",
        "--keyword-only",
    )
    assert code == 0
    data = json.loads(out)
    assert data["kind"] == "trigger" and data["top_k"] == 3 and data["model"] is None
    gif = next(s for s in data["skills"] if s["skill"] == "slack-gif-creator")
    assert (
        gif["should_trigger"],
        gif["should_not_trigger"],
        gif["false_triggers"],
    ) == (3, 1, 1)
    assert gif["recall"] == round(2 / 3, 4) and gif["precision"] == round(2 / 3, 4)
    assert data["overall"]["queries"] == 5
    miss = next(f for f in data["failures"] if f["where"] == "gif.json[2]")
    assert miss["loaded"] is False and miss["rank"] is None and miss["reasons"]
    near = next(f for f in data["failures"] if f["where"] == "gif.json[3]")
    assert near["phase"] in ("brief", "full") and near["signals"][0]["field"] == "name"


def test_ci_gates_exit_1_and_name_the_skill(
    skills: Path, trigger_set: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "match",
        "--eval",
        str(trigger_set),
        "--skill",
        "slack-gif-creator",
        "--skills-dir",
        str(skills),
        "--min-recall",
        "0.9",
        "--max-false-rate",
        "0.5",
    )
    assert code == 1
    assert (
        "thresholds: FAILED" in out
        and "slack-gif-creator recall 0.667 < --min-recall 0.9" in out
    )
    assert "false-trigger rate 1.000 > --max-false-rate 0.5" in out
    code, out, _ = run(
        capsys,
        "match",
        "--eval",
        str(trigger_set),
        "--skill",
        "slack-gif-creator",
        "--skills-dir",
        str(skills),
        "--min-recall",
        "0.5",
        "--max-false-rate",
        "1",
        "--json",
    )
    assert code == 0 and json.loads(out)["passed"] is True


def test_the_skill_is_taken_from_the_folder_of_its_eval_file(
    skills: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evals = skills / "sql-query" / "evals"
    evals.mkdir()
    (evals / "trigger_eval.json").write_text(
        '[{"query": "query the database with sql", "should_trigger": true}]'
    )
    code, out, _ = run(
        capsys,
        "match",
        "--eval",
        str(evals / "trigger_eval.json"),
        "--skills-dir",
        str(skills),
        "--json",
    )
    assert code == 0 and json.loads(out)["skills"][0]["skill"] == "sql-query"


def test_several_files_add_up_per_skill(
    skills: Path, trigger_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "sql.json"
    other.write_text(
        '[{"query": "run sql on the database", "should_trigger": true, "skill": "sql-query"}]'
    )
    code, out, _ = run(
        capsys,
        "match",
        "--eval",
        str(trigger_set),
        "--eval",
        str(other),
        "--skill",
        "slack-gif-creator",
        "--skills-dir",
        str(skills),
        "--json",
    )
    assert code == 0
    assert [s["skill"] for s in json.loads(out)["skills"]] == [
        "slack-gif-creator",
        "sql-query",
        "weather-report",
    ]


def test_a_tsv_with_a_header_row_is_scored_without_it(
    skills: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "labelled.tsv"
    path.write_text(
        "query\tskill\nmake a gif for slack\tslack-gif-creator\nquery the database\tsql-query\n"
    )
    code, out, _ = run(
        capsys, "match", "--eval", str(path), "--skills-dir", str(skills), "--json"
    )
    data = json.loads(out)
    assert (
        code == 0
        and data["queries"] == 2
        and data["hit@1"] == 1.0
        and data["unknown_skills"] == []
    )


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--skill", "nope"], "the eval names skill 'nope', which is not indexed"),
        (["--min-hit3", "0.5"], "--min-hit3 does not apply to a trigger set"),
    ],
)
def test_trigger_usage_errors_exit_2(
    skills: Path,
    trigger_set: Path,
    extra: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _out, err = run(
        capsys, "match", "--eval", str(trigger_set), "--skills-dir", str(skills), *extra
    )
    assert code == 2 and message in err


def test_flags_that_need_an_eval_file_say_so(
    skills: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run(
        capsys, "match", "gif", "--min-recall", "0", "--skills-dir", str(skills)
    )
    assert code == 2 and "--min-recall needs --eval FILE" in err


def test_mixing_tsv_and_trigger_sets_is_refused(
    skills: Path, trigger_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tsv = tmp_path / "q.tsv"
    tsv.write_text("make a gif\tslack-gif-creator\n")
    code, _out, err = run(
        capsys,
        "match",
        "--eval",
        str(tsv),
        "--eval",
        str(trigger_set),
        "--skills-dir",
        str(skills),
    )
    assert code == 2 and "not both" in err


def test_a_failures_signals_show_the_words_written_not_the_index_stems(
    skills: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    near_miss = tmp_path / "sql.json"
    near_miss.write_text(
        json.dumps(
            [
                {
                    "query": "list the databases",
                    "should_trigger": False,
                    "skill": "sql-query",
                }
            ]
        )
    )
    code, out, _ = run(
        capsys, "match", "--eval", str(near_miss), "--skills-dir", str(skills)
    )
    assert code == 0 and "should not trigger, loaded" in out
    assert "signals: databases@description" in out and "databas@" not in out


def test_a_skipped_skill_is_one_warning_and_the_other_sets_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "collection"
    write_skill(root, "slack-gif-creator", "Create animated GIFs optimised for Slack.")
    broken = root / "user-notes"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text(
        "---\nname: user-notes\ndescription: Take notes.\ntype: user\n---\nBody.\n"
    )
    for folder, query in (
        (root / "slack-gif-creator", "make a gif for slack"),
        (broken, "notes"),
    ):
        (folder / "evals").mkdir()
        (folder / "evals" / "trigger_eval.json").write_text(
            json.dumps([{"query": query, "should_trigger": True}])
        )
    code, out, err = run(capsys, "match", "--keyword-only", "--eval", str(root))
    assert code in (0, 1)  # the gif set was scored, not a usage error
    assert "slack-gif-creator" in out
    assert err.count("user-notes") >= 1 and "did not load" in err
    assert "--skills-dir" not in err  # no hint to add a folder that was given
