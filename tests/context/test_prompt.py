"""Seed 000 — skills in the prompt (format, priority order); seed 004 — catalog and no skills."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from aiq_tui.config import ContextSettings, DisclosureSettings
from aiq_tui.context.prompt import (
    USE_SKILL_INSTRUCTIONS,
    CatalogLevel,
    LoadedSkill,
    PromptBuilder,
    PromptInputs,
)
from aiq_tui.context.tokens import TokenCounter
from aiq_tui.conversation import Message, Role, ToolCall, ToolSpec
from aiq_tui.skills.model import Phase, SkillState
from tests.context.helpers import text, turns


def request_tokens(counter, prompt) -> int:
    """The test's own count of the request as one piece (system, tools, messages): the figure
    the engine's breakdown must equal, minus the reserve."""
    return (
        counter.count_system(prompt.system)
        + counter.count_tools(prompt.tools)
        + counter.count_messages(prompt.messages)
    )


@pytest.fixture(params=["exact", "estimate"])
def counter(request: pytest.FixtureRequest) -> TokenCounter:
    return TokenCounter("estimate" if request.param == "estimate" else None)


def builder(counter: TokenCounter, **settings: object) -> PromptBuilder:
    return PromptBuilder(counter, ContextSettings(**settings))


def skills() -> list[LoadedSkill]:
    return [
        LoadedSkill(
            "inactive-one", "Rarely used.", "Inactive body.", SkillState.INACTIVE
        ),
        LoadedSkill(
            "relevant-one",
            "Matched, not used.",
            "Relevant body.",
            SkillState.RELEVANT,
            Phase.BRIEF,
        ),
        LoadedSkill(
            "active-one",
            "In use now.",
            "Active body\nwith two lines.",
            SkillState.ACTIVE,
        ),
        LoadedSkill(
            "active-two", "Also in use.", "Second active body.", SkillState.ACTIVE
        ),
    ]


def test_format_skills_content_exactly(counter: TokenCounter) -> None:
    skill = LoadedSkill(
        "pdf-tools", "Work with PDF files.", "Use pdftotext first.", SkillState.ACTIVE
    )
    prompt = builder(counter).build(
        PromptInputs(loaded=[skill], catalog=[("pdf-tools", "Work with PDF files.")])
    )
    assert (
        "## Skill: pdf-tools\nWork with PDF files.\n\nUse pdftotext first."
        in prompt.system
    )


def test_build_prompt_with_skills_includes_matched_content_in_system_prompt(
    counter: TokenCounter,
) -> None:
    prompt = builder(counter).build(PromptInputs(loaded=skills()))
    for skill in skills():
        assert skill.content in prompt.system


def test_order_skills_by_priority_active_first_then_relevant(
    counter: TokenCounter,
) -> None:
    prompt = builder(counter).build(PromptInputs(loaded=skills()))
    assert prompt.skills_order == (
        "active-one",
        "active-two",
        "relevant-one",
        "inactive-one",
    )
    positions = [
        prompt.system.index(f"## Skill: {name}") for name in prompt.skills_order
    ]
    assert positions == sorted(positions)
    assert list(prompt.breakdown.skills) == list(prompt.skills_order)


def test_no_skills_means_no_skills_section_at_all(counter: TokenCounter) -> None:
    prompt = builder(counter).build(PromptInputs(base_instructions="Be helpful."))
    assert prompt.system.strip() == "Be helpful."
    assert "Skill" not in prompt.system and "use_skill" not in prompt.system
    assert prompt.breakdown.catalog == 0 and prompt.breakdown.skills_total == 0


def test_with_skills_the_prompt_explains_use_skill(counter: TokenCounter) -> None:
    prompt = builder(counter).build(PromptInputs(catalog=[("a", "Alpha skill")]))
    assert USE_SKILL_INSTRUCTIONS.splitlines()[0] in prompt.system
    assert "- a: Alpha skill" in prompt.system


