"""``skills tune``'s exclude candidate: words of near-miss false triggers become a "Not for …"
sentence, judged by test F1 like every other candidate."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.config import DisclosureSettings
from aiq_tui.ranking.description_edits import split_exclusion
from aiq_tui.ranking.match import SkillIndex
from aiq_tui.ranking.tokenize import tokenize
from aiq_tui.ranking.trigger_eval import TriggerCase
from aiq_tui.ranking.tune import DescriptionJudge, tune
from aiq_tui.ranking.tune_phrases import listed
from tests.match.helpers import meta

POSITIVE = [
    "make a gif of a dancing cat for slack",
    "animated slack gif of a rocket",
    "a looping gif for our slack",
    "slack gif that says shipped",
    "gif of our logo bouncing for slack",
    "a party gif for the slack team",
    "slack reaction gif with confetti",
    "a waving hand gif for slack",
    "coffee cup gif for slack",
    "celebration gif for slack",
]
NEGATIVE = [
    "post a message to the slack channel when the build finishes",
    "write a slack bot that answers questions",
    "export the messages of a slack channel",
    "a slack webhook message for failed deploys",
    "archive an old slack channel",
    "send a slack message to the team",
    "a slack bot that posts the standup",
    "forecast for lisbon tomorrow",
    "run sql on the orders database",
    "rain radar for berlin",
]


def cases() -> list[TriggerCase]:
    return [TriggerCase(q, True, "gif-maker") for q in POSITIVE] + [
        TriggerCase(q, False, "gif-maker") for q in NEGATIVE
    ]


def judge(description: str) -> tuple[DescriptionJudge, SkillIndex]:
    gif = meta("gif-maker", description)
    index = SkillIndex(
        [
            gif,
            meta("weather-report", "Forecasts and weather warnings for any city."),
            meta("sql-query", "Run read-only SQL on a database table."),
        ]
    )
    return DescriptionJudge(
        index, gif, lambda q: index.rank(q), 3, DisclosureSettings()
    ), index


def test_near_miss_words_become_a_not_for_sentence_that_raises_test_f1() -> None:
    judge_, index = judge("Make animated GIFs for Slack.")
    result = tune(judge_, cases(), holdout=0.4, seed=42, rounds=5)
    assert result.best.test_f1 > result.original.test_f1
    assert result.best.train_f1 >= result.original.train_f1
    assert "exclude" in result.best.candidate.origin
    core, excluded = split_exclusion(result.best.description)
    assert core.startswith("Make animated GIFs for Slack.") and excluded
    # Only near-miss words: never a word of a should-trigger query, never one the description has.
    wanted = {word for query in POSITIVE for word in query.split()}
    assert not {word.lower() for word in excluded} & (
        wanted | {"make", "animated", "gifs", "slack"}
    )
    assert (
        index.rank("post a message to the slack channel").get("gif-maker") is None
        or index.rank("post a message").get("gif-maker") is None
    )  # the judge put the real description back


def test_every_exclude_candidate_is_scored_and_reported_with_its_words() -> None:
    judge_, _ = judge("Make animated GIFs for Slack.")
    result = tune(judge_, cases(), holdout=0.4, seed=42, rounds=1)
    excludes = [s for s in result.history if s.candidate.origin.startswith("exclude")]
    assert excludes
    train_false = [
        set(tokenize(c.query)) for c in result.split.train if not c.should_trigger
    ]
    for scored in excludes:
        phrases = scored.candidate.excluded
        assert scored.candidate.origin == "exclude " + ", ".join(
            f'"{p}"' for p in phrases
        )
        # Each boundary is a phrase of one train near-miss, in its words (train evidence only).
        assert all(
            any(set(tokenize(p)) <= query for query in train_false) for p in phrases
        )
        assert scored.description.endswith(" Not for " + listed(phrases, "or") + ".")


def test_a_later_run_extends_the_not_for_sentence_instead_of_adding_one() -> None:
    judge_, _ = judge("Make animated GIFs for Slack. Not for webhook.")
    result = tune(judge_, cases(), holdout=0.4, seed=42, rounds=5)
    assert (
        result.original.description == "Make animated GIFs for Slack. Not for webhook."
    )
    assert result.original.edit == 0
    assert result.best.description.count("Not for") == 1
    assert split_exclusion(result.best.description)[1][0] == "webhook"


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["slack-gif-creator", "algorithmic-art"])
def test_the_weakest_corpus_skills_reach_test_f1_080(
    name: str, corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before exclusions were read, both stayed at test F1 0.73 whatever the tuner tried.
    from tests.evals.test_corpus_evals import tune as tune_cli

    data = tune_cli(capsys, corpus_dir, name)
    assert data["after"]["test"]["f1"] >= 0.8 and data["new_collisions"] == []
