"""The tuner's edits keep a description readable: list items and modifiers go, main clauses
and exclusions stay, and words are added in one sentence."""

from __future__ import annotations

from aiq_tui.ranking.description_edits import (
    add_words,
    drop_word,
    removable_units,
    remove_term,
    shorten,
)
from aiq_tui.ranking.tokenize import term_of


def term(word: str) -> str:
    """The matcher's term for a word, whatever the stemmer makes of it."""
    found = term_of(word)
    assert found is not None
    return found


ART = (
    "Creating algorithmic art using p5.js with seeded randomness. Use this when users request creating art "
    "using code, generative art, flow fields, or particle systems. Create original art rather than copying "
    "existing artists' work."
)
GIF = (
    "Knowledge and utilities for creating animated GIFs optimized for Slack. Use when users request animated "
    "GIFs for Slack."
)
ARTIFACTS = (
    "Suite of tools for creating elaborate, multi-component claude.ai HTML artifacts. Use for complex "
    "artifacts requiring state management, routing, or shadcn/ui components - not for simple "
    "single-file HTML/JSX artifacts."
)


def test_a_list_item_using_the_term_is_dropped_and_the_list_keeps_its_conjunction() -> (
    None
):
    assert remove_term(ART, term("particle")) == ART.replace(
        "flow fields, or particle systems", "or flow fields"
    )
    assert remove_term(ART, term("flow")) == ART.replace("flow fields, or", "or")


def test_a_sentence_is_dropped_only_when_its_main_clause_uses_the_term_and_others_remain() -> (
    None
):
    second = "Use this when users request creating art using code, generative art, flow fields, or particle systems. "
    assert remove_term(ART, term("code")) == ART.replace(second, "")
    assert (
        remove_term(ART, term("copying")) is None
    )  # "rather than copying …" is the skill's boundary
    assert (
        remove_term("Creates GIFs for Slack.", term("gifs")) is None
    )  # the only sentence stays


def test_one_comma_is_not_a_list() -> None:
    # "elaborate, multi-component" are two adjectives, not items: only the whole sentence can go.
    assert [
        unit.item
        for unit in removable_units("Creates elaborate, multi-component artifacts.")
    ] == []
    assert remove_term(ARTIFACTS, term("elaborate")) == ARTIFACTS.split(". ", 1)[1]


def test_exclusions_are_never_cut() -> None:
    assert (
        remove_term(ARTIFACTS, term("routing")) is None
    )  # its sentence says what the skill is not for
    assert remove_term(ARTIFACTS, term("single")) is None
    assert drop_word(ARTIFACTS, term("single")) is None


def test_a_modifier_is_dropped_but_never_a_head_or_a_governed_word() -> None:
    assert drop_word(GIF, term("animated")) == GIF.replace("animated ", "")
    assert (
        drop_word(GIF, term("slack")) is None
    )  # "for Slack": the preposition would be stranded
    assert (
        drop_word("Guide for creating MCP servers that enable tools.", term("servers"))
        is None
    )  # head noun


def test_words_are_added_in_one_use_for_sentence() -> None:
    assert add_words("Make GIFs", ["emoji"]) == "Make GIFs. Also use for emoji."
    assert (
        add_words("Make GIFs.", ["emoji", "reaction", "loop"])
        == "Make GIFs. Also use for emoji, reaction and loop."
    )
    assert add_words("Make GIFs.", []) == "Make GIFs."


def test_shorten_drops_the_least_worthy_pieces_until_it_fits() -> None:
    shorter = shorten(ART, 150, lambda text: 10.0 if "p5" in text else len(text) / 100)
    assert shorter is not None and len(shorter) <= 150 and "p5.js" in shorter
    assert (
        shorten("One sentence that is far too long to fit.", 10, lambda text: 0.0)
        is None
    )


def test_exclusions_are_added_in_one_not_for_sentence_a_later_run_can_extend() -> None:
    from aiq_tui.ranking.description_edits import add_exclusion, split_exclusion

    assert add_exclusion("Make GIFs", ["bots"]) == "Make GIFs. Not for bots."
    assert (
        add_exclusion("Make GIFs.", ["bots", "webhooks", "csv"])
        == "Make GIFs. Not for bots, webhooks or csv."
    )
    assert add_exclusion("Make GIFs.", []) == "Make GIFs."
    # A description ending in a quoted sentence is already ended: no stray full stop.
    quoted = 'Use when users ask "make me a GIF for Slack."'
    assert add_exclusion(quoted, ["bots"]) == quoted + " Not for bots."
    assert add_words(quoted, ["emoji"]) == quoted + " Also use for emoji."
    assert split_exclusion(add_exclusion(quoted, ["bots", "csv"])) == (
        quoted,
        ("bots", "csv"),
    )
    assert split_exclusion("Make GIFs. Not for bots.") == ("Make GIFs.", ("bots",))
    # Only the tuner's own form is split: anything else stays the author's text.
    assert split_exclusion("Make GIFs. Not for bots, e.g. Slack bots.") == (
        "Make GIFs. Not for bots, e.g. Slack bots.",
        (),
    )
    assert split_exclusion("Make GIFs (not for bots).") == (
        "Make GIFs (not for bots).",
        (),
    )
