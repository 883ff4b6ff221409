"""Completion at the prompt: ``@`` offers the ready servers' resources (and templates, whose
variables the server completes), ``/mcp__`` their prompts, then the prompt's argument names and
values; the list shows above the prompt and never takes the prompt's other keys (history, the
paused time cursor). Against a scripted fleet here (deterministic: stale answers, a slow or
failing server), and the real server-everything when installed (``make test-servers``)."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from aiq_tui.tools.mcp.catalog import Prompt, PromptArgument, Resource
from aiq_tui.tools.mcp.completion import ValueRequest
from aiq_tui.tools.mcp.connection import McpError
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.choice_list import ChoiceList

sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import say, settle

SIZE = (120, 36)


class ScriptedFleet:
    """The fleet's completion surface with answers the test controls."""

    def __init__(self, completions: bool = True) -> None:
        self.completions = completions
        self.asked: list[ValueRequest] = []
        self.answers: dict[str, asyncio.Future[list[str]]] = {}

    def resources(self) -> list[Resource]:
        return [
            Resource("notes", "notes://today", "today", "Today's note"),
            Resource("notes", "notes://week", "week"),
            Resource(
                "notes", "notes://day/{day}", "day", "A day's note", template=True
            ),
            Resource("docs", "docs://guide", "guide", "The guide"),
        ]

    def prompts(self) -> list[Prompt]:
        return [
            Prompt(
                "notes",
                "review",
                "Review something",
                (
                    PromptArgument("topic", "What to review", True),
                    PromptArgument("depth", "How deep"),
                ),
            ),
            Prompt("notes", "hello", "Say hello"),
        ]

    def offers_completions(self, server: str) -> bool:
        return self.completions

    def answer(self, value: str) -> asyncio.Future[list[str]]:
        """The answer to a request for ``value`` (resolve it to answer; never: a silent server)."""
        return self.answers.setdefault(
            value, asyncio.get_running_loop().create_future()
        )

    async def complete(self, request: ValueRequest) -> list[str]:
        self.asked.append(request)
        return await asyncio.shield(self.answer(request.value))

    def find_prompt(self, command: str) -> Prompt | None:
        return next((p for p in self.prompts() if p.command == command), None)


async def _until(
    pilot: Pilot, condition: Callable[[], Any], seconds: float = 30
) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.02)


def _app(tmp_path: Path, fleet: Any) -> AiqApp:
    engine = FakeEngine(tmp_path)
    engine.mcp = fleet
    app = AiqApp(engine, clock=fixed_clock, watch=False, flash_seconds=3600)
    app.animation_level = "none"
    return app


def _shown(app: AiqApp) -> list[str]:
    choices = app.query_one("#choices", ChoiceList)
    return [choice.label for choice in choices.choices] if choices.display else []


async def _type(pilot: Pilot, text: str) -> None:
    await pilot.press(*("space" if char == " " else char for char in text))


# -- @SERVER:URI ----------------------------------------------------------------------------------


async def test_at_offers_resources_and_tab_inserts_the_mention_keeping_the_line(
    tmp_path: Path,
) -> None:
    app = _app(tmp_path, ScriptedFleet())
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one("#prompt")
        await _type(pilot, "summarise please")
        prompt.cursor_position = len("summarise ")
        await _type(pilot, "@")
        await _until(pilot, lambda: len(_shown(app)) == 4)
        assert _shown(app) == [
            "@notes:notes://today",
            "@notes:notes://week",
            "@notes:notes://day/{day}",
            "@docs:docs://guide",
        ]
        await _type(pilot, "to")
        await _until(pilot, lambda: _shown(app) == ["@notes:notes://today"])
        await pilot.press("tab")
        # "@to" was typed right before "please": the mention replaces only "@to", and a space
        # keeps it apart from the rest of the line, which stays as it was
        assert prompt.value == "summarise @notes:notes://today please"
        assert prompt.cursor_position == len("summarise @notes:notes://today ")
        await pilot.pause()
        assert _shown(app) == [] and app.focused is prompt


