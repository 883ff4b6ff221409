"""Text, badges and figures are readable in the dark and the light theme (measured contrast)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest
from conftest import fixed_clock
from drawn_contrast import contrast, drawn_contrasts
from fake_engine import FakeEngine
from helpers import say, settle, wait_until

from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.timeline import Timeline


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


def toasts(app: AiqApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


@pytest.mark.parametrize("colours", ["monochrome", "theme"])
async def test_conversation_text_and_pane_titles_are_readable_in_the_light_theme(
    fake_engine: FakeEngine, monkeypatch: pytest.MonkeyPatch, colours: str
) -> None:
    if colours == "theme":  # the colours drawn, not NO_COLOR's grey version of them
        monkeypatch.delenv("NO_COLOR")
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        app.theme = "textual-light"
        await settle(pilot)
        await say(
            pilot, "show the tables in the sample database"
        )  # tool notices, an answer
        await settle(pilot)
        conversation = app.query_one("#conversation").region
        skills = app.query_one("#skills").region
        faint = []
        for y, strip in enumerate(app.screen._compositor.render_strips()):
            x = 0
            for segment in strip:
                width = len(segment.text)
                inside = conversation.contains(x, y) or (
                    skills.contains(x, y) and "(" in segment.text
                )
                style = segment.style
                if (
                    inside
                    and any(ch.isalnum() for ch in segment.text)
                    and style
                    and style.color
                    and style.bgcolor
                ):
                    ratio = contrast(
                        style.color.get_truecolor(), style.bgcolor.get_truecolor()
                    )
                    if ratio < 3.0:
                        faint.append((round(ratio, 2), segment.text.strip()[:30]))
                x += width
        assert not faint, faint


async def faint_words_in_each_theme(
    app: AiqApp, redrawn, regions, wanted=lambda text: True
):
    """Light, dark and light again (each change draws the words afresh): every word drawn in
    ``regions()`` — ``(name, region)`` pairs, asked again per theme — and those under 4.5:1 as
    ``(theme, name, word, ratio)``. ``redrawn`` waits until the new theme is on screen."""
    faint, drawn = [], set()
    for theme in ("textual-light", "textual-dark", "textual-light"):
        app.theme = theme
        await redrawn()
        for name, region in regions():
            for ratio, text in drawn_contrasts(app, region, wanted):
                drawn.add(text)
                if ratio < 4.5:
                    faint.append((theme, name, text, ratio))
    return faint, drawn


async def test_skill_badges_are_readable_on_every_row_in_both_themes(
    fake_engine: FakeEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """full / brief / meta / evict / disabled and the figures beside them reach 4.5:1 on the
    skills pane's plain rows and its highlighted (cursor) row, focused or not, dark and light."""
    from dataclasses import replace

    from aiq_tui.skills.model import SkillState
    from aiq_tui.ui.widgets.skill_list import SkillList
    from aiq_tui.ui.widgets.skills_pane import SECTIONS, SkillsPane

    monkeypatch.delenv("NO_COLOR")
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(
            pilot, "show the tables in the sample database"
        )  # full, brief and meta rows
        await settle(pilot)
        fake_engine.fill_to(0.91)
        fake_engine.evict("pdf-tools")
        await settle(pilot)
        pane = app.query_one(SkillsPane)
        views = [view for state in SECTIONS for view in pane.views_in(state)]
        dormant = next(
            v for v in views if v.state is SkillState.INACTIVE and not v.evicted
        )
        pane.set_views(
            [replace(v, status="inactive") if v is dormant else v for v in views]
        )
        await pilot.pause()
        badges = {"full", "brief", "meta", "evict", "disabled"}
        drawn: set[str] = set()
        faint = []
        for theme in ("textual-dark", "textual-light"):
            app.theme = theme
            for focused in (False, True):
                for section in app.query(SkillList):
                    if focused:
                        section.focus()
                    for row in range(len(section.rows)):
                        section.cursor = row
                        await pilot.pause()
                        for ratio, text in drawn_contrasts(app, section.content_region):
                            drawn.add(text)
                            if ratio < 4.5:
                                faint.append(
                                    (theme, focused, section.id, row, text, ratio)
                                )
        assert badges <= drawn  # every badge was on screen
        assert not faint, faint


