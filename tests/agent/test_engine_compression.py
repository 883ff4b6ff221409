"""The engine's side of compression: the switch (seed 001), the refusal message, ``/compact``
(issue 24 §1.9) and the catalog shortened for one turn only."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from aiq_tui.context.prompt import CatalogLevel
from aiq_tui.conversation import Role
from aiq_tui.events import BudgetChanged, CompressionApplied, ErrorRaised
from aiq_tui.tools.registry import approve_all
from tests.agent.helpers import demo_engine, write_config


async def test_compression_off_sends_what_fits_and_refuses_an_overflow_with_the_reason(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    write_config(home, "context:\n  window: 4000\n  compression: false\n")
    engine, seen = demo_engine(home)
    engine.approver = approve_all
    assert engine.config.context.compression is False
    await engine.send("show the tables in the sample database")
    await engine.send("which books sell best")
    assert not seen.of(CompressionApplied), "nothing is ever compressed"
    errors = [e.message for e in seen.of(ErrorRaised)]
    assert errors, "at 4,000 tokens the second question overflows"
    assert errors[0].startswith("not sent:")
    assert (
        "compression is off (context.compression: false)" in errors[0]
        and "tokens over" in errors[0]
    )
    assert not any(m.summary for m in engine.session.messages)


async def test_a_refusal_says_what_was_tried_and_how_much_is_still_over(
    tmp_path: Path,
) -> None:
    engine, seen = demo_engine(tmp_path / "home", window=4000)
    engine.approver = approve_all
    await engine.send("show the tables in the sample database")
    await engine.send("please read this " + "enormous " * 4000)
    message = seen.of(ErrorRaised)[-1].message
    steps = [e.step for e in seen.of(CompressionApplied)]
    assert (
        message.startswith("not sent:")
        and "even after compression — tried: " in message
    )
    assert steps and all(step in message for step in steps[-2:])
    assert "still " in message and "raise context.window" in message
    assert engine.session.messages[-1].role is Role.USER, (
        "the question is kept for a retry"
    )


async def test_a_shortened_catalog_lasts_one_turn(tmp_path: Path) -> None:
    engine, seen = demo_engine(tmp_path / "home", window=4000)
    engine.approver = approve_all
    await engine.send("show the tables in the sample database")
    await engine.send("which books sell best")
    shortened = [
        e
        for e in seen.of(CompressionApplied)
        if e.step.startswith("shortened the skills catalog to ")
    ]
    assert shortened and shortened[-1].plan.catalog is not None
    # The turn's requests went out with the shorter catalog, and the budget says so ...
    full = engine.builder.build(
        dataclasses.replace(engine._prompt_inputs(), catalog_level=CatalogLevel.FULL)
    )
    assert (
        engine.breakdown.catalog
        == shortened[-1].plan.catalog.tokens_after
        < full.breakdown.catalog
    )
    # ... and the next turn starts with the whole catalog again.
    seen.clear()
    await engine.send("how many orders are there")
    first = seen.of(BudgetChanged)[0].breakdown
    assert first.catalog == full.breakdown.catalog


async def test_compact_clears_the_last_turns_tool_results_when_nothing_is_left_to_summarise(
    tmp_path: Path,
) -> None:
    engine, seen = demo_engine(tmp_path / "home", window=6000)
    engine.approver = approve_all
    await engine.send("show the tables in the sample database")
    before = engine.breakdown.total
    seen.clear()
    plan = await engine.compact()
    assert not plan.is_noop and plan.cleared
    assert seen.of(CompressionApplied)[0].step.startswith(
        "cleared 2 older tool results"
    )
    assert engine.breakdown.total < before
    tool_messages = [m for m in engine.session.messages if m.role is Role.TOOL]
    assert tool_messages and all(
        m.content.startswith("[tool result cleared to make room") for m in tool_messages
    )


async def test_compact_with_nothing_to_fold_says_what_takes_the_room_and_what_would_free_it(
    tmp_path: Path,
) -> None:
    engine, _ = demo_engine(tmp_path / "home", window=2800)
    await engine.send("hello")
    assert (
        engine.breakdown.fraction >= 0.90
    )  # issue 24: "/compact at 92 % answers 'nothing to compact'"
    plan = await engine.compact()
    assert plan.is_noop
    why = "; ".join(plan.notes)
    assert "no messages older than the last" in why
    assert "system and tool definitions" in why and "reserved for the answer" in why
    assert "/clear" in why and "context.window" in why


async def test_a_session_keeps_its_title_when_its_first_messages_are_summarised(
    tmp_path: Path,
) -> None:
    """issue 24 §1.8: the title drifted to a later message (and got a second ellipsis)."""
    engine, _ = demo_engine(tmp_path / "home", window=32000)
    first = "show the tables in the sample database and tell me which one holds the orders please…"
    await engine.send(first)
    title = engine.session.display_title
    assert (
        title.endswith("…")
        and not title.endswith("……")
        and title.startswith("show the tables")
    )
    for text in (
        "hello",
        "what else is there",
        "thanks",
        "one more question",
        "and another one",
        "ok",
        "fine",
        "good",
        "next",
        "last one",
    ):
        await engine.send(text)
    plan = await engine.compact()
    assert plan.summarise_ids, plan
    assert first not in [m.content for m in engine.session.messages], (
        "the first message was summarised"
    )
    assert engine.session.display_title == title
    assert engine.sessions.list()[0].title == title
