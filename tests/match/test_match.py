"""Seed 000 matching scenarios, beyond-seed behaviour, and properties of the ranker."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aiq_tui.config import AppConfig
from aiq_tui.ranking.match import Calibration, SkillIndex
from tests.match.helpers import meta

SKILLS = [
    meta("pdf", "Read and fill PDF forms."),
    meta("pdf-tools", "Merge, split and rotate documents."),
    meta("report-writer", "Write reports; can export a summary as PDF."),
    meta("sql-query", "Run read-only SQL against a database.", tags=["database"]),
    meta(
        "slack-gif-creator",
        "Create animated GIFs optimised for Slack.",
        triggers=["make me a gif"],
    ),
    meta("weather", "Forecasts for any city."),
]


@pytest.fixture
def index() -> SkillIndex:
    return SkillIndex(SKILLS)


def names(ranking) -> list[str]:
    return [match.name for match in ranking.matches]


def test_extract_query_keywords(index: SkillIndex) -> None:
    ranking = index.rank("Could you please run an SQL query on the database?")
    # Terms are Snowball stems (the match keys); explanations show the words (see test_explain_*).
    assert ranking.terms == ("run", "sql", "queri", "databas")


def test_score_skills_exact_name_over_partial_name_over_description_keyword(
    index: SkillIndex,
) -> None:
    ranking = index.rank("pdf")
    assert names(ranking) == ["pdf", "pdf-tools", "report-writer"]
    exact, partial, keyword = ranking.matches
    assert exact.score > partial.score > keyword.score > 0
    assert {s.field for s in exact.signals} >= {"name"}
    assert {s.field for s in keyword.signals} == {"description"}


def test_a_common_name_word_does_not_pass_a_description_matching_the_whole_request() -> (
    None
):
    # The name order decides between skills covering the query equally ("pdf" above); one
    # shared word in a name ("tool") must not outrank a description that matches every word.
    index = SkillIndex(
        [
            meta("finance-tool", "Stock quotes and market news"),
            meta("law-tool", "Legal questions answered"),
            meta("site-checker", "Run an SEO analysis of any web page"),
        ]
    )
    ranking = index.rank("which tool does an SEO analysis of my page?")
    assert names(ranking)[0] == "site-checker"
    # …while a name match covering as much of the query as the description still wins.
    index = SkillIndex(
        [meta("seo-tool", "Helps websites"), meta("web-audit", "Audits SEO")]
    )
    assert names(index.rank("seo")) == ["seo-tool", "web-audit"]


def test_select_top_n_skills_default_three(index: SkillIndex) -> None:
    top_k = AppConfig().matching.top_k
    assert top_k == 3
    ranking = index.rank("pdf summary sql database slack", top_k=top_k)
    assert len(ranking.matches) == 3
    assert ranking.considered == len(SKILLS)


def test_unrelated_skills_score_zero_and_are_not_listed(index: SkillIndex) -> None:
    ranking = index.rank("pdf")
    assert "weather" not in names(ranking)
    assert index.rank("quantum chromodynamics").matches == ()


def test_partial_name_word_split_matches_identifier_queries(index: SkillIndex) -> None:
    assert names(index.rank("PdfTools", top_k=1)) == ["pdf-tools"]
    assert names(index.rank("sql_query please", top_k=1)) == ["sql-query"]


def test_trigger_phrase_adds_a_boost(index: SkillIndex) -> None:
    match = index.rank("make me a gif of a cat").matches[0]
    assert match.name == "slack-gif-creator"
    assert any(
        s.field == "triggers" and s.term == "make me a gif" for s in match.signals
    )


def test_clear_match_is_full_confidence_and_side_match_is_brief(
    index: SkillIndex,
) -> None:
    ranking = index.rank("create an animated gif for slack")
    assert ranking.matches[0].name == "slack-gif-creator"
    assert ranking.matches[0].confidence >= 0.7
    side = index.rank("export a pdf report and merge documents").matches
    assert all(0 <= m.confidence <= 1 for m in side)
    assert any(0.15 <= m.confidence < 0.7 for m in side)


def test_ties_are_broken_by_name() -> None:
    index = SkillIndex([meta("b-skill", "alpha tool"), meta("a-skill", "alpha tool")])
    assert names(index.rank("alpha")) == ["a-skill", "b-skill"]


def test_context_messages_add_down_weighted_terms(index: SkillIndex) -> None:
    without = index.rank("export it")
    with_context = index.rank("export it", context=["I am working on a slack gif"])
    assert names(without) == ["report-writer"]
    assert "slack-gif-creator" in names(with_context)
    assert (
        with_context.get("slack-gif-creator").score
        < with_context.get("report-writer").score * 10
    )


def test_explicit_activation_always_wins(index: SkillIndex) -> None:
    match = index.explicit_match("weather")
    assert match.explicit and match.confidence == 1.0
    assert match.signals[0].field == "explicit"
    with pytest.raises(KeyError):
        index.explicit_match("nope")


def test_index_updates_incrementally_on_reload(index: SkillIndex) -> None:
    index.upsert(meta("weather", "Forecasts and PDF weather maps."))
    assert "weather" in names(index.rank("pdf"))
    index.remove("pdf")
    assert "pdf" not in names(index.rank("pdf"))
    assert len(index) == len(SKILLS) - 1
    index.upsert(meta("pdf", "Read and fill PDF forms."))
    assert names(index.rank("pdf"))[0] == "pdf"


def test_body_signal_is_weak_and_reported(index: SkillIndex) -> None:
    index.add_body("weather", "Use the isobar chart helper for isobars.")
    match = index.rank("isobar").matches[0]
    assert match.name == "weather"
    assert {s.field for s in match.signals} == {"body"}
    assert match.confidence < 0.7


def test_explain_says_no_query_term_appears(index: SkillIndex) -> None:
    explanation = index.explain("make a gif for slack", "weather")
    assert explanation.rank is None
    assert (
        "no query term appears in name, description, tags or triggers"
        in explanation.reasons
    )
    assert set(explanation.missing) == {"make", "gif", "slack"}


def test_explanations_speak_in_the_users_words_not_stems(index: SkillIndex) -> None:
    explanation = index.explain("sample tables from databases", "weather")
    assert "missing terms: sample, tables, databases" in explanation.reasons
    assert explanation.missing_words == ("sample", "tables", "databases")
    assert explanation.missing == (
        "sampl",
        "tabl",
        "databas",
    )  # the match terms stay stems


def test_a_related_word_is_shown_as_the_skill_wrote_it() -> None:
    index = SkillIndex([meta("showtimes", "Showtimes for films near you.")])
    explanation = index.explain("movie tonight", "showtimes")
    assert "met through related words (half weight): movie~films" in explanation.reasons


def test_a_term_met_through_a_related_word_is_not_called_missing() -> None:
    index = SkillIndex([meta("showtimes", "Showtimes for films near you.")])
    explanation = index.explain("movie tonight", "showtimes")
    assert (
        "movie" not in explanation.missing_words
        and "tonight" in explanation.missing_words
    )
    assert not any(
        "missing terms" in reason and "movie" in reason
        for reason in explanation.reasons
    )


def test_explain_says_terms_matched_only_the_body_and_rank_below_top_k(
    index: SkillIndex,
) -> None:
    index.add_body("weather", "Attach the PDF forecast.")
    explanation = index.explain("pdf", "weather", top_k=3)
    assert "terms pdf matched only the body" in explanation.reasons
    assert "ranked 4th, below top-k 3" in explanation.reasons


def test_explain_unknown_skill() -> None:
    assert SkillIndex().explain("x", "ghost").reasons == (
        "no skill named 'ghost' is indexed",
    )


def test_chinese_query_matches_chinese_description() -> None:
    index = SkillIndex(
        [meta("image-convert", "将图片转换为PDF文件"), meta("weather", "天气预报")]
    )
    assert names(index.rank("请把图片转换一下", top_k=1)) == ["image-convert"]


words = st.text(alphabet=string.ascii_lowercase, min_size=3, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(words, min_size=1, max_size=8))
def test_property_ranking_is_deterministic_and_sorted(query_words: list[str]) -> None:
    query = " ".join(query_words + ["pdf"])
    first = SkillIndex(SKILLS).rank(query)
    second = SkillIndex(reversed(SKILLS)).rank(query)
    assert first == second
    keys = [(-m.score, m.name) for m in first.matches]
    assert keys == sorted(keys)
    assert all(m.score > 0 and 0 <= m.confidence <= 1 for m in first.matches)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="xyzq", min_size=4, max_size=9), min_size=1, max_size=6)
)
def test_property_unrelated_queries_score_zero(query_words: list[str]) -> None:
    # No skill text contains x, y, z or q words: nothing may match.
    assert SkillIndex(SKILLS).rank(" ".join(query_words)).matches == ()


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=5)
)
def test_property_pruned_top_k_equals_full_ranking_prefix(seed: int, k: int) -> None:
    import random

    rng = random.Random(seed)
    vocabulary = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
    ]
    index = SkillIndex(
        meta(
            f"s{i}",
            " ".join(
                rng.choices(
                    vocabulary, weights=[8, 6, 4, 3, 2, 1, 1, 1], k=rng.randint(2, 9)
                )
            ),
        )
        for i in range(60)
    )
    query = " ".join(rng.choices(vocabulary, k=rng.randint(1, 5)))
    full = index.rank(query)
    assert index.rank(query, top_k=k).matches == full.matches[:k] or [
        (m.name, m.score) for m in index.rank(query, top_k=k).matches
    ] == [(m.name, m.score) for m in full.matches[:k]]


def test_two_equally_good_skills_are_both_briefed_not_both_loaded_in_full() -> None:
    twins = SkillIndex(
        [
            meta("alpha", "Clean CSV files: fix headers and dates."),
            meta("beta", "Clean CSV files: fix headers and dates."),
        ]
    )
    query = "clean the headers and dates of my csv files"
    assert [m.confidence for m in twins.rank(query).matches] == [
        0.65,
        0.65,
    ]  # the tie cap, below full (0.7)
    assert (
        "held at 0.65: only 0% ahead of beta (a clear lead is 50%)"
        in twins.explain(query, "alpha").reasons
    )
    stricter = SkillIndex(
        [
            meta(name, "Clean CSV files: fix headers and dates.")
            for name in ("alpha", "beta")
        ],
        Calibration(tie_confidence=0.5),
    )
    assert [m.confidence for m in stricter.rank(query).matches] == [0.5, 0.5]


def test_a_clear_lead_reaches_full_and_a_longer_required_lead_holds_it_back() -> None:
    skills = [
        meta("csv-clean", "Clean CSV files: fix headers and dates."),
        meta("csv-chart", "Chart the dates in CSV files."),
    ]
    query = "clean the headers and dates of my csv files"
    assert SkillIndex(skills).rank(query).matches[0].confidence == 1.0
    demanding = SkillIndex(skills, Calibration(lead_margin=1.0))
    assert demanding.rank(query).matches[0].confidence < 1.0
    assert any(
        reason.startswith("held at ")
        for reason in demanding.explain(query, "csv-clean").reasons
    )


def test_a_lone_match_for_part_of_the_query_is_likely_not_certain() -> None:
    # No runner-up is the clearest lead there is; it still cannot make half a match certain.
    lone = SkillIndex([meta("release-notes", "Write release notes for a version")])
    query = "notes for the team meeting about a version"
    coverage = lone.coverage("release-notes", lone.query_weights(query))
    confidence = lone.rank(query).matches[0].confidence
    assert coverage < confidence <= round(coverage + 0.5 * (1 - coverage), 4) < 1.0


def test_a_missing_acronym_plural_is_named_as_the_acronym() -> None:
    index = SkillIndex([meta("invoice-check", "Check supplier invoices.")])
    explanation = index.explain("check the supplier POs", "invoice-check")
    assert "os" not in explanation.missing_words
    assert explanation.missing_words == ("po",)