async def test_the_list_shows_just_above_the_prompt_under_the_word(
    tmp_path: Path,
) -> None:
    app = _app(tmp_path, ScriptedFleet())
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one("#prompt")
        await _type(pilot, "read @")
        await _until(pilot, lambda: len(_shown(app)) == 4)
        await pilot.pause()
        region = app.query_one("#choices", ChoiceList).region
        assert (
            region.bottom == prompt.region.y
        )  # over the conversation, the prompt left in view
        assert (
            region.x <= prompt.cursor_screen_offset.x - 1 <= region.x + 3
        )  # starts under the @


async def test_down_picks_another_choice_and_enter_accepts_it_without_sending(
    tmp_path: Path,
) -> None:
    app = _app(tmp_path, ScriptedFleet())
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one("#prompt")
        await _type(pilot, "@notes")
        await _until(pilot, lambda: len(_shown(app)) == 3)
        await pilot.press("down", "down", "up")  # today → week → day/ → week
        await pilot.press("enter")
        assert prompt.value == "@notes:notes://week "
        assert prompt.history == []  # nothing was sent


async def test_esc_closes_the_list_and_keeps_the_line_and_typing_opens_it_again(
    tmp_path: Path,
) -> None:
    app = _app(tmp_path, ScriptedFleet())
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one("#prompt")
        await _type(pilot, "@no")
        await _until(pilot, lambda: len(_shown(app)) == 3)
        await pilot.press("escape")
        assert _shown(app) == [] and prompt.value == "@no"
        assert not prompt.check_action(
            "dismiss_choices", ()
        )  # Esc is the app's again (cancel a turn)
        await pilot.press("enter")  # with the list closed Enter sends
        assert prompt.history == ["@no"] and prompt.value == ""
        await _type(pilot, "@doc")
        await _until(pilot, lambda: _shown(app) == ["@docs:docs://guide"])


# -- values from the server -----------------------------------------------------------------------


async def test_a_template_variables_values_come_from_the_server_and_a_stale_answer_is_dropped(
    tmp_path: Path,
) -> None:
    fleet = ScriptedFleet()
    app = _app(tmp_path, fleet)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one("#prompt")
        await _type(pilot, "@notes:notes://day/m")
        await _until(pilot, lambda: fleet.asked and fleet.asked[-1].value == "m")
        assert fleet.asked[-1] == ValueRequest(
            "notes",
            "ref/resource",
            "notes://day/{day}",
            "day",
            "m",
            head="@notes:notes://day/",
        )
        await _type(pilot, "o")
        await _until(pilot, lambda: fleet.asked[-1].value == "mo")
        fleet.answer("m").set_result(
            ["monday", "march"]
        )  # the answer for a line typed on since
        await pilot.pause()
        await pilot.pause()
        assert _shown(app) == []
        fleet.answer("mo").set_result(["monday"])
        await _until(pilot, lambda: _shown(app) == ["@notes:notes://day/monday"])
        await pilot.press("tab")
        assert prompt.value == "@notes:notes://day/monday "


async def test_a_failing_or_silent_server_offers_nothing_and_enter_still_sends(
    tmp_path: Path,
) -> None:
    fleet = ScriptedFleet()
    app = _app(tmp_path, fleet)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one("#prompt")
        fleet.answer("t").set_exception(McpError("the server said no", "-32603"))
        await _type(pilot, "/mcp__notes__review topic=t")
        await _until(pilot, lambda: fleet.asked and fleet.asked[-1].value == "t")
        await pilot.pause()
        assert _shown(app) == []
        await _type(pilot, "x")  # "tx": this one is never answered
        await _until(pilot, lambda: fleet.asked[-1].value == "tx")
        await pilot.press("enter")
        assert prompt.history == ["/mcp__notes__review topic=tx"] and prompt.value == ""


async def test_no_request_is_sent_to_a_server_without_the_completions_capability(
    tmp_path: Path,
) -> None:
    fleet = ScriptedFleet(completions=False)
    app = _app(tmp_path, fleet)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "@notes:notes://day/mo")
        await _type(pilot, " ")
        await _type(
            pilot, "/mcp__notes__review topic=t"
        )  # not the first word: nothing either
        await pilot.pause()
        assert fleet.asked == [] and _shown(app) == []


# -- /mcp__SERVER__PROMPT -------------------------------------------------------------------------


