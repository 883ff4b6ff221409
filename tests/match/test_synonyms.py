"""Light synonyms: a query word meets a skill's word from the same group, at half weight."""

from __future__ import annotations

from aiq_tui.ranking.match import SkillIndex
from aiq_tui.ranking.synonyms import SYNONYM_WEIGHT, synonyms
from aiq_tui.ranking.tokenize import tokenize
from tests.match.helpers import meta

SKILLS = [
    meta("cinema-guide", "Showtimes and reviews of movies."),
    meta("film-archive", "Search an archive of film reels."),
    meta("sql-query", "Run read-only SQL against a database."),
]


def test_groups_are_symmetric_and_in_tokenized_form() -> None:
    movie, film = tokenize("movie")[0], tokenize("film")[0]
    assert film in synonyms(movie) and movie in synonyms(film)
    assert synonyms("zzzz") == frozenset()


def test_a_synonym_finds_a_skill_but_counts_less_than_the_word_itself() -> None:
    index = SkillIndex(SKILLS)
    ranking = index.rank("a film tonight")
    names = [m.name for m in ranking.matches]
    assert names[0] == "film-archive"  # the word itself
    assert "cinema-guide" in names  # "movies" met through "film"
    via = ranking.get("cinema-guide")
    assert via.confidence < ranking.get("film-archive").confidence
    assert {s.term for s in via.signals} <= synonyms(
        tokenize("film")[0]
    )  # movies, cinema: no word of its own


def test_without_a_shared_or_related_word_nothing_matches() -> None:
    assert SkillIndex(SKILLS).rank("quantum chromodynamics").matches == ()


def test_explain_names_the_related_word() -> None:
    explanation = SkillIndex(SKILLS).explain("a film tonight", "cinema-guide")
    assert any(
        "met through related words" in reason
        and f"film~{tokenize('movies')[0]}" in reason
        for reason in explanation.reasons
    )
    assert SYNONYM_WEIGHT == 0.5
