"""What a new user found in tmux (issue 24, section 1), each pinned by a test that failed before."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest
from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import open_sessions_list, say, settle, wait_until
from textual.widgets import Input, Label

from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.sessions import SessionsScreen
from aiq_tui.ui.widgets.timeline import Timeline


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


def toasts(app: AiqApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_rename_has_a_label_and_starts_from_the_current_title(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_sessions_list(pilot)
        await pilot.press("down", "n")
        await pilot.pause()
        label = screen.query_one("#rename-label", Label)
        assert label.display and "s-0000" in str(label.render())
        assert (
            screen.query_one("#rename", Input).value == "Tables in the sample database"
        )
        await pilot.press("escape")
        assert not label.display and isinstance(app.screen, SessionsScreen)


async def test_f5_reloads_the_skills(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f5")
        await settle(pilot)
        assert any(kind == "reload" for kind, _ in app.query_one(Timeline).entries)


async def test_replay_of_an_unknown_session_points_to_f4(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "/replay nosuchid")
        await settle(pilot)
        [message] = [m for m in toasts(app) if "nosuchid" in m]
        assert "F4" in message and "aiq-tui sessions" not in message


def test_counts_read_in_the_right_number() -> None:
    from aiq_tui.ui.text_fit import counted

    assert (
        counted(1, "step") == "1 step"
        and counted(2, "step") == "2 steps"
        and counted(0, "step") == "0 steps"
    )


# -- item 5: every modal fits 80x24 and scrolls to its focused field ---------------------------


def assert_visible(widget, screen) -> None:
    """``widget`` is drawn in full: inside the screen and inside every scrolling container."""
    region = widget.region
    assert region.area > 0, f"{widget!r} is not drawn"
    assert screen.region.contains_region(region), (
        f"{widget!r} at {region} is off-screen"
    )
    for ancestor in widget.ancestors_with_self[1:]:
        if getattr(ancestor, "is_scrollable", False) and hasattr(
            ancestor, "scrollable_content_region"
        ):
            clip = ancestor.scrollable_content_region
            assert clip.contains_region(region), (
                f"{widget!r} at {region} is hidden in {ancestor!r} ({clip})"
            )


async def tab_through(pilot, screen) -> list[str]:
    """Tab once per focusable field; each one, when focused, is on screen."""
    seen: list[str] = []
    for _ in range(len(screen.focus_chain) + 1):
        focused = screen.focused
        assert focused is not None
        await pilot.pause()
        assert_visible(focused, screen)
        seen.append(focused.id or type(focused).__name__)
        await pilot.press("tab")
        await pilot.pause()
    return seen


async def test_settings_fits_80x24_and_tab_only_reaches_visible_fields(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.ui.screens.settings import SettingsScreen

    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        seen = await tab_through(pilot, screen)
        assert {
            "provider",
            "model",
            "window",
            "compress_at",
            "evict_at",
            "aggressive_at",
            "save",
            "cancel",
        } <= set(seen)
        assert_visible(screen.query_one("#settings-hint"), screen)


async def test_approval_of_a_file_write_shows_the_content_and_fits_80x24(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.tools.base import ApprovalRequest
    from aiq_tui.ui.screens.approval import ApprovalScreen

    content = "".join(f"line {n}: the orders report\n" for n in range(40))
    request = ApprovalRequest(
        "c1",
        "file_operations",
        "file_write",
        "Write a file",
        "write notes/orders.md",
        {"operation": "write", "path": "notes/orders.md", "content": content},
    )
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ApprovalScreen(request))
        await pilot.pause()
        screen = app.screen
        shown = str(screen.query_one("#approval-content Static").render())
        assert "line 0: the orders report" in shown and "line 39" in shown
        seen = await tab_through(pilot, screen)
        assert {"deny", "allow_once", "allow_always", "approval-content"} <= set(seen)


async def test_slash_model_opens_a_model_picker_that_warns_before_saving_a_provider_without_a_key(
    fake_engine: FakeEngine, monkeypatch
) -> None:
    from textual.widgets import Select

    from aiq_tui.ui.screens.settings import SettingsScreen

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    app = make_app(fake_engine)
    config_file = fake_engine.workspace.home.config_file
    async with app.run_test(size=(80, 24)) as pilot:
        await say(pilot, "/model")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SettingsScreen) and screen.model_only
        assert not screen.query("#window") and not screen.query("#compress_at")
        screen.query_one("#provider", Select).value = "openai"
        await pilot.pause()
        warning = screen.query_one("#settings-warning", Label)
        assert warning.display and "OPENAI_API_KEY" in str(warning.render())
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen and not config_file.exists(), (
            "the first Save only warns"
        )
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is not screen and "openai" in config_file.read_text()


# -- item 3: one Tab stop per pane, focus back to the prompt after every dialog ------------------


def pane_of(widget) -> str:
    for pane in ("prompt", "skills", "activity", "conversation"):
        if widget.id == pane or any(a.id == pane for a in widget.ancestors):
            return pane
    return widget.id or type(widget).__name__


async def test_tab_stops_once_per_pane_and_shift_tab_goes_back(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "/skill pdf-tools")  # Active and Inactive both have skills now
        await settle(pilot)
        app.query_one("#prompt").focus()
        await pilot.pause()
        visited = [pane_of(app.focused)]
        for _ in range(3):
            await pilot.press("tab")
            await pilot.pause()
            visited.append(pane_of(app.focused))
        assert visited == ["prompt", "skills", "activity", "prompt"]
        await pilot.press("shift+tab")
        await pilot.pause()
        assert pane_of(app.focused) == "activity"


async def test_arrow_keys_cross_the_skill_sections(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "/skill pdf-tools")
        await settle(pilot)
        app.query_one("#prompt").focus()
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused.id == "skills-active"
        await pilot.press("down")
        await pilot.pause()
        assert app.focused.id == "skills-inactive" and app.focused.cursor == 0
        await pilot.press("up")
        await pilot.pause()
        assert app.focused.id == "skills-active"


async def test_focus_returns_to_the_prompt_after_the_viewer_help_and_settings(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.query_one("#prompt").focus()
        await pilot.press("tab", "enter")  # Enter on a skill opens the viewer
        await pilot.pause()
        assert app.screen is not app.screen_stack[0]
        for keys in (["escape"], ["f1"], ["escape"], ["f2"], ["escape"]):
            await pilot.press(*keys)
            await pilot.pause()
            await pilot.pause()
        assert app.screen is app.screen_stack[0] and app.focused.id == "prompt"


# -- item 10: footer per screen, 80x24 layout, a full-screen Tools / Timeline -------------------


def footer_keys(screen) -> str:
    from textual.widgets import Footer

    footer = screen.query_one(Footer)
    return " ".join(f"{key.key} {key.description}" for key in footer.query("FooterKey"))


async def test_each_dialog_footer_shows_its_own_keys(fake_engine: FakeEngine) -> None:
    from aiq_tui.tools.base import ApprovalRequest
    from aiq_tui.ui.screens.approval import ApprovalScreen

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await pilot.pause()
        keys = footer_keys(app.screen)
        assert "ctrl+s Save" in keys and "Inspector" not in keys
        await pilot.press("escape")
        request = ApprovalRequest(
            "c1", "execute_command", "execute_command", "Run command", "ls", {}
        )
        await app.push_screen(ApprovalScreen(request))
        await pilot.pause()
        keys = footer_keys(app.screen)
        assert (
            "y Allow once" in keys
            and "a Always" in keys
            and "n Deny" in keys
            and "Settings" not in keys
        )


async def test_80x24_shows_more_than_two_skills_and_the_whole_welcome_card(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.ui.widgets.skill_list import SkillList

    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        inactive = app.query_one("#skills-inactive", SkillList)
        assert inactive.scrollable_content_region.height >= 5
        welcome = app.query_one(".welcome")
        assert app.query_one("#conversation").scrollable_content_region.contains_region(
            welcome.region
        )


async def test_f7_shows_tools_and_timeline_full_screen_and_esc_gives_the_layout_back(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        activity = app.query_one("#activity")
        small = activity.region.height
        await pilot.press("f7")
        await pilot.pause()
        assert app.screen.maximized is activity and activity.region.height > 2 * small
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None and activity.region.height == small


async def test_no_stray_scrollbar_mark_above_the_footer(
    fake_engine: FakeEngine,
) -> None:
    for size in ((120, 36), (80, 24)):
        app = make_app(fake_engine)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            lines = [
                "".join(seg.text for seg in strip)
                for strip in app.screen._compositor.render_strips()
            ]
            assert not [line for line in lines[:-1] if "▏" in line or "▊" in line], size


# -- item 11: the light theme is readable ---------------------------------------------------------


def contrast(first, second) -> float:
    """WCAG contrast ratio of two rich ColorTriplets."""

    def luminance(color) -> float:
        parts = [v / 255 for v in color]
        parts = [
            v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in parts
        ]
        return 0.2126 * parts[0] + 0.7152 * parts[1] + 0.0722 * parts[2]

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


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


def drawn_contrasts(
    app: AiqApp, region, wanted=lambda text: True
) -> list[tuple[float, str]]:
    """(contrast, text) of every word drawn inside ``region``, from the colours the screen really
    uses (run without NO_COLOR, so the theme's colours, not a monochrome filter's). A ``dim``
    word is blended half-way into its background, as Textual's DimFilter and most terminals
    draw it."""
    found = []
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        x = 0
        for segment in strip:
            style, text = segment.style, segment.text
            if (
                region.contains(x, y)
                and any(ch.isalnum() for ch in text)
                and wanted(text.strip())
                and style
                and style.color
                and style.bgcolor
            ):
                colour, ground = (
                    style.color.get_truecolor(),
                    style.bgcolor.get_truecolor(),
                )
                if style.dim:
                    colour = tuple((c + g) // 2 for c, g in zip(colour, ground))
                found.append((round(contrast(colour, ground), 2), text.strip()))
            x += len(text)
    return found


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


async def test_ctrl_t_with_a_long_conversation_keeps_every_message_on_screen(
    fake_engine: FakeEngine,
) -> None:
    """Ctrl+T restyles every widget: each message is one widget (an answer's markdown included,
    not one per paragraph, table cell and code line), and after the toggle all still show (as
    many as the conversation mounts: its window)."""
    from aiq_tui.replay.state import Entry
    from aiq_tui.ui.widgets.answer import AnswerView
    from aiq_tui.ui.widgets.conversation import WINDOW, Conversation, UserTurn

    entries = []
    for turn in range(WINDOW // 2):
        entries += [
            Entry("user", f"question {turn} about the books", message_id=f"m{turn}"),
            Entry(
                "answer",
                f"Answer {turn}:\n\n| title | sold |\n|---|---|\n| book {turn} | {turn} |\n\n"
                f"```sql\nSELECT {turn};\n```\n",
            ),
        ]
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        conversation = app.query_one(Conversation)
        await conversation.show(entries)
        await pilot.pause()
        assert len(list(conversation.walk_children())) == len(
            entries
        )  # one widget per message
        for theme in ("textual-light", "textual-dark"):
            await pilot.press("ctrl+t")
            await pilot.pause()
            assert app.theme == theme
            turns, answers = list(app.query(UserTurn)), list(app.query(AnswerView))
            assert [t.text for t in turns] == [
                e.text for e in entries if e.kind == "user"
            ]
            assert [a.text for a in answers] == [
                e.text for e in entries if e.kind == "answer"
            ]
            for turn, _answer in zip(
                turns, answers
            ):  # each drawn where the user scrolls to it
                conversation.scroll_to_widget(turn, animate=False, top=True)
                await pilot.pause()
                shown = "\n".join(screen_text(app))
                number = turn.text.split()[1]
                assert (
                    f"question {number} about" in shown and f"Answer {number}:" in shown
                )
                assert f"book {number}" in shown and f"SELECT {number};" in shown


async def test_an_answer_is_selected_with_the_mouse_like_any_other_text(
    fake_engine: FakeEngine,
) -> None:
    """An answer drawn as one widget still gives its text to Textual's selection (a double
    click selects the answer, Ctrl+C copies it): markdown drawn as words, not as markup."""
    from aiq_tui.replay.state import Entry
    from aiq_tui.ui.widgets.answer import AnswerView
    from aiq_tui.ui.widgets.conversation import Conversation

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await app.query_one(Conversation).show(
            [
                Entry("user", "which books sell best", message_id="m1"),
                Entry(
                    "answer",
                    "The **best seller** is *Dune*:\n\n```sql\nSELECT title FROM books;\n```\n",
                ),
            ]
        )
        await pilot.pause()
        answer = app.query_one(AnswerView)
        await pilot.double_click(answer, offset=(2, 1))
        await pilot.pause()
        selected = app.screen.get_selected_text() or ""
        assert "The best seller is Dune:" in selected
        assert "SELECT title FROM books;" in selected
        assert "**" not in selected
        assert not any(
            line.endswith(" ") for line in selected.splitlines()
        )  # not the padding to the width
        await pilot.press("ctrl+c")  # copies the selection (and cancels nothing)
        assert app.clipboard == selected
        assert app.screen.get_selected_text() is None


# -- item 6: no text cut without a way to read the rest --------------------------------------------


def screen_text(app: AiqApp) -> list[str]:
    return [
        "".join(seg.text for seg in strip)
        for strip in app.screen._compositor.render_strips()
    ]


async def test_a_tool_calls_detail_wraps_a_long_argument_instead_of_cutting_it(
    fake_engine: FakeEngine,
) -> None:
    import json

    from aiq_tui.ui.screens.text_modal import TextModal

    sql = (
        "SELECT c.name, ROUND(SUM(o.total), 2) AS spent FROM customers c JOIN orders o ON o.customer_id = c.id "
        "GROUP BY c.id ORDER BY spent DESC LIMIT 5"
    )
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(
            TextModal(
                "Tool call c1", f"```json\n{json.dumps({'sql': sql}, indent=2)}\n```\n"
            )
        )
        await pilot.pause()
        shown = " ".join(
            " ".join(line.strip(" │█▆").split()) for line in screen_text(app)
        )
        for word in sql.split():
            assert word in shown, word


async def test_the_no_key_banner_wraps_at_80_columns(fake_engine: FakeEngine) -> None:
    class NoKey:
        def _check_ready(self) -> None:
            raise RuntimeError(
                "openai (gpt-4o-mini): no API key: set the OPENAI_API_KEY environment variable "
                "(or point llm.providers.openai.base_url at a local server such as Ollama)"
            )

    fake_engine.is_demo = False
    fake_engine.provider = NoKey()
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = " ".join(screen_text(app)[1:5])
        assert "Ollama)" in shown and "F2 Settings" in shown


async def test_sessions_keep_the_updated_column_visible_at_80_columns(
    fake_engine: FakeEngine,
) -> None:
    from fake_engine import FakeSummary

    fake_engine.sessions.items.insert(
        0,
        FakeSummary(
            "20261125105834-a1b2c3",
            "write a short report of the orders to notes/orders.md and then mail i…",
            "2026-11-25T10:58:34.123456+00:00",
            12,
        ),
    )
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_sessions_list(pilot)
        shown = "\n".join(screen_text(app))
        assert (
            "2026-11-25 10:58" in shown
            and "12" in shown.split("2026-11-25 10:58")[1].split("\n")[0]
        )


async def test_the_viewer_shows_a_composite_skills_steps_as_json_with_a_detail_view(
    tmp_path,
) -> None:
    import json

    from aiq_tui.ui.screens.skill_viewer import field_text

    steps = [
        {"tool": "execute_sql", "args": {"sql": "SELECT 1"}},
        {"tool": "file_operations"},
    ]
    assert json.loads(field_text(steps)) == steps and "'tool'" not in field_text(steps)
    assert (
        field_text(["csv", "report"]) == "csv, report"
        and field_text("plain") == "plain"
    )


def test_a_long_timeline_entry_wraps_under_its_text_not_to_column_0() -> None:
    from rich.console import Console

    from aiq_tui.ui.widgets.timeline import Timeline

    console = Console(width=44, record=True, color_system=None)
    console.print(
        Timeline.row(
            "12:00:00",
            "evict",
            "pdf-tools relevant→evicted meta: evicted at 90 %: least recently used",
        )
    )
    lines = console.export_text().splitlines()
    assert len(lines) > 1 and lines[0].startswith("12:00:00 evict    pdf-tools")
    indent = len("12:00:00 ") + len("evict    ")
    assert all(
        line.startswith(" " * indent) and line[indent] != " " for line in lines[1:]
    )
