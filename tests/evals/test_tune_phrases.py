"""The tuner's phrases read as a skill author writes: a clause of the request in its words, the
polite opening gone, a leading verb in its -ing form after "for", never a bare stem."""

from __future__ import annotations

import pytest

from aiq_tui.ranking.tokenize import term_of
from aiq_tui.ranking.tune_phrases import (
    clauses,
    first_sentence,
    phrase_cuts,
    phrase_of,
    split_sentences,
    with_sentences,
)


@pytest.mark.parametrize(
    ("query", "phrase"),
    [
        (
            "click through the signup form on localhost:3000 and tell me what happens when I hit submit",
            "clicking through the signup form on localhost:3000",
        ),
        (
            "can you write a slack message announcing the new office hours",
            "writing a slack message announcing the new office hours",
        ),
        (
            "set my VS Code editor theme to something easier on the eyes",
            "setting a VS Code editor theme to something easier on the eyes",
        ),
        ("make me a gif of my owl", "making a gif of an owl"),
        (
            "I need a looping 'lgtm' animation to use as a slack reaction",
            "a looping 'lgtm' animation to use as a slack reaction",
        ),
        (
            "what's the main theme of The Great Gatsby",
            "the main theme of The Great Gatsby",
        ),
    ],
)
def test_a_request_becomes_a_phrase_that_reads_after_for(
    query: str, phrase: str
) -> None:
    assert phrase_of(clauses(query)[0], term_of=term_of) == phrase


def test_shorter_phrases_end_before_what_narrows_the_request_and_never_dangle() -> None:
    cuts = phrase_cuts("building a slack bot that posts the daily standup questions")
    assert cuts[0] == "building a slack bot that posts the daily standup questions"
    assert "building a slack bot" in cuts
    assert not any(cut.endswith((" a", " the", " that", " for")) for cut in cuts)


def test_clauses_split_at_punctuation_but_not_inside_a_host_and_port() -> None:
    assert clauses("draft our 3P update: progress, plans") == [
        "draft our 3P update",
        "progress",
        "plans",
    ]
    assert clauses("open localhost:3000 in a browser") == [
        "open localhost:3000 in a browser"
    ]


def test_added_sentences_follow_the_authors_text_and_a_later_run_takes_them_apart() -> (
    None
):
    text = with_sentences(
        "Make GIFs for Slack.",
        ["making a gif of an owl", "a looping animation"],
        ["writing a slack message", "building a slack bot"],
    )
    assert text == (
        "Make GIFs for Slack. Also use it for making a gif of an owl and a looping animation. "
        "Not for writing a slack message or building a slack bot."
    )
    assert split_sentences(text) == (
        "Make GIFs for Slack.",
        ("making a gif of an owl", "a looping animation"),
        ("writing a slack message", "building a slack bot"),
    )
    assert split_sentences("Make GIFs. Not for bots.") == ("Make GIFs.", (), ("bots",))
    assert split_sentences("Make GIFs. Not for bots, e.g. Slack bots.")[1:] == ((), ())
    assert first_sentence("Toolkit for X. Use it for y.") == "Toolkit for X."
