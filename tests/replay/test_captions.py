"""Captions for the step-through ``/demo`` and replay (issue 22 item 3): one line per step
saying what happened and why, in the user's terms, from the events alone."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.agent.engine import Engine
from aiq_tui.events import Event, SessionSaved, TokenStreamed
from aiq_tui.llm.demo import DemoScript
from aiq_tui.replay.captions import (
    MAX_CAPTION,
    caption,
    captions,
    demo_summary,
    record_of,
    turn_captions,
)
from aiq_tui.workspace import Workspace
from tests.agent.helpers import write_config

WINDOW = 8192


def budget(total: int, window: int = WINDOW) -> dict[str, Any]:
    return {
        "type": "budget_changed",
        "parts": {},
        "skills": {},
        "window": window,
        "total": total,
    }


def matched(*matches: tuple[str, float, tuple[str, ...]]) -> dict[str, Any]:
    return {
        "type": "skills_matched",
        "query": "q",
        "considered": 9,
        "total": len(matches),
        "matches": [
            {
                "name": n,
                "score": c * 3,
                "confidence": c,
                "signals": [[t, "description", 1.0] for t in terms],
            }
            for n, c, terms in matches
        ],
    }


def changed(
    name: str, old: str | None, new: str | None, phase: str, reason: str
) -> dict[str, Any]:
    return {
        "type": "skill_state_changed",
        "name": name,
        "old": old,
        "new": new,
        "phase": phase,
        "reason": reason,
        "tokens": 100,
    }


def compressed(stage: int, step: str, before: int, after: int) -> dict[str, Any]:
    return {
        "type": "compression_applied",
        "step": step,
        "before": before,
        "after": after,
        "stage": stage,
    }


def tool_done(name: str, summary: str) -> dict[str, Any]:
    return {
        "type": "tool_call_finished",
        "call_id": "c1",
        "name": name,
        "ok": True,
        "summary": summary,
        "duration_s": 0.01,
    }


def use_skill(name: str) -> dict[str, Any]:
    return {
        "type": "tool_call_requested",
        "call_id": "c0",
        "name": "use_skill",
        "arguments": {"skill_name": name},
        "permission": "allow",
    }


# -- each kind of step ------------------------------------------------------------------------------
def test_a_skill_becoming_relevant_says_brief_and_the_terms_and_confidence_it_matched_with() -> (
    None
):
    before = [matched(("data-report", 0.62, ("report",)))]
    text = caption(
        changed(
            "data-report",
            "inactive",
            "relevant",
            "brief",
            "relevant: confidence 0.62 ≥ 0.15",
        ),
        before,
    )
    assert text == "data-report: inactive → relevant (brief), matched 'report' 0.62"


def test_a_skill_loaded_in_full_says_active_full() -> None:
    before = [matched(("data-report", 0.85, ("report", "data")))]
    text = caption(
        changed(
            "data-report",
            "relevant",
            "active",
            "full",
            "loaded full: confidence 0.85 ≥ 0.7",
        ),
        before,
    )
    assert text == "data-report: relevant → active (full), matched 'report' 'data' 0.85"


def test_a_skill_going_inactive_says_why() -> None:
    assert (
        caption(
            changed(
                "file-notes", "relevant", "inactive", "meta", "inactive: not in top 3"
            )
        )
        == "file-notes: relevant → inactive, not in top 3"
    )


def test_a_tool_result_says_what_it_added_and_how_full_the_window_is() -> None:
    before = [budget(5_464), tool_done("execute_sql", "104 rows")]
    assert (
        caption(budget(7_876), before)
        == "tool result (execute_sql: 104 rows) +2,412 tokens → 7,876 / 8,192 tokens (96 %)"
    )


def test_the_first_step_of_a_compression_says_how_full_the_window_was() -> None:
    before = [budget(7_876)]
    text = caption(
        compressed(
            80, "summarised 11 messages (model summary, −731 tokens)", 7_876, 7_145
        ),
        before,
    )
    assert (
        text
        == "96 % ≥ 80 % → stage 80: summarised 11 messages (model summary, −731 tokens) → 87 %"
    )


def test_clearing_older_results_is_the_first_stages_work_done_first_and_says_why_nothing_more_ran() -> (
    None
):
    past_90 = {
        **compressed(
            80,
            "cleared 1 older tool result to its extract (−1,794 tokens)",
            7_503,
            5_709,
        ),
        "steps": 1,
    }
    assert caption(past_90, [budget(7_503)]) == (
        "91 % ≥ 80 % → stage 80 first: cleared 1 older tool result to its "
        "extract (−1,794 tokens) → 69 % (under 90 %: no eviction needed)"
    )
    past_80 = {
        **compressed(
            80,
            "cleared 2 older tool results to their extract (−417 tokens)",
            6_943,
            6_526,
        ),
        "steps": 1,
    }
    assert caption(past_80, [budget(6_943)]).endswith(
        "→ 79 % (under 80 %: no summary needed)"
    )
    # Not the last step: the stage that acts next says what it did in its own step.
    first = {
        **compressed(
            90, "cleared 1 older tool result to its extract (−380 tokens)", 7_824, 7_444
        ),
        "steps": 2,
    }
    then = {
        **compressed(
            90, "summarised 7 messages (model summary, −371 tokens)", 7_444, 7_073
        ),
        "steps": 2,
    }
    texts = captions([budget(7_824), first, then])
    assert (
        texts[1]
        == "95 % ≥ 80 % → stage 80 first: cleared 1 older tool result to its extract (−380 tokens) → 90 %"
    )
    assert (
        texts[2]
        == "stage 90: summarised 7 messages (model summary, −371 tokens) → 86 % (under 90 %: no eviction needed)"
    )


def test_later_steps_of_the_same_compression_say_their_stage_and_where_the_gauge_lands() -> (
    None
):
    before = [
        budget(7_876),
        compressed(
            95, "summarised 8 messages (model summary, −593 tokens)", 7_876, 7_283
        ),
    ]
    text = caption(
        compressed(95, "evicted sql-explorer (relevant, −120 tokens)", 7_283, 7_163),
        before,
    )
    assert (
        text
        == "stage 95: evicted sql-explorer, relevant but not used (−120 tokens) → 87 %"
    )


def test_a_relevant_skill_the_model_used_is_not_called_unused() -> None:
    before = [
        changed(
            "sql-explorer",
            "inactive",
            "relevant",
            "brief",
            "relevant: confidence 0.4 ≥ 0.15",
        ),
        use_skill("sql-explorer"),
        budget(7_876),
    ]
    text = caption(
        compressed(95, "evicted sql-explorer (relevant, −120 tokens)", 7_876, 7_756),
        before,
    )
    assert (
        text is not None
        and "not used" not in text
        and "evicted sql-explorer, relevant" in text
    )


def test_the_skill_the_95_stage_keeps_is_named_once_with_why_it_is_the_top() -> None:
    reason = (
        "evicted at 95 %: aggressive stage keeps only the top skill: kept data-report — "
        "active, confidence 0.85 (highest)"
    )
    events = [
        changed(
            "data-report",
            "inactive",
            "active",
            "full",
            "loaded full: confidence 0.85 ≥ 0.7",
        ),
        changed(
            "shell-basics",
            "inactive",
            "active",
            "full",
            "loaded full: confidence 0.85 ≥ 0.7",
        ),
        budget(7_900),
        compressed(95, "evicted shell-basics (active, −480 tokens)", 7_900, 7_420),
        changed("shell-basics", "active", None, "meta", reason),
    ]
    assert captions(events)[-1] == (
        "shell-basics: active → evicted at stage 95; kept data-report: active, "
        "confidence 0.85 (highest)"
    )
    assert (
        "kept at stage 95 in turn 0 — active, confidence 0.85 (highest)"
        in demo_summary(events)
    )


def test_a_session_saved_before_the_95_stage_said_why_still_names_the_kept_skill() -> (
    None
):
    reason = "evicted at 95 %: aggressive stage keeps only the top skill (data-report)"
    events = [
        changed(
            "data-report",
            "inactive",
            "active",
            "full",
            "loaded full: confidence 0.85 ≥ 0.7",
        ),
        changed(
            "sql-explorer",
            "inactive",
            "relevant",
            "brief",
            "relevant: confidence 0.3 ≥ 0.15",
        ),
        changed(
            "shell-basics",
            "inactive",
            "active",
            "full",
            "loaded full: confidence 0.85 ≥ 0.7",
        ),
        budget(7_900),
        compressed(95, "evicted sql-explorer (relevant, −120 tokens)", 7_900, 7_780),
        changed("sql-explorer", "relevant", None, "meta", reason),
        changed("shell-basics", "active", None, "meta", reason),
    ]
    texts = captions(events)
    assert (
        texts[-2]
        == "sql-explorer: relevant → evicted at stage 95; kept data-report: active "
        "(stage 95 keeps only the top skill)"
    )
    assert texts[-1] == "shell-basics: active → evicted at stage 95, not the top skill"


def test_a_90_stage_eviction_says_relevant_but_not_used() -> None:
    reason = (
        "evicted at 90 %: relevant but not used; evicted to get under 90% of the window"
    )
    assert (
        caption(changed("http-api", "relevant", None, "meta", reason))
        == "http-api: relevant → evicted at stage 90, relevant but not used"
    )


def test_streamed_text_and_a_policy_approval_are_no_step_of_their_own() -> None:
    assert caption({"type": "token_streamed", "text": "Hello"}) is None
    assert (
        caption(
            {
                "type": "tool_call_approved",
                "call_id": "c",
                "name": "execute_sql",
                "by": "policy",
            }
        )
        is None
    )
    assert (
        caption(
            {
                "type": "tool_call_approved",
                "call_id": "c",
                "name": "execute_sql",
                "by": "user",
            }
        )
        == "execute_sql: approved by you"
    )
    assert caption(SessionSaved("s1", Path("/tmp/s.json"))) is None  # not even recorded
    assert caption({"type": "something_new"}) is None


def test_a_refused_tool_says_the_first_clause_of_why() -> None:
    event = {
        "type": "tool_call_denied",
        "call_id": "c",
        "name": "file_operations",
        "reason": "file_operations needs approval (file_write); rerun with --yes",
    }
    assert (
        caption(event)
        == "file_operations: refused — file_operations needs approval (file_write)"
    )


def test_a_caption_is_one_line_and_bounded() -> None:
    text = caption({"type": "turn_started", "text": "a very\nlong question " * 50})
    assert (
        text is not None
        and "\n" not in text
        and len(text) <= MAX_CAPTION
        and text.endswith("…")
    )


def test_ask_json_lines_read_like_recorded_events() -> None:
    line = {
        "type": "budget_changed",
        "breakdown": {"total": 4_096, "window": 8_192, "system": 1},
    }
    assert record_of(line)["total"] == 4_096
    plan = {
        "type": "compression_applied",
        "plan": {"stage": 90},
        "step": "summarised 3 messages (−10 tokens)",
        "before": 7_500,
        "after": 7_490,
    }
    assert (
        caption(plan, [line])
        == "91 % ≥ 90 % → stage 90: summarised 3 messages (−10 tokens) → 91 %"
    )


# -- the /demo story ---------------------------------------------------------------------------------
def _play(home: Path, window: int | None) -> list[Event]:
    if window:
        write_config(home, f"context:\n  window: {window}\n")
    engine = Engine.create(Workspace.open(home_flag=home, cwd=home.parent / "project"))
    seen: list[Event] = []
    engine.subscribe(seen.append)

    async def play() -> None:
        script = DemoScript.for_engine(engine)
        while (text := script.next_turn(engine.breakdown.fraction)) is not None:
            await engine.send(text)
        await engine.aclose()

    asyncio.run(play())
    return seen


@pytest.fixture(scope="module", params=[None, 12_000], ids=["8192", "12000"])
def story(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> list[Event]:
    return _play(tmp_path_factory.mktemp("demo") / "home", request.param)


def _turn_captions(events: list[Event]) -> list[tuple[int, str]]:
    turn, out = 0, []
    for _event, text in zip(events, captions(events)):
        if text is not None and text.startswith("turn "):
            turn += 1
        if text is not None:
            out.append((turn, text))
    return out


def test_the_story_shows_skills_climb_to_full_and_one_come_in_brief(story) -> None:
    lines = _turn_captions(story)
    climbed = {
        re.match(r"([\w-]+):", text).group(1)
        for _, text in lines
        if re.match(r"[\w-]+: (?:inactive|relevant \(brief\)) → active \(full\)", text)
    }
    assert {"sql-explorer", "data-report"} <= climbed, lines
    assert any("→ relevant (brief)" in text for _, text in lines)
    assert any(
        text.startswith("data-report: relevant (brief) → active (full)")
        and text.endswith("climbs from brief to full")
        for _, text in lines
    ), lines


def test_the_story_evicts_a_relevant_skill_it_never_used_and_keeps_the_active_one(
    story,
) -> None:
    texts = [text for _, text in _turn_captions(story)]
    assert any(
        re.search(r"stage 9[05]: evicted [\w-]+, relevant but not used", t)
        for t in texts
    ), texts
    assert any(re.search(r"kept [\w-]+: active", t) for t in texts)


def test_each_stage_is_its_own_step_with_the_gauge_past_its_threshold(story) -> None:
    texts = [text for _, text in _turn_captions(story)]
    seen: dict[int, int] = {}
    started = 0
    for text in texts:
        head = re.match(r"(\d+) % ≥ \d+ % → ", text)
        if head:
            started = int(
                head.group(1)
            )  # where the compression this step belongs to started
        found = re.search(r"(?:^|→ )stage (\d+):", text)
        if found:
            seen.setdefault(int(found.group(1)), started)
    assert sorted(seen) == [80, 90, 95]
    assert all(share >= stage for stage, share in seen.items()), seen


def test_captions_of_engine_events_and_of_their_recorded_form_are_the_same(
    story,
) -> None:
    recorded = [record_of(e) for e in story]
    kept = [(e, r) for e, r in zip(story, recorded) if r is not None]
    assert captions([e for e, _ in kept]) == captions([r for _, r in kept])


def test_one_pass_captions_equal_captions_with_the_events_before(story) -> None:
    head = [e for e in story if not isinstance(e, TokenStreamed)][:80]
    assert captions(head) == [caption(e, head[:i]) for i, e in enumerate(head)]


def test_the_summary_tells_the_skills_journeys_the_stages_with_figures_and_how_to_replay(
    story,
) -> None:
    text = demo_summary(story, "20260101-abc")
    assert text.startswith("What happened: ")
    assert re.search(
        r"inactive → active \(full, turn \d+\) → evicted \(stage 95, turn \d+\)", text
    ), text
    assert re.search(
        r"inactive → relevant \(brief, turn \d+\) → evicted \(stage 90, relevant but not used",
        text,
    ), text
    assert re.search(
        r"kept at stage 95 in turn \d+ — active, confidence \d\.\d+ \((?:highest|the only Active skill)",
        text,
    )
    assert "relevant but not used" in text
    for stage in (80, 90, 95):
        assert re.search(
            rf"stage {stage} at \d+ % → \d+ %, [\d,]+ → [\d,]+ tokens", text
        ), text
    assert (
        "F4 → r" in text
        and "aiq-tui replay 20260101-abc" in text
        and "--captions" in text
    )


def test_a_session_without_compression_says_so() -> None:
    text = demo_summary([{"type": "turn_started", "text": "hi"}, budget(1_000)])
    assert "Compression: none" in text and "1 turn on a 8,192-token window" in text


def test_turn_captions_line_up_with_each_turns_events_and_read_earlier_turns() -> None:
    turns = [
        {"events": [{"type": "turn_started", "text": "a"}, budget(4_000)]},
        {
            "events": [
                {"type": "turn_started", "text": "b"},
                tool_done("execute_sql", "3 rows"),
                budget(4_100),
            ]
        },
        {"events": "not a list"},
    ]
    assert turn_captions(turns) == [
        ['turn 1: you ask "a"', "budget 4,000 / 8,192 tokens (48 %)"],
        [
            'turn 2: you ask "b"',
            "execute_sql returned: 3 rows",
            "tool result (execute_sql: 3 rows) +100 tokens → 4,100 / 8,192 tokens (50 %)",
        ],
        [],
    ]


_KINDS = [
    "turn_started",
    "skills_matched",
    "skill_state_changed",
    "budget_changed",
    "compression_applied",
    "tool_call_requested",
    "tool_call_approved",
    "tool_call_denied",
    "tool_call_finished",
    "turn_finished",
    "error_raised",
    "catalog_reloaded",
    "token_streamed",
]
_FIELDS = [
    "text",
    "name",
    "old",
    "new",
    "phase",
    "reason",
    "total",
    "window",
    "stage",
    "step",
    "before",
    "after",
    "matches",
    "arguments",
    "summary",
    "ok",
    "by",
    "permission",
    "message",
    "input_tokens",
    "added",
]


def test_a_session_file_in_any_shape_gives_captions_and_a_summary_never_an_exception() -> (
    None
):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-10, 10**6)
        | st.floats(allow_nan=True)
        | st.text(max_size=12)
    )
    values = (
        scalars
        | st.lists(scalars | st.lists(scalars, max_size=3), max_size=3)
        | st.dictionaries(
            st.sampled_from(["name", "confidence", "signals", "x"]), scalars, max_size=3
        )
    )
    record = st.fixed_dictionaries(
        {"type": st.sampled_from(_KINDS)}, optional={name: values for name in _FIELDS}
    )

    @settings(max_examples=150, deadline=None)
    @given(st.lists(record, max_size=8))
    def check(events: list[dict[str, Any]]) -> None:
        for text in captions(events):
            assert text is None or (
                isinstance(text, str) and "\n" not in text and len(text) <= MAX_CAPTION
            )
        assert demo_summary(events).startswith("What happened: ")

    check()
