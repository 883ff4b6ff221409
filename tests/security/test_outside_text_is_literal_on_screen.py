"""Every screen that shows outside text shows it literally: a skill's, a model's, a tool call's
and a session's markup stays text (no button, no link, nothing concealed), escape sequences show
escaped — against the real engine on the offline demo provider.

The trigger-eval table once handed each query to a DataTable as a ``str``, which Textual parses
as markup: a query in the skill's own ``evals/trigger_eval.json`` holding
``[@click=app.confirm_skill_tools('NAME')]…`` made the cell a button, and one click confirmed
the skill's ``allowed-tools`` with no dialog.
"""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest
from textual.widget import Widget

sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))

from helpers import deny_approvals_until, say, settle, wait_until

from aiq_tui.ui.app import AiqApp

engine_module = pytest.importorskip("aiq_tui.agent.engine")

pytestmark = pytest.mark.slow

NAME = "python-docs"
CLICK = f"[@click=app.confirm_skill_tools('{NAME}')]click=me[/]"
QUIT = "[@click=app.quit]quit=me[/]"
LINK = "[link=https://evil.example/pwn]https://docs.python.org/3/[/link]"
CONCEAL = "[conceal]hidden=words[/conceal]"
CLOSING = "[/b]"
# What each piece leaves on screen when it is parsed: shown, it must come with its tags.
PIECES = {
    CLICK: "click=me",
    QUIT: "quit=me",
    LINK: "https://docs.python.org/3/",
    CONCEAL: "hidden=words",
    CLOSING: "",
}
ESCAPE = "\x1b]0;owned\x07"
# A Markdown link whose words name another address than the one it opens.
MD_LINK = "[https://docs.python.org/3/](https://evil.example/md)"
PAYLOAD = f"{CLOSING} {CLICK} {QUIT} {LINK} {CONCEAL} {ESCAPE}"


def _skill(root: Path) -> Path:
    skills = root / "skills"
    folder = skills / NAME
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\n"
        f"name: {NAME}\n"
        f"description: {json.dumps('Python docs for testing python code files. ' + PAYLOAD)}\n"
        f"allowed-tools: Bash(rm:*)\n"
        f"colour: {json.dumps(PAYLOAD)}\n"
        "---\n"
        f"# Python docs\n\n{MD_LINK} Read this: {PAYLOAD}\n",
        encoding="utf-8",
    )
    (folder / "evals" / "trigger_eval.json").write_text(
        json.dumps(
            [
                {"query": f"{CLICK} {QUIT} python docs", "should_trigger": True},
                {"query": f"{LINK} {CONCEAL} {ESCAPE}", "should_trigger": False},
            ]
        ),
        encoding="utf-8",
    )
    return skills


@pytest.fixture
def app(tmp_path: Path) -> AiqApp:
    workspace = engine_module.Workspace.open(
        home_flag=tmp_path / "home", skills_dirs=(str(_skill(tmp_path)),)
    )
    return AiqApp(engine_module.Engine.create(workspace), watch=False)


def _lines(widget: Widget) -> Iterator[tuple[str, list]]:
    for y in range(min(widget.size.height, 120)):
        strip = widget.render_line(y)
        yield (
            "".join(segment.text for segment in strip),
            [(segment.text, segment.style) for segment in strip if segment.style],
        )


def _markdown_link(widget: Widget, text: str, action: str) -> bool:
    """A Markdown widget's own link action: either on a URL it found in the text (the words are
    the address), or in a PlainMarkdown, where a click opens nothing and names the target."""
    from aiq_tui.ui.plain import PlainMarkdown

    if any(isinstance(node, PlainMarkdown) for node in widget.ancestors_with_self):
        return action.startswith("link(")
    return _markdown_autolink(text, action)


def _markdown_autolink(text: str, action: str) -> bool:
    """The Markdown widget's own link action on a URL it found in the text: the words shown
    are (a piece of) the address it opens, so the link hides nothing."""
    if not action.startswith("link(") or not action.endswith(")"):
        return False
    target = unquote(ast.literal_eval(action[len("link(") : -1]))
    return bool(text.strip()) and text.strip() in target


def assert_shown_literally(app: AiqApp, *, must_show: tuple[str, ...] = ()) -> str:
    """What the screen draws (every visible widget, line by line, toasts included) carries no
    action, link or concealed style, and shows every payload piece it shows as written."""
    drawn: list[str] = []
    for widget in app.screen.walk_children(with_self=True):
        if not widget.display or not widget.size.height:
            continue
        for text, styles in _lines(widget):
            drawn.append(text)
            for piece, style in styles:
                action = (style.meta or {}).get("@click")
                assert action is None or _markdown_link(widget, piece, action), (
                    f"{type(widget).__name__} draws an action: {style.meta} in {text!r}"
                )
                assert not style.link, f"{type(widget).__name__} draws a link: {text!r}"
                assert not style.conceal, f"{type(widget).__name__} conceals: {text!r}"
    screen = "\n".join(drawn)
    # A toast or a cell wraps a long piece: compared also with the lines joined, blanks gone.
    joined = "".join("".join(drawn).split())
    assert "\x1b" not in screen and "\x07" not in screen, (
        "a raw escape reached the screen"
    )
    for piece, words in PIECES.items():
        if words and words in screen:
            assert piece in screen or _squeezed(piece) in joined, (
                f"{piece!r} was parsed, not shown:\n{screen}"
            )
    for piece in must_show:
        assert piece in screen or _squeezed(piece) in joined, (
            f"{piece!r} is not on screen:\n{screen}"
        )
    return joined


