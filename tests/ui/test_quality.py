"""Issue 14: the workbench never crashes silently, keys do what the help says, every
screen stays readable, and state follows what the user did (delete, clear, resize)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import notices, open_sessions_list, say, settle, wait_until

from aiq_tui.commands.tui_cmd import exit_code
from aiq_tui.llm.windows import resolve_window
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.crash import print_crash_note


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


async def test_an_unhandled_error_exits_1_and_leaves_a_crash_report_in_the_config_home(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)

    def broken_help() -> None:
        raise RuntimeError("boom in a handler")

    app.action_show_help = broken_help  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.press("f1")
            await pilot.pause()
    assert app.crash is not None
    error, report = app.crash
    assert (
        report is not None
        and report.parent == fake_engine.workspace.home.root / "crash"
    )
    assert "RuntimeError: boom in a handler" in report.read_text()
    assert exit_code(app, None) == 1
    stderr = io.StringIO()
    print_crash_note(error, report, stderr)
    assert str(report) in stderr.getvalue()


async def test_a_clean_quit_exits_0(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("ctrl+q")
    assert app.crash is None
    assert exit_code(app, app.return_value) == 0


async def test_a_in_the_skill_viewer_activates_the_skill(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.skills.model import SkillState
    from aiq_tui.ui.screens.skill_viewer import SkillViewerScreen

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        app.action_open_skill("csv-report")
        await pilot.pause()
        assert isinstance(app.screen, SkillViewerScreen)
        await pilot.press("a")
        await settle(pilot)
        states = {view.name: view.state for view in fake_engine.skill_views()}
        assert states["csv-report"] is SkillState.ACTIVE
        assert "activated csv-report" in notices(app)


LONG_ROW = "sql-explorer inactive→active full: loaded full: confidence 0.99 ≥ 0.7 after the question about tables"


@pytest.mark.parametrize("width", [80, 120, 200])
async def test_timeline_rows_wrap_whole_at_every_width(
    fake_engine: FakeEngine, width: int
) -> None:
    from aiq_tui.ui.widgets.timeline import Timeline

    app = make_app(fake_engine)
    async with app.run_test(size=(width, 40)) as pilot:
        timeline = app.query_one(Timeline)
        first = ("12:00:00", "load", "before the tab was ever shown")
        timeline.show((first,))  # written while its tab is hidden
        await pilot.press("ctrl+o")
        await pilot.pause()
        await pilot.press("ctrl+o")  # hidden again after it had a width
        await pilot.pause()
        timeline.show((first, ("12:00:01", "load", LONG_ROW)))
        await pilot.press("ctrl+o")
        await pilot.pause()

        def shown_whole() -> bool:
            rows = [strip.text.rstrip() for strip in timeline.lines]
            return max(
                len(row) for row in rows
            ) <= timeline.scrollable_content_region.width and LONG_ROW in " ".join(
                row.strip() for row in rows
            )

        assert shown_whole()
        await pilot.resize_terminal(
            width + 20, 40
        )  # and re-wrapped when the pane's width changes
        await pilot.pause()
        assert shown_whole()


async def test_warnings_panel_shows_the_selected_problem_in_full(
    tmp_path: Path,
) -> None:
    from aiq_tui.problems import Problem, Severity
    from aiq_tui.ui.screens.warnings import WarningsScreen

    home = tmp_path / ".aiqconfig"
    problem = Problem(
        home / "skills" / "a-rather-long-skill-folder-name" / "SKILL.md",
        "description is 1,400 characters long; the format allows at most 1,024 characters",
        field="description",
        line=3,
        severity=Severity.ERROR,
        hint="shorten the description to one or two sentences and move the details into the body",
    )
    app = make_app(FakeEngine(tmp_path, problems=(problem,)))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("f6")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, WarningsScreen)
        table = screen.query_one("#warnings")
        assert table.virtual_size.width <= table.size.width, (
            "the table must fit, not scroll sideways"
        )
        cells = [str(cell) for cell in table.get_row_at(0)]
        assert all(not cell.endswith("…") or len(cell) > 3 for cell in cells)
        detail = str(screen.query_one("#warning-detail").render())
        for part in (
            problem.message,
            problem.hint,
            "skills/a-rather-long-skill-folder-name/SKILL.md:3",
        ):
            assert part in detail


async def test_settings_validation_error_is_shown_whole(
    fake_engine: FakeEngine,
) -> None:
    from textual.widgets import Input, Label

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        app.screen.query_one("#compress_at", Input).value = "0.99"
        await pilot.press("ctrl+s")
        await pilot.pause()
        label = app.screen.query_one("#settings-error", Label)
        text = str(label.render())
        assert "compress_at <= evict_at <= aggressive_at" in text
        dialog = app.screen.query_one("#settings-dialog").content_region
        assert label.region.right <= dialog.right
        assert label.size.width * label.size.height >= len(text)


async def test_deleting_the_current_session_in_f4_sticks(tmp_path: Path) -> None:
    engine_module = pytest.importorskip("aiq_tui.agent.engine")
    from aiq_tui.workspace import Workspace

    engine = engine_module.Engine.create(Workspace.open(home_flag=tmp_path / "home"))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "hello there")
        await settle(pilot, timeout=30)
        deleted = engine.session.id
        assert deleted in [s.id for s in engine.sessions.list()]
        screen = await open_sessions_list(pilot)
        await pilot.press(
            "d", "d"
        )  # the current session is the newest, on the first row
        await wait_until(
            lambda: (
                str(screen.query_one("#sessions-status").render())
                == f"deleted {deleted}"
            ),
            "the delete",
        )
        await wait_until(lambda: engine.session.id != deleted, "a new session")
        await settle(pilot)
        await pilot.press("escape")
        await say(pilot, "and another question")
        await settle(pilot, timeout=30)
        assert deleted not in [s.id for s in engine.sessions.list()]
        assert engine.session.id != deleted
        assert "hello there" not in [m.content for m in engine.session.messages]


async def test_slash_skills_focuses_a_section_with_skills_and_typing_goes_back_to_the_prompt(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.ui.widgets.skill_list import SkillList

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)  # the skills pane is filled after the first frame
        await say(pilot, "/skills")
        await settle(pilot)
        focused = app.focused
        assert isinstance(focused, SkillList) and focused.rows, (
            "focus must land on a section with skills"
        )
        await pilot.press(*"hi")
        prompt = app.query_one("#prompt")
        assert app.focused is prompt and prompt.value == "hi"


async def test_focus_returns_to_the_prompt_after_a_modal_closes(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        app.query_one("#tool-log").focus()
        await pilot.press("enter")  # opens the tool call's details
        await pilot.pause()
        assert app.screen is not app.screen_stack[0]
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        assert app.focused is app.query_one("#prompt")
        sent = len(fake_engine.sent)
        await pilot.press(*"next", "enter")
        await settle(pilot)
        assert len(fake_engine.sent) == sent + 1


async def test_clear_resets_the_gauge_stage_line(fake_engine: FakeEngine) -> None:
    from aiq_tui.ui.widgets.budget_gauge import BudgetGauge

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/compact")
        await settle(pilot)
        gauge = app.query_one(BudgetGauge)
        assert gauge.stage_note.startswith("stage ")
        await say(pilot, "/clear")
        await settle(pilot)
        assert gauge.stage_note == ""
        assert "stage " not in str(gauge.render())


async def test_growing_from_80x24_to_200x60_shows_the_budget_legend_again(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.ui.widgets.budget_gauge import BudgetGauge

    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        gauge = app.query_one(BudgetGauge)
        await pilot.pause()
        assert gauge.compact
        await pilot.resize_terminal(200, 60)
        await pilot.pause()
        await pilot.pause()
        assert not gauge.compact
        lines = str(gauge.render()).count("\n") + 1
        assert gauge.content_size.height >= lines, "the legend is drawn but cut off"


async def test_page_keys_scroll_the_conversation_from_the_prompt_and_a_marker_tells_of_new_messages(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.ui.widgets.conversation import NEW_BELOW, Conversation

    app = make_app(fake_engine)
    async with app.run_test(size=(100, 30)) as pilot:
        for question in ("show the tables", "and the sql", "tables again"):
            await say(pilot, question)
            await settle(pilot)
        conversation = app.query_one(Conversation)
        prompt = app.query_one("#prompt")
        assert app.focused is prompt and conversation.max_scroll_y > 0
        await pilot.press("pageup")
        await pilot.pause()
        assert conversation.scroll_y < conversation.max_scroll_y
        await conversation.add_notice("something new", "info")
        await pilot.pause()
        assert conversation.border_subtitle == NEW_BELOW
        await pilot.press("home")
        await pilot.pause()
        assert conversation.scroll_y == 0
        await pilot.press("end")
        await pilot.pause()
        await pilot.pause()
        assert conversation.scroll_y == conversation.max_scroll_y
        assert conversation.border_subtitle == ""
        prompt.value = "draft"
        prompt.cursor_position = 5
        await pilot.press("home")  # with text, Home is the cursor's again
        assert prompt.cursor_position == 0


@pytest.mark.parametrize(("width", "minimum"), [(80, 36), (120, 44), (200, 72)])
async def test_the_right_column_grows_with_the_terminal(
    fake_engine: FakeEngine, width: int, minimum: int
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(width, 36)) as pilot:
        await pilot.pause()
        right = app.query_one("#right")
        assert minimum <= right.size.width <= max(minimum + 4, width * 0.4)
        assert app.query_one("#left").size.width >= 40


def test_the_skills_pane_shows_confidence_on_the_threshold_scale_not_the_raw_score() -> (
    None
):
    from aiq_tui.agent.views import SkillView
    from aiq_tui.skills.model import Phase, SkillState
    from aiq_tui.ui.widgets.skill_list import skill_line

    view = SkillView(
        "sql-analyst",
        "",
        SkillState.ACTIVE,
        Phase.FULL,
        640,
        score=4.2,
        confidence=0.84,
    )
    line = skill_line(view, 40).plain
    assert line.rstrip().endswith("0.84") and "4.20" not in line


def test_timeline_says_evict_only_for_the_budget_stage() -> None:
    from aiq_tui.replay.state import change_kind as kind

    assert kind("relevant", None) == "evict"
    assert kind("relevant", "inactive") == "unload"
    assert kind("active", "relevant") == "demote"
    assert kind("inactive", "active") == "load"


def test_inspector_shows_the_words_the_user_typed_not_their_stems() -> None:
    from aiq_tui.ranking.tokenize import tokenize
    from aiq_tui.ui.screens.inspector import as_typed

    query = "summarising the databases' tables"
    typed = as_typed(query)
    assert {typed[term] for term in tokenize(query)} <= set(
        query.replace("'", " ").split()
    )
    assert typed[tokenize("databases")[0]] == "databases"


async def test_unknown_skill_names_get_the_closest_names(
    fake_engine: FakeEngine,
) -> None:
    from textual.widgets import Input

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/skill sql-analyts")
        await settle(pilot)
        assert any("did you mean sql-analyst" in text for text in notices(app))
        await pilot.press("f3")
        await pilot.pause()
        app.screen.query_one("#why-name", Input).value = "csv-reprot"
        app.screen.query_one("#why-name", Input).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert "Did you mean csv-report?" in str(app.screen.query_one("#why").render())


async def test_an_empty_conversation_welcomes_with_example_questions_and_keys(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.ui.widgets.conversation import Welcome

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        welcome = app.query(Welcome)
        assert welcome and "show the tables in the sample database" in str(
            welcome.first().render()
        )
        assert "F1" in str(welcome.first().render()) and "Esc" in str(
            welcome.first().render()
        )
        await say(pilot, "show the tables")
        await settle(pilot)
        assert not app.query(Welcome)
        await say(pilot, "/clear")
        await settle(pilot)
        assert app.query(Welcome)


async def test_theme_and_prompt_history_are_kept_across_runs(tmp_path: Path) -> None:
    from aiq_tui.config import read_yaml_mapping, validate_config
    from aiq_tui.ui.history import history_path

    engine = FakeEngine(tmp_path)
    app = make_app(engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("ctrl+t")
        await say(pilot, "first question")
        await settle(pilot)
        await app.workers.wait_for_complete()
    saved = validate_config(read_yaml_mapping(engine.workspace.home.config_file))
    assert saved.ui.theme == "textual-light"
    assert history_path(engine.workspace.home.data_dir).read_text().splitlines() == [
        "first question"
    ]

    again = make_app(FakeEngine(tmp_path))
    async with again.run_test(size=(120, 36)) as pilot:
        await pilot.press("up")
        assert again.query_one("#prompt").value == "first question"


def test_prompt_history_is_capped(tmp_path: Path) -> None:
    from aiq_tui.ui.history import append_history, load_history

    path = tmp_path / "data" / "prompt-history"
    for index in range(10):
        append_history(path, f"question {index}\nwith a second line", cap=3)
    assert load_history(path, 3) == [
        f"question {i} with a second line" for i in (7, 8, 9)
    ]
    assert len(path.read_text().splitlines()) <= 6


async def test_a_missing_api_key_is_reported_in_the_banner_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine_module = pytest.importorskip("aiq_tui.agent.engine")
    from aiq_tui.workspace import Workspace

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    engine = engine_module.Engine.create(
        Workspace.open(home_flag=tmp_path / "home"), "openai"
    )
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        banner = app.query_one("#banner")
        assert banner.display and "OPENAI_API_KEY" in str(banner.render())


async def test_a_resumed_session_gets_its_tool_log_back(tmp_path: Path) -> None:
    engine_module = pytest.importorskip("aiq_tui.agent.engine")
    from aiq_tui.ui.widgets.tool_log import ToolLog
    from aiq_tui.workspace import Workspace

    engine = engine_module.Engine.create(Workspace.open(home_flag=tmp_path / "home"))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "show the tables in the sample database")
        await settle(pilot, timeout=30)
        calls = {record.name for record in app.query_one(ToolLog).records.values()}
        assert calls
        saved = engine.session.id
        await say(pilot, "/clear")
        await settle(pilot)
        assert not app.query_one(ToolLog).records
        app.session_control.resume(saved)
        await settle(pilot)
        assert {
            record.name for record in app.query_one(ToolLog).records.values()
        } == calls


async def test_a_provider_chosen_in_settings_applies_without_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine_module = pytest.importorskip("aiq_tui.agent.engine")
    from textual.widgets import Select

    from aiq_tui.ui.screens.settings import SettingsScreen
    from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
    from aiq_tui.workspace import Workspace

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    engine = engine_module.Engine.create(Workspace.open(home_flag=tmp_path / "home"))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        demo_window = engine.breakdown.window
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        app.screen.query_one("#provider", Select).value = "openai"
        await pilot.pause()
        await pilot.press(
            "ctrl+s"
        )  # no key: the first Save only says the next turn would fail
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert engine.provider.name == "openai"
        assert (
            engine.breakdown.window
            == resolve_window(engine.config).tokens
            != demo_window
        )
        assert app.query_one(BudgetGauge).breakdown.window == engine.breakdown.window
        assert "OPENAI_API_KEY" in str(app.query_one("#banner").render())
        assert "openai" in app.sub_title


@pytest.mark.parametrize("width", [80, 120, 200])
async def test_every_budget_legend_entry_is_shown_whole(
    fake_engine: FakeEngine, width: int
) -> None:
    from aiq_tui.ui.widgets.budget_gauge import BudgetGauge

    app = make_app(fake_engine)
    async with app.run_test(size=(width, 40)) as pilot:
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        gauge = app.query_one(BudgetGauge)
        lines = str(gauge.render()).splitlines()
        assert all(len(line.rstrip()) <= gauge.content_size.width for line in lines)
        legend = " ".join(lines)
        for label in ("sys", "catalog", "skills", "history", "tools", "reserve"):
            assert f"{label} " in legend


async def test_a_highlight_timer_firing_while_the_app_quits_is_harmless(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.ui.widgets.skills_pane import SkillsPane

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = app.query_one(SkillsPane)
        await pilot.pause()
        for section in list(pane.query("SkillList")):
            await section.remove()
        pane.unflash(
            "sql-analyst"
        )  # what the flash timer does after the sections are gone
    assert app.crash is None


async def test_turns_replaced_by_a_compression_summary_are_marked(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.ui.widgets.conversation import UserTurn

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        for question in ("first question", "second question", "third question"):
            await say(pilot, question)
            await settle(pilot)
        # The fake's /compact folds messages m-0 and m-1 (the first question and its answer)
        # into a summary: exactly the turns the plan names are marked, by message id.
        await say(pilot, "/compact")
        await settle(pilot)
        turns = {turn.text: turn for turn in app.query(UserTurn)}
        assert turns["first question"].has_class("-summarised")
        assert (
            str(turns["first question"].render()).lstrip().startswith("summarised")
        )  # drawn, not a title
        assert not turns["second question"].has_class("-summarised")
        assert not turns["third question"].has_class("-summarised")


async def test_the_gauge_says_where_the_window_comes_from(tmp_path: Path) -> None:
    from aiq_tui.agent.engine import Engine
    from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
    from aiq_tui.workspace import Workspace

    workspace = Workspace.open(home_flag=tmp_path / "home")
    workspace.config.llm.provider = (
        "anthropic"  # no key needed to budget: the window is the model's
    )
    app = AiqApp(Engine.create(workspace), clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        gauge = app.query_one(BudgetGauge)
        assert gauge.breakdown.window == 200_000
        assert "known model" in str(gauge.border_subtitle) and str(
            gauge.border_subtitle
        ).startswith("window: claude")


def test_a_name_that_fills_its_column_stays_apart_from_its_badge() -> None:
    from aiq_tui.agent.views import SkillView
    from aiq_tui.skills.model import Phase, SkillState
    from aiq_tui.ui.widgets.skill_list import skill_line

    for name in (
        "sales-report-pipeline",
        "sales-report-pip",
    ):  # cut, and as wide as the column was
        view = SkillView(
            name, "", SkillState.RELEVANT, Phase.BRIEF, 120, confidence=0.65
        )
        line = skill_line(view, 34).plain
        assert len(line) == 34
        assert line.split()[1] == "brief", line  # "sales-report-pi…brief" was one word