def test_catalog_lists_one_line_per_skill_in_rank_order(counter: TokenCounter) -> None:
    entries = [("zeta", "Best match"), ("alpha", "Second\nline two of the description")]
    prompt = builder(counter).build(PromptInputs(catalog=entries))
    assert prompt.system.index("- zeta: Best match") < prompt.system.index(
        "- alpha: Second line two"
    )


def test_catalog_overflow_keeps_best_ranked_and_says_how_many_were_left_out(
    counter: TokenCounter,
) -> None:
    entries = [
        (f"skill-{i:03d}", f"Does task number {i} with care and detail.")
        for i in range(200)
    ]
    window = 4000
    prompt = builder(counter, catalog_share=0.1).build(
        PromptInputs(catalog=entries, window=window)
    )
    assert 0 < prompt.catalog_listed < 200
    assert prompt.catalog_omitted == 200 - prompt.catalog_listed
    assert (
        f"(+{prompt.catalog_omitted} more skills not listed; use use_skill with a name)"
        in prompt.system
    )
    assert "skill-000" in prompt.system
    assert (
        f"skill-{prompt.catalog_listed:03d}:" not in prompt.system
    )  # the first left out
    assert prompt.breakdown.catalog <= window * 0.1


def test_catalog_that_fits_has_no_overflow_note(counter: TokenCounter) -> None:
    prompt = builder(counter).build(
        PromptInputs(catalog=[("a", "Alpha"), ("b", "Beta")], window=8000)
    )
    assert prompt.catalog_omitted == 0 and "more skills not listed" not in prompt.system


def test_a_fixed_metadata_tokens_cuts_long_descriptions_to_one_short_line(
    counter: TokenCounter,
) -> None:
    fixed = DisclosureSettings(metadata_tokens=10)
    prompt = PromptBuilder(counter, disclosure=fixed).build(
        PromptInputs(catalog=[("a", text(200))], window=200_000)
    )
    line = next(line for line in prompt.system.splitlines() if line.startswith("- a: "))
    assert len(line) <= 5 + 40 and line.endswith("…")


def full_inputs() -> PromptInputs:
    history = turns(6, tool_every=2)
    history.append(
        Message(
            Role.SYSTEM,
            "[Earlier conversation: 3 messages summarised]",
            summary=True,
            id="s",
        )
    )
    return PromptInputs(
        base_instructions="You are a test assistant.",
        catalog=[(f"s{i}", f"Skill {i} description") for i in range(30)],
        loaded=skills(),
        history=history,
        tools=[
            ToolSpec("use_skill", "Load a skill"),
            ToolSpec(
                "http_get",
                "GET a URL",
                {"type": "object", "properties": {"url": {"type": "string"}}},
            ),
        ],
        window=8000,
        reserve=512,
    )


def test_breakdown_sums_equal_the_total_counted_for_what_is_sent() -> None:
    counter = TokenCounter()
    prompt = PromptBuilder(counter).build(full_inputs())
    b = prompt.breakdown
    assert (
        b.system + b.catalog + b.skills_total + b.history + b.tool_results + b.reserve
        == b.total
    )
    # The request counted as one piece (whole system prompt, tools, messages) is the same number.
    assert request_tokens(counter, prompt) == b.total - b.reserve
    assert b.reserve == 512 and b.exact and b.encoding == "cl100k_base"


def test_tool_results_and_history_are_separate_parts() -> None:
    counter = TokenCounter()
    inputs = full_inputs()
    b = PromptBuilder(counter).build(inputs).breakdown
    tool_messages = [m for m in inputs.history if m.role is Role.TOOL]
    assert b.tool_results == counter.count_messages(tool_messages)
    assert b.history == counter.count_messages(
        [m for m in inputs.history if m.role is not Role.TOOL]
    )


def test_tool_specs_count_toward_system() -> None:
    counter = TokenCounter()
    inputs = full_inputs()
    with_tools = PromptBuilder(counter).build(inputs).breakdown.system
    without = (
        PromptBuilder(counter)
        .build(PromptInputs(**{**inputs.__dict__, "tools": ()}))
        .breakdown.system
    )
    assert with_tools - without == counter.count_tools(inputs.tools)