def _squeezed(text: str) -> str:
    return "".join(text.split())


async def test_clicking_an_eval_query_that_holds_an_action_runs_nothing(
    app: AiqApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import DataTable

    from aiq_tui.ui.screens.trigger_eval import TriggerEvalScreen

    ran: list[str] = []
    monkeypatch.setattr(
        type(app), "action_confirm_skill_tools", lambda self, name: ran.append(name)
    )
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        app.action_trigger_eval(NAME)
        await wait_until(
            lambda: (
                isinstance(app.screen, TriggerEvalScreen) and app.screen.scored >= 1
            ),
            "the trigger evals",
        )
        await pilot.pause()
        table = app.screen.query_one("#eval-table", DataTable)
        for x in range(0, table.size.width, 2):  # every cell of the first row
            await pilot.click("#eval-table", offset=(x, 1))
        await pilot.pause()
        assert ran == [], "a click on a query ran confirm_skill_tools"
        assert app.is_running, "a click on a query ran app.quit"
        assert_shown_literally(app, must_show=(CLICK, QUIT))
        await pilot.press("down")
        await pilot.pause()
        assert_shown_literally(app, must_show=(LINK, CONCEAL, "\\x1b]0;owned\\x07"))


async def test_the_skill_viewer_and_the_inspector_show_a_skills_markup_as_written(
    app: AiqApp,
) -> None:
    from textual.widgets import Markdown

    from aiq_tui.ui.screens.inspector import InspectorScreen
    from aiq_tui.ui.screens.skill_viewer import SkillViewerScreen

    async with app.run_test(size=(220, 50)) as pilot:
        await settle(pilot)
        app.action_open_skill(NAME)
        await wait_until(
            lambda: isinstance(app.screen, SkillViewerScreen), "the viewer"
        )
        await pilot.pause()
        assert_shown_literally(app, must_show=(CLOSING, CLICK))
        opened: list[str] = []
        app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
        body = app.screen.query_one("#skill-body", Markdown)
        body.post_message(Markdown.LinkClicked(body, "https://evil.example/md"))
        await wait_until(
            lambda: any(
                "https://evil.example/md" in n.message for n in app._notifications
            ),
            "the toast naming the link's target",
        )
        assert opened == [], "a click on a skill's link opened it"
        await pilot.press("escape")
        app.action_inspector(f"test python code files {PAYLOAD}")
        await wait_until(
            lambda: isinstance(app.screen, InspectorScreen), "the inspector"
        )
        await settle(pilot)
        assert_shown_literally(app)


async def test_a_conversation_its_tools_toasts_and_sessions_show_markup_as_written(
    app: AiqApp,
) -> None:
    from aiq_tui.ui.screens.sessions import SessionsScreen
    from aiq_tui.ui.widgets.tool_log import ToolLog

    async with app.run_test(size=(220, 50), notifications=True) as pilot:
        await settle(pilot)
        await say(pilot, f"how do I test python code files? {PAYLOAD}")
        await deny_approvals_until(
            pilot,
            lambda: not app.busy and bool(app.engine.session.messages),
            "the turn",
        )
        await settle(pilot)
        assert app.query_one(ToolLog).records, (
            "the demo model should have called a tool"
        )
        app.query_one("#activity").active = "tab-tools"
        app.notify(f"toast {PAYLOAD}", title=f"title {CLICK}")
        app.notify(f"toast {PAYLOAD}", markup=True)  # what a widget's notify passes on
        await pilot.pause()
        await pilot.pause()
        screen = assert_shown_literally(app, must_show=(CLOSING, CLICK))
        # The demo model quotes the skill: its Markdown link reads "words (target)".
        assert (
            _squeezed("https://docs.python.org/3/ (https://evil.example/md)") in screen
        )
        assert _squeezed(f"toast {CLOSING} {CLICK}") in screen
        assert _squeezed(f"title {CLICK}") in screen
        app.action_sessions()
        await wait_until(lambda: isinstance(app.screen, SessionsScreen), "sessions")
        await wait_until(
            lambda: any(table.row_count for table in app.screen.query("#sessions")),
            "the sessions",
        )
        await pilot.pause()
        assert_shown_literally(
            app, must_show=(f"how do I test python code files? {CLOSING}",)
        )
