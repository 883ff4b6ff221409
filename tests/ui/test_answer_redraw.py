"""An answer the conversation mounts again is not drawn again (issue 32): stepping the time
cursor back and forth, and back to live, unmounts answers and mounts them as new widgets, and a
demo answer with a table took 6.5 ms to parse and draw each time — most of a frame."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

import aiq_tui.ui.widgets.answer as answer_module
from aiq_tui.ui.widgets.answer import AnswerView

TABLE = "[demo model] 3 rows:\n\n| id | name |\n|---|---|\n| 1 | Ada |\n| 2 | Grace |\n| 3 | Edsger |\n"


def table(request) -> str:
    """The table under a line naming the test: drawings are kept across widgets, so each test
    draws a text no other test drew."""
    return f"{request.node.name}\n\n{TABLE}"


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="pane")


def _counting_parses(monkeypatch) -> list[str]:
    parsed: list[str] = []
    real = answer_module.RichMarkdown

    def counting(text: str, *args, **kwargs):
        parsed.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(answer_module, "RichMarkdown", counting)
    return parsed


async def _mounted(app: Host, pilot, text: str) -> AnswerView:
    view = AnswerView(text)
    await app.query_one("#pane").mount(view)
    await pilot.pause()
    return view


async def test_the_same_answer_mounted_again_is_neither_parsed_nor_drawn_again(
    monkeypatch, request
) -> None:
    text = table(request)
    parsed = _counting_parses(monkeypatch)
    app = Host()
    async with app.run_test(size=(70, 20)) as pilot:
        first = await _mounted(app, pilot, text)
        assert parsed == [text]
        drawn = first.render()
        await first.remove()
        again = await _mounted(app, pilot, text)  # what a step back and forth mounts
        assert parsed == [text], "drawn from what the first widget drew"
        assert again.render() is drawn
        assert "Edsger" in again.render().plain


async def test_a_new_text_or_theme_is_drawn_afresh(monkeypatch, request) -> None:
    text = table(request)
    parsed = _counting_parses(monkeypatch)
    app = Host()
    async with app.run_test(size=(70, 20)) as pilot:
        view = await _mounted(app, pilot, text)
        assert len(parsed) == 1
        await view.write("| 4 | Barbara |\n")
        await pilot.pause()
        assert "Barbara" in view.render().plain and len(parsed) == 2
        before = view.render()
        app.theme = "textual-light" if app.current_theme.dark else "textual-dark"
        await pilot.pause()
        assert view.render() is not before and len(parsed) == 2, (
            "drawn again in the new colours, not parsed again"
        )