def test_estimated_breakdown_is_marked_not_exact() -> None:
    prompt = PromptBuilder(TokenCounter("estimate")).build(full_inputs())
    assert not prompt.breakdown.exact and prompt.breakdown.encoding == "estimate"


def test_assistant_tool_call_arguments_count_in_history() -> None:
    counter = TokenCounter()
    call = ToolCall("c", "http_get", {"url": "https://example.com/" + "x" * 200})
    small = (
        PromptBuilder(counter)
        .build(PromptInputs(history=[Message(Role.ASSISTANT, "", id="a")]))
        .breakdown
    )
    big = (
        PromptBuilder(counter)
        .build(
            PromptInputs(
                history=[Message(Role.ASSISTANT, "", tool_calls=(call,), id="a")]
            )
        )
        .breakdown
    )
    assert big.history - small.history >= counter.count(call.arguments_json())


_TEXT = st.text(
    alphabet=st.characters(
        min_codepoint=9, max_codepoint=0x3000, blacklist_categories=("Cs",)
    ),
    max_size=80,
)


@hsettings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_TEXT, _TEXT, _TEXT), max_size=4), _TEXT)
def test_breakdown_equals_counting_the_whole_request_for_any_skill_text(
    skill_texts, base
) -> None:
    counter = TokenCounter()
    loaded = [
        LoadedSkill(f"s{i}", description, content)
        for i, (description, content, _) in enumerate(skill_texts)
    ]
    catalog = [(f"s{i}", note) for i, (_, _, note) in enumerate(skill_texts)]
    prompt = PromptBuilder(counter).build(
        PromptInputs(
            base_instructions=base or "x",
            catalog=catalog,
            loaded=loaded,
            window=100_000,
        )
    )
    assert request_tokens(counter, prompt) == prompt.sent_tokens


# -- a shorter catalog, when compression needs the room (issue 22 item 7) ----------------------


def _catalog_inputs(level: CatalogLevel = CatalogLevel.FULL) -> PromptInputs:
    entries = [
        (f"skill-{i}", f"Skill number {i} does many useful things for {text(20, i)}")
        for i in range(9)
    ]
    active = LoadedSkill("skill-4", entries[4][1], "Active body.", SkillState.ACTIVE)
    return PromptInputs(
        catalog=entries, loaded=[active], window=8000, catalog_level=level
    )


def test_shorter_catalogs_cost_less_and_never_drop_the_active_skill(
    counter: TokenCounter,
) -> None:
    b = builder(counter)
    full = b.build(_catalog_inputs())
    options = b.catalog_options(_catalog_inputs())
    assert [o.level for o in options] == [
        CatalogLevel.SHORT,
        CatalogLevel.NAMES,
        CatalogLevel.ACTIVE,
    ]
    costs = [full.breakdown.catalog] + [o.tokens for o in options]
    assert costs == sorted(costs, reverse=True) and len(set(costs)) == len(costs)
    for option in options:
        prompt = b.build(_catalog_inputs(CatalogLevel(option.level)))
        assert (
            prompt.breakdown.catalog == option.tokens
        )  # what the planner counts is what is sent
        assert "- skill-4" in prompt.system


def test_names_only_lists_every_skill_and_active_only_counts_the_rest(
    counter: TokenCounter,
) -> None:
    b = builder(counter)
    names = b.build(_catalog_inputs(CatalogLevel.NAMES))
    assert "- skill-0\n" in names.system and "Skill number 0" not in names.system
    active = b.build(_catalog_inputs(CatalogLevel.ACTIVE))
    assert (
        "- skill-0" not in active.system
        and "(+8 more skills not listed; use use_skill with a name)" in active.system
    )
    assert (active.catalog_listed, active.catalog_omitted) == (1, 8)
    assert b.catalog_options(_catalog_inputs(CatalogLevel.ACTIVE)) == ()