async def test_mcp_offers_prompts_then_their_argument_names_then_their_values(
    tmp_path: Path,
) -> None:
    fleet = ScriptedFleet()
    app = _app(tmp_path, fleet)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one("#prompt")
        await _type(pilot, "/mcp__")
        await _until(
            pilot, lambda: _shown(app) == ["/mcp__notes__review", "/mcp__notes__hello"]
        )
        details = [c.detail for c in app.query_one("#choices", ChoiceList).choices]
        assert details == ["Review something · topic= depth=?", "Say hello"]
        await pilot.press("tab")
        assert prompt.value == "/mcp__notes__review "
        await _until(pilot, lambda: _shown(app) == ["topic=", "depth="])
        await pilot.press("tab")
        assert prompt.value == "/mcp__notes__review topic="
        await _until(pilot, lambda: fleet.asked and fleet.asked[-1].argument == "topic")
        fleet.answer("").set_result(["the plan", "the code"])
        await _until(
            pilot, lambda: _shown(app) == ["topic='the plan'", "topic='the code'"]
        )
        await pilot.press("down", "tab")
        assert prompt.value == "/mcp__notes__review topic='the code' "
        await _until(pilot, lambda: _shown(app) == ["depth="])
        await pilot.press(
            "enter"
        )  # nothing typed of the next word: Enter runs the command
        assert prompt.history == ["/mcp__notes__review topic='the code'"]


# -- the prompt's other keys ----------------------------------------------------------------------


async def test_history_recall_opens_no_list_so_up_and_down_keep_walking_history(
    tmp_path: Path,
) -> None:
    app = _app(tmp_path, ScriptedFleet())
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one("#prompt")
        prompt.load_history(["read @notes:notes://to", "/mcp__notes__re", "hello"])
        await pilot.press("up", "up")
        await pilot.pause()
        assert prompt.value == "/mcp__notes__re" and _shown(app) == []
        await pilot.press("up")
        await pilot.pause()
        assert prompt.value == "read @notes:notes://to" and _shown(app) == []
        await pilot.press("down", "down", "down")
        assert prompt.value == ""
        await pilot.press("up", "up")
        await _type(pilot, "v")  # typing after a recall completes as usual
        await _until(pilot, lambda: _shown(app) == ["/mcp__notes__review"])


async def test_the_paused_time_cursor_keeps_its_keys_on_the_empty_prompt(
    tmp_path: Path,
) -> None:
    engine = FakeEngine(tmp_path)
    engine.mcp = ScriptedFleet()
    app = AiqApp(engine, clock=fixed_clock, watch=False, flash_seconds=3600)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        head = len(app.cursor.states) - 1
        await _type(pilot, "@")
        await _until(pilot, lambda: len(_shown(app)) == 4)
        await pilot.press("backspace")
        await pilot.pause()
        assert _shown(app) == []
        await pilot.press("space")
        assert app.cursor.paused
        await pilot.press("left", "left")
        assert app.cursor.index == head - 2
        await pilot.press("up")
        assert app.cursor.index == 0
        await pilot.press("end")
        assert not app.cursor.paused


class TestSnapshot:
    def test_the_open_list_of_resources(self, snap_compare, tmp_path: Path) -> None:
        app = _app(tmp_path, ScriptedFleet())

        async def run_before(pilot: Pilot) -> None:
            await _type(pilot, "summarise @")
            await _until(pilot, lambda: len(_shown(app)) == 4)
            await pilot.press("down")
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_the_list_is_readable_in_both_themes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every word of the open list, the highlighted choice and the dim details, at 4.5:1 or more."""
    from drawn_contrast import drawn_contrasts

    monkeypatch.delenv("NO_COLOR")
    app = _app(tmp_path, ScriptedFleet())
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "read @")
        await _until(pilot, lambda: len(_shown(app)) == 4)
        faint, drawn = [], set()
        for theme in (
            "textual-light",
            "textual-dark",
            "textual-light",
        ):  # drawn again per theme
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            region = app.query_one("#choices", ChoiceList).region.shrink(
                (1, 1, 1, 1)
            )  # inside the border
            for ratio, text in drawn_contrasts(app, region):
                drawn.add(text)
                if ratio < 4.5:
                    faint.append((theme, text, ratio))
        assert {"@notes:notes://today", "Today's note"} & drawn
        assert not faint, faint
