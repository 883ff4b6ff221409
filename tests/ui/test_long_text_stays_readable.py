"""No text is cut without a way to read the rest; long conversations keep every message; answers select like any text."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import screen_text, settle

from aiq_tui.ui.app import AiqApp


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


def toasts(app: AiqApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


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
        def check_ready(self) -> None:
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
