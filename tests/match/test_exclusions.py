"""Exclusion clauses in descriptions: what a skill says it is *not* for is read as a boundary —
parsed out of the description, kept out of its positive evidence, and held against requests
that use its words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.ranking.exclusions import is_exclusion, parse_exclusions
from aiq_tui.ranking.match import EXCLUDED_FLOOR, EXCLUSION_FIELD, SkillIndex
from aiq_tui.ranking.tokenize import tokenize
from aiq_tui.skills.parse import parse_skill_text
from tests.match.helpers import meta


def corpus_description(corpus_dir: Path, name: str) -> str:
    fields = parse_skill_text(
        (corpus_dir / name / "SKILL.md").read_text(encoding="utf-8")
    ).meta_fields
    assert fields is not None
    return str(fields["description"])


# -- parsing: real descriptions from ../shared/corpus ----------------------------------------------


@pytest.mark.corpus
def test_a_dash_not_for_clause_is_cut_from_the_end_of_its_sentence(
    corpus_dir: Path,
) -> None:
    description = corpus_description(corpus_dir, "web-artifacts-builder")
    parsed = parse_exclusions(description)
    assert [e.text for e in parsed.exclusions] == [
        "not for simple single-file HTML/JSX artifacts"
    ]
    assert (
        parsed.exclusions[0].lead == "not for"
        and parsed.exclusions[0].scope == "simple single-file HTML/JSX artifacts"
    )
    assert parsed.positive.endswith(
        "state management, routing, or shadcn/ui components."
    )
    assert "simple" not in parsed.positive and parsed.positive.startswith(
        "Suite of tools"
    )


@pytest.mark.corpus
def test_a_skip_when_paragraph_is_one_clause_and_a_dont_skip_is_none(
    corpus_dir: Path,
) -> None:
    description = corpus_description(corpus_dir, "claude-api")
    parsed = parse_exclusions(description)
    assert len(parsed.exclusions) == 1
    clause = parsed.exclusions[0]
    assert clause.lead == "SKIP only when" and clause.text.startswith(
        "SKIP only when another provider"
    )
    # The clause runs over its own brackets and dots ("google.generativeai", "(… — don't Read the file)").
    assert (
        clause.text.endswith("don't Read the file)")
        and "Ollama named in the query" in clause.text
    )
    assert "don't skip because it" in parsed.positive  # "don't skip" asks for the skill
    assert (
        "OpenAI" not in parsed.positive
        and "Reference for the Claude API" in parsed.positive
    )


@pytest.mark.corpus
def test_rather_than_names_what_the_skill_does_not_do(corpus_dir: Path) -> None:
    parsed = parse_exclusions(corpus_description(corpus_dir, "algorithmic-art"))
    assert [e.scope for e in parsed.exclusions] == [
        "copying existing artists' work to avoid copyright violations"
    ]
    assert parsed.positive.endswith("Create original algorithmic art.")


@pytest.mark.corpus
@pytest.mark.parametrize(
    "name", ["frontend-design", "slack-gif-creator", "canvas-design", "internal-comms"]
)
def test_descriptions_without_a_boundary_are_left_whole(
    corpus_dir: Path, name: str
) -> None:
    # "choices that don't read as templated defaults", "never copying existing artists' work":
    # a negation is not an exclusion unless it says when not to use the skill.
    description = corpus_description(corpus_dir, name)
    assert parse_exclusions(description).exclusions == ()
    assert parse_exclusions(description).positive == description


@pytest.mark.parametrize(
    ("text", "positive", "clauses"),
    [
        (
            "Make GIFs (not for videos) quickly.",
            "Make GIFs quickly.",
            ["not for videos"],
        ),
        ("Not for X. Use when Y.", "Use when Y.", ["Not for X"]),
        (
            "Use when Y. Do not use for PDFs or Word files.",
            "Use when Y.",
            ["Do not use for PDFs or Word files"],
        ),
        (
            "Use when Y. NOT for slides, sheets. Also for Z.",
            "Use when Y. Also for Z.",
            ["NOT for slides, sheets"],
        ),
        (
            "Reads logs; avoid using it for metrics.",
            "Reads logs.",
            ["avoid using it for metrics"],
        ),
        (
            "Charts. Don't use this skill when the data is a single number.",
            "Charts.",
            ["Don't use this skill when the data is a single number"],
        ),
        (
            "Edits p5.js sketches. Not intended for claude.ai artifacts or us.anthropic.* ids.",
            "Edits p5.js sketches.",
            ["Not intended for claude.ai artifacts or us.anthropic.* ids"],
        ),
        (
            "Runs SQL. Don't skip because it looks easy.",
            "Runs SQL. Don't skip because it looks easy.",
            [],
        ),
        ("Never copy a file twice.", "Never copy a file twice.", []),
    ],
)
def test_leads_clauses_and_what_remains(
    text: str, positive: str, clauses: list[str]
) -> None:
    parsed = parse_exclusions(text)
    assert parsed.positive == positive
    assert [e.text for e in parsed.exclusions] == clauses
    assert all(text[e.start : e.end] == e.text for e in parsed.exclusions)
    assert is_exclusion(text) == bool(clauses)


def test_an_empty_description_has_no_exclusions() -> None:
    assert parse_exclusions("").exclusions == () and parse_exclusions("").positive == ""


# -- matching: the clause's words are evidence against the skill ---------------------------------

ARTIFACTS = (
    "Build elaborate multi-component HTML artifacts with React. Use for complex artifacts requiring "
    "state management or routing - not for simple single-file HTML/JSX artifacts."
)


def index_with(description: str = ARTIFACTS) -> SkillIndex:
    return SkillIndex(
        [
            meta("web-artifacts", description),
            meta("html-page", "Write a single HTML page or a landing page."),
            meta("sql-query", "Run read-only SQL on a database table."),
        ]
    )


def test_words_only_an_exclusion_uses_are_not_positive_evidence() -> None:
    index = index_with()
    match = index.rank("jsx").get("web-artifacts")
    assert match is None or all(
        s.field == EXCLUSION_FIELD or s.term != "jsx" for s in match.signals
    )
    # Words the skill also names as what it is for still count ("html", "artifacts").
    assert {
        s.term for s in index.rank("html artifacts").get("web-artifacts").signals
    } >= set(tokenize("html artifacts"))


def test_a_request_meeting_the_exclusion_loses_score_and_confidence_and_says_why() -> (
    None
):
    index = index_with()
    query = "a simple single-file HTML artifact"
    without = SkillIndex(
        [
            meta("web-artifacts", ARTIFACTS.split(" - ")[0] + "."),
            meta("html-page", "Write a single HTML page or a landing page."),
            meta("sql-query", "Run read-only SQL on a database table."),
        ]
    )
    excluded, plain = (
        index.rank(query).get("web-artifacts"),
        without.rank(query).get("web-artifacts"),
    )
    assert excluded is not None and plain is not None
    assert (
        excluded.score < plain.score and excluded.confidence < 0.15 <= plain.confidence
    )
    assert index.rank(query).matches[0].name == "html-page"
    penalty = [s for s in excluded.signals if s.field == EXCLUSION_FIELD]
    assert [s.term for s in penalty] == [
        "not for simple single-file HTML/JSX artifacts"
    ] and penalty[0].weight < 0
    assert sum(s.weight for s in excluded.signals) == pytest.approx(
        excluded.score, abs=1e-3
    )
    explanation = index.explain(query, "web-artifacts")
    assert explanation.excluded_by == ("not for simple single-file HTML/JSX artifacts",)
    assert any(
        reason.startswith(
            'excluded by: "not for simple single-file HTML/JSX artifacts"'
        )
        and "simple" in reason
        for reason in explanation.reasons
    )


def test_a_request_for_what_the_skill_is_for_is_not_touched() -> None:
    index = index_with()
    query = "build a complex HTML artifact with routing and state management"
    match = index.rank(query).matches[0]
    assert match.name == "web-artifacts" and match.confidence >= 0.7
    assert all(s.field != EXCLUSION_FIELD for s in match.signals)
    assert index.explain(query, "web-artifacts").excluded_by == ()


def test_the_penalty_grows_with_how_much_of_the_request_the_clause_explains() -> None:
    index = index_with()
    strong = index.rank("simple single file jsx artifact").get("web-artifacts")
    weak = index.rank(
        "complex artifact with routing state management and one simple button"
    ).get("web-artifacts")
    assert strong is not None and weak is not None
    assert weak.confidence > strong.confidence
    # Floored: an excluded skill stays listed, with the clause that excluded it.
    assert strong.score > 0 and strong.confidence <= EXCLUDED_FLOOR


def test_top_k_ranks_the_same_skills_as_the_full_ranking_when_an_exclusion_applies() -> (
    None
):
    index = index_with()
    for query in (
        "simple single-file html artifact",
        "html page with routing",
        "single jsx table",
    ):
        full = [(m.name, m.score) for m in index.rank(query).matches]
        assert [(m.name, m.score) for m in index.rank(query, top_k=2).matches] == full[
            :2
        ]
        assert list(index.top_scores(query, top_k=2).ranked) == full[:2]


def test_reloading_a_skill_replaces_its_exclusions() -> None:
    index = index_with()
    index.upsert(meta("web-artifacts", ARTIFACTS.split(" - ")[0] + "."))
    match = index.rank("simple single-file html artifact").get("web-artifacts")
    assert match is not None and all(s.field != EXCLUSION_FIELD for s in match.signals)
    index.remove("web-artifacts")
    assert index.rank("simple jsx").get("web-artifacts") is None


def test_requests_that_do_not_meet_a_clause_rank_exactly_as_without_it() -> None:
    with_clause, without = index_with(), index_with(ARTIFACTS.split(" - ")[0] + ".")
    for query in (
        "complex html artifact with routing",
        "a landing page for the database",
        "sql table",
    ):
        assert with_clause.rank(query) == without.rank(query)


# -- what the user sees ---------------------------------------------------------------------------


def test_match_explain_says_which_clause_excluded_the_skill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.match.test_match_cli import run, write_skill

    root = tmp_path / "skills"
    write_skill(root, "web-artifacts", ARTIFACTS)
    write_skill(root, "html-page", "Write a single HTML page or a landing page.")
    query = "a simple single-file HTML artifact"
    code, out, _ = run(
        capsys, "match", query, "--skills-dir", str(root), "--explain", "web-artifacts"
    )
    assert code == 0
    assert 'excluded by: "not for simple single-file HTML/JSX artifacts"' in " ".join(
        out.split()
    )
    code, out, _ = run(
        capsys,
        "match",
        query,
        "--skills-dir",
        str(root),
        "--explain",
        "web-artifacts",
        "--json",
        "--top",
        "20",
    )
    data = json.loads(out)
    explained = next(
        item for item in data["explanations"] if item["name"] == "web-artifacts"
    )
    assert explained["excluded_by"] == ["not for simple single-file HTML/JSX artifacts"]
    assert explained["confidence"] < 0.15
    signals = next(m for m in data["matches"] if m["name"] == "web-artifacts")[
        "signals"
    ]
    assert any(s["field"] == EXCLUSION_FIELD and s["weight"] < 0 for s in signals)


# -- a boundary outweighs a match on the name's words ---------------------------------------------

THEMES = "Toolkit for styling slides and documents with a theme of colors and fonts."


@pytest.mark.parametrize(
    "query",
    [
        "install a dark mode theme for my terminal",
        "set my VS Code editor theme to something calmer",
    ],
)
def test_a_boundary_outweighs_a_name_word_match_when_the_request_uses_its_own_words(
    query: str,
) -> None:
    from aiq_tui.config import DisclosureSettings
    from aiq_tui.ranking.trigger_eval import TriggerCase, evaluate_triggers

    others = [
        meta("sql-query", "Run read-only SQL on a database table."),
        meta("weather-report", "Forecasts and weather warnings for any city."),
    ]
    bounded = SkillIndex(
        [
            meta(
                "theme-factory", THEMES + " Not for setting editor or terminal themes."
            ),
            *others,
        ]
    )
    case = [TriggerCase(query, False, "theme-factory")]
    report = evaluate_triggers(
        bounded.rank, case, top_k=3, thresholds=DisclosureSettings()
    )
    assert not report.verdicts[
        0
    ].loaded  # "theme" is the boundary's word too: it counts against
    match = bounded.rank(query).get("theme-factory")
    assert match is None or any(s.field == EXCLUSION_FIELD for s in match.signals)
    # A request for what the skill is for still loads it.
    wanted = [TriggerCase("apply a dark theme to these slides", True, "theme-factory")]
    assert (
        evaluate_triggers(
            bounded.rank, wanted, top_k=3, thresholds=DisclosureSettings()
        )
        .verdicts[0]
        .loaded
    )


# -- a word the boundaries give other senses is weak evidence alone -------------------------------

LISTED = (
    THEMES
    + " Not for changing the WordPress theme on a blog, setting a VS Code editor theme, picking"
    " a theme for a wedding or writing a theme song."
)


def test_a_request_sharing_only_a_word_the_boundaries_list_in_other_senses_does_not_load_the_skill() -> (
    None
):
    from aiq_tui.config import DisclosureSettings
    from aiq_tui.ranking.trigger_eval import TriggerCase, evaluate_triggers

    others = [
        meta("sql-query", "Run read-only SQL on a database table."),
        meta("weather-report", "Forecasts and weather warnings for any city."),
    ]
    bounded = SkillIndex([meta("theme-factory", LISTED), *others])
    plain = SkillIndex([meta("theme-factory", THEMES), *others])
    cases = [
        TriggerCase(
            "what's the main theme of The Great Gatsby", False, "theme-factory"
        ),
        TriggerCase("apply a dark theme to these slides", True, "theme-factory"),
        TriggerCase("a theme with warm colors", True, "theme-factory"),
    ]

    def loaded(index: SkillIndex) -> list[bool]:
        report = evaluate_triggers(
            index.rank, cases, top_k=3, thresholds=DisclosureSettings()
        )
        return [verdict.loaded for verdict in report.verdicts]

    # Without the boundary "theme" alone loads it; the boundary lists four other themes, so
    # "theme" with nothing else of the skill's says this skill's sense one time in five.
    assert loaded(plain) == [True, True, True]
    assert loaded(bounded) == [
        False,
        True,
        True,
    ]  # "slides" / "colors" say which sense is meant
    gatsby = bounded.explain(
        "what's the main theme of The Great Gatsby", "theme-factory"
    )
    assert (
        'met only through theme, a word its "Not for …" clauses also use for 4 other things: confidence '
        "counts it at 1/5" in gatsby.reasons
    ), gatsby.reasons
    assert not gatsby.excluded_by  # no clause was met: the word's share, not a penalty


def test_each_listed_item_of_a_clause_is_one_more_sense_of_its_shared_words() -> None:
    from aiq_tui.ranking.exclusions import boundaries

    parsed = parse_exclusions(LISTED)
    (boundary,) = boundaries(parsed, frozenset(tokenize(parsed.positive)), tokenize)
    assert dict(boundary.senses) == {"theme": 4}
