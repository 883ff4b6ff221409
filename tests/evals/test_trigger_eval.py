"""Trigger evals in skill-creator's format: reading, judging like a first turn, the figures,
the seeded split, and adding a query to a skill's eval file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.config import DisclosureSettings
from aiq_tui.ranking.evaluate import EvalFileError, is_header, read_cases
from aiq_tui.ranking.match import SkillIndex
from aiq_tui.ranking.trigger_eval import (
    TriggerCase,
    TriggerFigures,
    add_trigger_query,
    evaluate_triggers,
    read_trigger_cases,
    skill_of_eval_file,
    split_cases,
)
from aiq_tui.skills.model import Phase
from tests.match.helpers import meta

INDEX = SkillIndex(
    [
        meta("slack-gif-creator", "Create animated GIFs optimised for Slack."),
        meta("sql-query", "Run read-only SQL queries against a database."),
        meta("weather-report", "Forecasts for any city."),
    ]
)


def judge(cases: list[TriggerCase], top_k: int = 3):
    return evaluate_triggers(
        lambda q: INDEX.rank(q),
        cases,
        top_k=top_k,
        thresholds=DisclosureSettings(),
        explain=lambda q, name: INDEX.explain(q, name, top_k=top_k).reasons,
    )


def test_skill_creator_json_is_read_with_the_skill_from_the_flag_or_each_item(
    tmp_path: Path,
) -> None:
    path = tmp_path / "evals.json"
    path.write_text(
        json.dumps(
            [
                {"query": "make a gif", "should_trigger": True},
                {
                    "query": "what's the weather",
                    "should_trigger": False,
                    "skill": "weather-report",
                    "id": 7,
                },
            ]
        )
    )
    cases = read_trigger_cases(path, "slack-gif-creator")
    assert cases == [
        TriggerCase("make a gif", True, "slack-gif-creator", "evals.json[0]"),
        TriggerCase("what's the weather", False, "weather-report", "evals.json[1]"),
    ]


def test_the_skill_comes_from_the_folder_in_skill_creators_layout(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "my-skill"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: my-skill\ndescription: x\n---\n")
    path = folder / "evals" / "trigger_eval.json"
    path.write_text('[{"query": "q", "should_trigger": true}]')
    assert skill_of_eval_file(path) == folder.resolve()
    assert skill_of_eval_file(tmp_path / "elsewhere.json") is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"query": "q", "should_trigger": "yes"}]', r"\$\[0\]\.should_trigger"),
        ('[{"should_trigger": true}]', r"query"),
        ('[{"query": "  ", "should_trigger": true}]', r"item 0 has an empty query"),
        ('{"skill_name": "x", "evals": []}', r"skill-creator's evals\.json"),
        ('[{"query": "q", "should_trigger": true', r"not valid JSON"),
        ("[]", r"no queries"),
    ],
)
def test_a_bad_trigger_file_names_the_file_and_the_item(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(EvalFileError, match=message) as raised:
        read_trigger_cases(path, "x")
    assert "bad.json" in str(raised.value)


def test_without_a_skill_the_error_says_how_to_name_one(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    path.write_text('[{"query": "q", "should_trigger": true}]')
    with pytest.raises(
        EvalFileError, match=r"set\.json\[0\]: which skill.*--skill NAME"
    ):
        read_trigger_cases(path)


def test_a_tsv_header_row_is_not_a_query(tmp_path: Path) -> None:
    path = tmp_path / "labelled.tsv"
    path.write_text("query\tskill\nmake a gif for slack\tslack-gif-creator\n")
    assert [(c.query, c.expected) for c in read_cases(path)] == [
        ("make a gif for slack", "slack-gif-creator")
    ]
    assert is_header(["Query", "expected_skill"]) and not is_header(
        ["query the db", "sql-query"]
    )


def test_loaded_means_what_a_first_turn_would_load() -> None:
    report = judge(
        [
            TriggerCase(
                "make a gif for slack", True, "slack-gif-creator"
            ),  # top match, full
            TriggerCase(
                "is it sunny in paris", True, "weather-report"
            ),  # no shared word: missed
            TriggerCase(
                "run sql on the weather database", False, "sql-query"
            ),  # near miss: loads
            TriggerCase(
                "forecast of the stock market", False, "slack-gif-creator"
            ),  # nothing shared
        ]
    )
    phases = [v.phase for v in report.verdicts]
    assert (
        phases[0] is Phase.FULL
        and phases[1] is Phase.METADATA
        and phases[2] is not Phase.METADATA
    )
    assert [v.passed for v in report.verdicts] == [True, False, False, True]
    missed = report.verdicts[1]
    assert missed.rank is None and any(
        "no query term" in reason for reason in missed.reasons
    )
    assert report.verdicts[0].reasons == ()  # passing cases are not explained


def test_a_skill_outside_the_top_k_is_not_loaded() -> None:
    report = judge(
        [TriggerCase("make a gif for slack", True, "slack-gif-creator")], top_k=1
    )
    assert report.verdicts[0].loaded
    low = judge(
        [TriggerCase("run sql on the weather database", True, "weather-report")],
        top_k=1,
    )
    assert (
        low.verdicts[0].rank == 2
        and not low.verdicts[0].loaded
        and low.verdicts[0].ahead == ("sql-query",)
    )


def test_figures_per_skill_and_overall() -> None:
    gif = TriggerFigures(
        "gif", should=4, should_not=4, loaded=3, loaded_full=1, false_triggers=1
    )
    assert (gif.recall, gif.recall_full, gif.false_rate, gif.precision) == (
        0.75,
        0.25,
        0.25,
        0.75,
    )
    assert gif.f1 == pytest.approx(0.75) and gif.passed == 6
    overall = gif + TriggerFigures("sql", should=2, should_not=0, loaded=2)
    assert (overall.should, overall.loaded, overall.recall, overall.false_rate) == (
        6,
        5,
        5 / 6,
        0.25,
    )
    # skill-creator's conventions: nothing fired → precision 1; nothing should fire → recall 1
    assert (
        TriggerFigures("x", should_not=3).precision == 1.0
        and TriggerFigures("x", should_not=3).recall == 1.0
    )
    assert TriggerFigures("x", should=2).f1 == 0.0


def test_the_split_is_stratified_seeded_and_never_empties_a_class() -> None:
    cases = [TriggerCase(f"yes {i}", True, "s") for i in range(10)] + [
        TriggerCase(f"no {i}", False, "s") for i in range(10)
    ]
    split = split_cases(cases, 0.4, 42)
    assert len(split.test) == 8 and len(split.train) == 12
    assert sum(c.should_trigger for c in split.test) == 4
    assert split == split_cases(cases, 0.4, 42)  # the same seed, the same split
    assert split != split_cases(cases, 0.4, 7)
    tiny = split_cases(cases[:1] + cases[-2:], 0.4, 42)  # one should, two should-not
    assert [c.should_trigger for c in tiny.train] == [True, False] and len(
        tiny.test
    ) == 1
    assert split_cases(cases, 0.0, 42).test == ()


def test_adding_a_query_creates_the_file_keeps_other_keys_and_relabels(
    tmp_path: Path,
) -> None:
    path = tmp_path / "skill" / "evals" / "trigger_eval.json"
    assert add_trigger_query(path, " make a gif ", True) == "added"
    path.write_text(
        json.dumps([{"query": "make a gif", "should_trigger": True, "note": "kept"}])
    )
    assert add_trigger_query(path, "make a gif", True) == "kept"
    assert add_trigger_query(path, "make a gif", False) == "relabelled"
    assert add_trigger_query(path, "check the weather", False) == "added"
    assert json.loads(path.read_text()) == [
        {"query": "make a gif", "should_trigger": False, "note": "kept"},
        {"query": "check the weather", "should_trigger": False},
    ]


def test_adding_to_a_file_that_is_not_a_trigger_set_writes_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "trigger_eval.json"
    path.write_text('{"skill_name": "x", "evals": []}')
    with pytest.raises(EvalFileError):
        add_trigger_query(path, "q", True)
    assert path.read_text() == '{"skill_name": "x", "evals": []}'