async def test_timeline_kinds_and_the_budget_figure_are_readable_in_both_themes(
    fake_engine: FakeEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR")
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        fake_engine.fill_to(0.91)  # the figure in its 90 % colour
        fake_engine.evict("pdf-tools")  # load, tool, evict, compress rows
        app.query_one("#activity").active = "tab-timeline"
        await settle(pilot)
        faint, drawn = await faint_words_in_each_theme(
            app,
            lambda: settle(pilot),
            lambda: [
                (widget.id, widget.content_region)
                for widget in (app.query_one(Timeline), app.query_one("#gauge"))
            ],
        )
        assert {"evict", "compress"} <= drawn
        assert not faint, faint


async def test_tool_call_statuses_are_readable_in_both_themes(
    fake_engine: FakeEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aiq_tui.ui.widgets.tool_log import STATUS_BADGE, ToolLog

    monkeypatch.delenv("NO_COLOR")
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        log = app.query_one(ToolLog)
        for index, status in enumerate(STATUS_BADGE):
            log.upsert(
                f"c{index}",
                name="execute_sql",
                arguments={},
                permission="auto",
                status=status,
            )
        log.move_cursor(row=0)
        (
            faint,
            drawn,
        ) = await faint_words_in_each_theme(  # statuses coloured again per theme
            app,
            lambda: settle(pilot),
            lambda: [("tool log", log.region)],
            lambda text: text in STATUS_BADGE,
        )
        assert drawn == set(STATUS_BADGE)
        assert not faint, faint


async def test_the_inspectors_phase_badges_are_readable_in_both_themes(
    fake_engine: FakeEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import DataTable

    monkeypatch.delenv("NO_COLOR")
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/match sql tables files")  # a full, two briefs, a meta
        await pilot.pause()

        async def redrawn() -> None:
            await pilot.pause()
            await pilot.pause()

        (
            faint,
            drawn,
        ) = await faint_words_in_each_theme(  # the theme changed while it is open
            app,
            redrawn,
            lambda: [("ranking", app.screen.query_one("#ranking", DataTable).region)],
            lambda text: text in ("full", "brief", "meta"),
        )
        assert drawn == {"full", "brief", "meta"}
        assert not faint, faint


async def test_the_activity_tabs_labels_are_readable_in_both_themes(
    fake_engine: FakeEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual draws a tab that is not chosen at half its foreground: 3.0:1 on the light theme."""
    monkeypatch.delenv("NO_COLOR")
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        # Focused, the chosen tab takes the theme's cursor colours (as a focused table's cursor
        # row does), left as Textual draws them: 3.8:1, bold, on the dark theme.
        for chosen in ("tab-tools", "tab-timeline"):
            app.query_one("#activity").active = chosen
            faint, drawn = await faint_words_in_each_theme(
                app,
                lambda: settle(pilot),
                lambda: [("tabs", app.query_one("#activity Tabs").region)],
                lambda text: text in ("Tools", "Timeline"),
            )
            assert drawn == {"Tools", "Timeline"}
            assert not faint, (chosen, faint)


async def test_doctor_severities_and_trigger_verdicts_are_readable_in_both_themes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The doctor's error / warning / info and the trigger evals' pass / FAIL were fixed ANSI
    colours: ``yellow`` on the light theme's table is barely visible."""
    import json

    from textual.widgets import DataTable

    from aiq_tui.agent.engine import Engine
    from aiq_tui.ui.screens.doctor import DoctorScreen
    from aiq_tui.ui.screens.trigger_eval import TriggerEvalScreen
    from aiq_tui.workspace import Workspace

    monkeypatch.delenv("NO_COLOR")
    skills = tmp_path / "skills"
    for name, description in (
        ("combine-docs", "Merge PDF files into one document."),  # a collision: error
        ("pdf-merge", "Merge PDF files into one document, fast."),
        ("tiny", "Helps."),
    ):  # too vague to match: a warning
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\nDo it.\n"
        )
    (skills / "pdf-merge" / "evals").mkdir()
    (skills / "pdf-merge" / "evals" / "trigger_eval.json").write_text(
        json.dumps(
            [
                {"query": "merge these pdf files", "should_trigger": True},  # passes
                {"query": "split a pdf into pages", "should_trigger": False},
                {"query": "bake a cake", "should_trigger": True},  # fails
            ]
        )
    )
    engine = Engine.create(
        Workspace.open(home_flag=tmp_path / "home", skills_dirs=(str(skills),))
    )
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:

        async def redrawn() -> None:
            await pilot.pause()
            await pilot.pause()

        def table() -> list[tuple[str, object]]:
            return [("table", app.screen.query_one(DataTable).region)]

        def blur() -> None:
            # A focused table draws its cursor row in the theme's own cursor colours, whatever
            # the cell's; a blurred one draws the cell's colour on the cursor's background.
            app.screen.set_focus(None)

        await say(pilot, "/doctor")
        await wait_until(
            lambda: (
                isinstance(app.screen, DoctorScreen) and app.screen.report is not None
            ),
            "the doctor",
        )
        levels = {finding.level.value for finding in app.screen.report.findings}
        assert {"error", "warning"} <= levels
        blur()
        faint, drawn = await faint_words_in_each_theme(
            app, redrawn, table, lambda text: text in levels
        )
        assert drawn == levels
        assert not faint, faint
        await pilot.press("escape")
        app.action_trigger_eval("pdf-merge")
        await wait_until(
            lambda: (
                isinstance(app.screen, TriggerEvalScreen) and app.screen.scored >= 1
            ),
            "the evals",
        )
        blur()
        faint, drawn = await faint_words_in_each_theme(
            app, redrawn, table, lambda text: text in ("pass", "FAIL")
        )
        assert drawn == {"pass", "FAIL"}
        assert not faint, faint
