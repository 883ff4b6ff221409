"""Snapshot tests: every screen, and the main screen at the moments that matter.

Deterministic by construction: the fake engine has fixed ids, numbers and durations, the
clock is fixed, paths are shown relative to the config home, and the "just changed"
highlight lasts long enough to be in every picture. Regenerate with --snapshot-update.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from textual.pilot import Pilot

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine, broken_skill_problem, write_skill_files
from helpers import open_sessions_list, say, settle, wait_until

from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.approval import ApprovalScreen

SIZE = (120, 36)


def make_app(tmp_path: Path, **engine_options: object) -> tuple[AiqApp, FakeEngine]:
    engine = FakeEngine(tmp_path, **engine_options)  # type: ignore[arg-type]
    app = AiqApp(engine, clock=fixed_clock, watch=False, flash_seconds=3600)
    app.animation_level = (
        "none"  # tab underlines and scrolls would otherwise be caught mid-way
    )
    return app, engine


async def conversation(pilot: Pilot) -> None:
    await say(pilot, "show the tables in the sample database")
    await settle(pilot)


class TestMainScreen:
    def test_empty(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)
        assert snap_compare(app, terminal_size=SIZE)

    def test_starting_while_the_skills_load(self, snap_compare, tmp_path: Path) -> None:
        # The real start draws this frame from the config alone; the engine arrives after it.
        engine = FakeEngine(tmp_path)
        release = threading.Event()

        def build() -> FakeEngine:
            while app.is_running and not release.wait(
                0.02
            ):  # held until the picture is taken
                pass
            return engine

        app = AiqApp.starting(
            engine.config, engine.workspace.home, build, clock=fixed_clock, watch=False
        )
        app.animation_level = "none"
        try:
            assert snap_compare(app, terminal_size=SIZE)
        finally:
            release.set()

    def test_empty_at_80x24(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)
        assert snap_compare(app, terminal_size=(80, 24))

    def test_empty_at_200x60(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)
        assert snap_compare(app, terminal_size=(200, 60))

    def test_mid_conversation_at_200x60(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)
        assert snap_compare(app, terminal_size=(200, 60), run_before=conversation)

    def test_mid_conversation_with_skills_loaded(
        self, snap_compare, tmp_path: Path
    ) -> None:
        app, _ = make_app(tmp_path)
        assert snap_compare(app, terminal_size=SIZE, run_before=conversation)

    def test_paused_live_view(self, snap_compare, tmp_path: Path) -> None:
        async def paused(pilot: Pilot) -> None:
            await conversation(pilot)
            await pilot.press(
                "space", "left"
            )  # paused, one event back (the answer drawn whole)
            await pilot.pause()

        app, engine = make_app(tmp_path)
        engine.one_piece = (
            True  # how streamed text is cut into records depends on timing: not here
        )
        assert snap_compare(app, terminal_size=SIZE, run_before=paused)

    def test_mid_conversation_at_80x24(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)
        assert snap_compare(app, terminal_size=(80, 24), run_before=conversation)

    def test_after_an_eviction(self, snap_compare, tmp_path: Path) -> None:
        app, engine = make_app(tmp_path)

        async def run_before(pilot: Pilot) -> None:
            await conversation(pilot)
            engine.fill_to(0.91)
            engine.evict("pdf-tools")
            pilot.app.query_one("#activity").active = "tab-timeline"
            await settle(pilot)

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_at_95_percent_with_compression(self, snap_compare, tmp_path: Path) -> None:
        app, engine = make_app(tmp_path)

        async def run_before(pilot: Pilot) -> None:
            await conversation(pilot)
            engine.fill_to(0.96)
            engine.aggressive()
            await pilot.press("ctrl+o")
            await settle(pilot)

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_load_warnings_banner(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(
            tmp_path, problems=(broken_skill_problem(tmp_path / ".aiqconfig"),)
        )
        assert snap_compare(app, terminal_size=SIZE)

    def test_light_theme(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)
        assert snap_compare(
            app, terminal_size=SIZE, press=["ctrl+t"], run_before=conversation
        )


class TestScreens:
    def test_approval_modal(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)

        async def run_before(pilot: Pilot) -> None:
            app.send("delete order 7 from the sample database")
            await wait_until(
                lambda: isinstance(pilot.app.screen, ApprovalScreen),
                "the approval modal",
            )
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_trust_dialog(self, snap_compare, tmp_path: Path) -> None:
        # The first start in a cloned folder that brings skills and a .mcp.json (under ~, shown so).
        project = Path.home() / "code" / "cloned-app"
        (project / ".agents" / "skills" / "deploy").mkdir(parents=True)
        (project / ".agents" / "skills" / "deploy" / "SKILL.md").write_text(
            "---\nname: deploy\ndescription: d\n---\n"
        )
        (project / ".mcp.json").write_text("{}")
        engine = FakeEngine(tmp_path)
        app = AiqApp(
            engine, clock=fixed_clock, watch=False, flash_seconds=3600, project=project
        )
        app.animation_level = "none"

        async def run_before(pilot: Pilot) -> None:
            await wait_until(
                lambda: type(pilot.app.screen).__name__ == "TrustScreen",
                "the trust dialog",
            )
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_match_inspector(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)

        async def run_before(pilot: Pilot) -> None:
            await say(pilot, "/match sql tables in a pdf")
            await pilot.pause()
            await pilot.press("down")
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_skill_viewer(self, snap_compare, tmp_path: Path) -> None:
        app, engine = make_app(tmp_path)
        write_skill_files(
            engine, "sql-analyst"
        )  # the Validation panel reads the file itself

        async def run_before(pilot: Pilot) -> None:
            await pilot.pause()
            pilot.app.action_open_skill("sql-analyst")
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_trigger_eval_view(self, snap_compare, tmp_path: Path) -> None:
        import json

        from aiq_tui.ui.screens.trigger_eval import TriggerEvalScreen

        app, _ = make_app(tmp_path)
        evals = tmp_path / ".aiqconfig" / "skills" / "sql-analyst" / "evals"
        evals.mkdir(parents=True)
        (evals / "trigger_eval.json").write_text(
            json.dumps(
                [
                    {
                        "query": "which sql tables hold our customers",
                        "should_trigger": True,
                    },
                    {
                        "query": "explain the query plan of this report",
                        "should_trigger": True,
                    },
                    {"query": "draw a chart of monthly sales", "should_trigger": False},
                    {
                        "query": "summarise the tables in this pdf",
                        "should_trigger": False,
                    },
                ]
            ),
            encoding="utf-8",
        )

        async def run_before(pilot: Pilot) -> None:
            await pilot.pause()
            pilot.app.action_trigger_eval("sql-analyst")
            await wait_until(
                lambda: (
                    isinstance(app.screen, TriggerEvalScreen) and app.screen.scored >= 1
                ),
                "the trigger evals scored",
            )
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_trigger_eval_view_with_the_tuners_proposal(
        self, snap_compare, tmp_path: Path
    ) -> None:
        import json

        from aiq_tui.ui.screens.trigger_eval import TriggerEvalScreen

        app, _ = make_app(tmp_path)
        evals = tmp_path / ".aiqconfig" / "skills" / "sql-analyst" / "evals"
        evals.mkdir(parents=True)
        (evals / "trigger_eval.json").write_text(
            json.dumps(
                [
                    {
                        "query": "which sql tables hold our customers",
                        "should_trigger": True,
                    },
                    {
                        "query": "explain the query plan of this sql",
                        "should_trigger": True,
                    },
                    {
                        "query": "count the orders per customer in the database",
                        "should_trigger": True,
                    },
                    {
                        "query": "join the orders and customers tables",
                        "should_trigger": True,
                    },
                    {
                        "query": "list the columns of the products table",
                        "should_trigger": True,
                    },
                    {
                        "query": "explain the results of this election",
                        "should_trigger": False,
                    },
                    {
                        "query": "explain the results of my blood test",
                        "should_trigger": False,
                    },
                    {
                        "query": "explain the sample size for my survey",
                        "should_trigger": False,
                    },
                    {
                        "query": "query the weather api for lisbon",
                        "should_trigger": False,
                    },
                    {
                        "query": "explain the results of the football match",
                        "should_trigger": False,
                    },
                ]
            ),
            encoding="utf-8",
        )

        async def run_before(pilot: Pilot) -> None:
            await pilot.pause()
            pilot.app.action_trigger_eval("sql-analyst")
            await wait_until(
                lambda: (
                    isinstance(app.screen, TriggerEvalScreen) and app.screen.scored >= 1
                ),
                "the trigger evals scored",
            )
            await pilot.press("p")
            await wait_until(
                lambda: (
                    not app.screen.proposing
                    and str(app.screen.query_one("#eval-proposal").render()).startswith(
                        ("proposal", "tuner")
                    )
                ),
                "the tuner proposed",
            )
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_warnings_panel(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(
            tmp_path, problems=(broken_skill_problem(tmp_path / ".aiqconfig"),)
        )
        assert snap_compare(app, terminal_size=SIZE, press=["f6"])

    def test_sessions_picker(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)
        assert snap_compare(app, terminal_size=SIZE, run_before=open_sessions_list)

    def test_settings(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)
        assert snap_compare(app, terminal_size=SIZE, press=["f2"])

    def test_settings_at_80x24(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)
        assert snap_compare(app, terminal_size=(80, 24), press=["f2"])

    def test_help(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)
        assert snap_compare(app, terminal_size=SIZE, press=["f1"])

    def test_tool_call_details(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)

        async def run_before(pilot: Pilot) -> None:
            await conversation(pilot)
            pilot.app.query_one("#tool-log").focus()
            await pilot.press("enter")
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_command_palette(self, snap_compare, tmp_path: Path) -> None:
        app, _ = make_app(tmp_path)

        async def run_before(pilot: Pilot) -> None:
            from textual.command import CommandList, CommandPalette
            from textual.widgets import Input

            await pilot.press("ctrl+p")
            await wait_until(
                lambda: isinstance(app.screen, CommandPalette), "the command palette"
            )
            await pilot.press(*"insp")
            palette = app.screen

            def searched() -> (
                bool
            ):  # the search for "insp" has finished and shown its hits
                gathering = [
                    w
                    for w in app.workers
                    if w.group == CommandPalette._GATHER_COMMANDS_GROUP and w.is_running
                ]
                return (
                    palette.query_one(Input).value == "insp"
                    and not gathering
                    and palette.query_one(CommandList).option_count > 0
                )

            await wait_until(searched, "the palette's hits for 'insp'")
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
