"""Each private Textual API the app relies on is still there: a Textual upgrade that renames
one fails here, not silently in a long session's memory or a pane's scrollbar."""

from __future__ import annotations

import inspect

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.scroll_view import ScrollView
from textual.widgets import DataTable, Input, Static

from aiq_tui.ui import textual_compat
from aiq_tui.ui.textual_compat import (
    TABLE_CACHES,
    anchor_released,
    bound_table_caches,
    release_removed_widgets,
)


def test_the_styles_cache_memo_exists_and_release_empties_it() -> None:
    from textual._styles_cache import StylesCache

    memo = StylesCache.get_inner_outer
    memo(StylesCache, *_two_colours())  # type: ignore[call-arg]
    assert memo.cache_info().currsize >= 1  # type: ignore[attr-defined]
    release_removed_widgets()
    assert memo.cache_info().currsize == 0  # type: ignore[attr-defined]


def _two_colours() -> tuple[object, object]:
    from textual.color import Color

    return Color(10, 20, 30), Color(40, 50, 60)


def test_a_data_tables_render_caches_are_bounded_by_name() -> None:
    table: DataTable[str] = DataTable()
    before = {name: getattr(table, name).maxsize for name, _share in TABLE_CACHES}
    assert all(isinstance(size, int) for size in before.values())
    bound_table_caches(table, 3)
    for name, share in TABLE_CACHES:
        assert getattr(table, name).maxsize == min(before[name], 3 * share)


async def test_the_anchor_reads_released_once_the_user_scrolls_up() -> None:
    class Anchored(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll(id="log"):
                for n in range(60):
                    yield Static(f"line {n}")

        def on_mount(self) -> None:
            self.query_one("#log").anchor()

    app = Anchored()
    async with app.run_test(size=(40, 10)) as pilot:
        log = app.query_one("#log", VerticalScroll)
        await pilot.pause()
        assert hasattr(log, "_anchor_released") and not anchor_released(log)
        log.scroll_up(animate=False, immediate=True)
        await pilot.pause()
        assert anchor_released(log)


def test_the_drivers_build_their_parser_by_the_name_paste_safe_replaces() -> None:
    import textual.drivers.linux_driver as linux

    from aiq_tui.ui.textual_compat import XTermParser

    assert (
        linux.XTermParser is XTermParser or linux.XTermParser.__mro__[1] is XTermParser
    )
    assert callable(getattr(XTermParser, "feed", None))


def test_the_overridden_private_methods_keep_their_signatures() -> None:
    size_updated = inspect.signature(ScrollView._size_updated)
    assert list(size_updated.parameters) == [
        "self",
        "size",
        "virtual_size",
        "container_size",
        "layout",
    ]
    assert list(inspect.signature(Input._on_key).parameters) == ["self", "event"]


def test_no_other_module_reaches_into_textuals_private_modules() -> None:
    from pathlib import Path

    package = Path(textual_compat.__file__).parent.parent
    offenders = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.name != "textual_compat.py"
        and ("textual._" in path.read_text() or "_anchor_released" in path.read_text())
    ]
    assert offenders == []
