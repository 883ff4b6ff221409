"""One rule for text on a terminal, held by the code's shape: no string reaches a markup parser.

rich and Textual parse ``[...]`` in a ``str`` almost everywhere they take one. The app's doors
are fitted once — the CLI's :class:`~aiq_tui.commands.safe_console.SafeConsole` renders every
string literally, :mod:`aiq_tui.ui.plain` gives the TUI widgets, a table and toasts that do the
same — and this test reads ``src/`` and fails on any way around them:

* ``Static(``, ``Label(``, ``DataTable(`` (or a class built on one) outside ``ui/plain.py``:
  use ``PlainStatic``, ``PlainLabel``, ``PlainDataTable``;
* ``markup=True`` anywhere;
* a markup parser called on anything but a literal: ``Text.from_markup``,
  ``Content.from_markup``, ``rich.markup.render``;
* a rich ``Panel`` title or subtitle that is not ``Text`` (a Panel parses a str title itself);
* a border title or subtitle set from anything but a literal or ``plain(...)`` / ``Text(...)``;
* a rich ``Table`` in the TUI (Textual's console parses its str cells: use ``PlainDataTable``);
* an ``App`` without :class:`~aiq_tui.ui.plain.PlainNotifications` (its toasts would parse);
* a widget's ``render`` declared to return ``str`` (Textual parses it);
* Markdown whose links would open what their words do not name: Textual's ``Markdown``
  outside ``PlainMarkdown``, rich's without ``hyperlinks=False``.

Then the doors themselves are checked: each shows a payload of markup literally.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

SRC = Path(__file__).parents[2] / "src" / "aiq_tui"
DOORS = {SRC / "ui" / "plain.py"}
UNSAFE_WIDGETS = {"Static", "Label", "DataTable"}
MARKUP_PARSERS = {"from_markup", "render_markup"}


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    return ""


def _literal(node: ast.AST) -> bool:
    """A string written in the source (or a choice of two): the author's text, not outside text."""
    if isinstance(node, ast.IfExp):
        return _literal(node.body) and _literal(node.orelse)
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _text_call(node: ast.AST) -> bool:
    """``Text(...)``, ``Text.assemble(...)``, ``plain(...)``, ``Content(...)``: text, not markup."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and _name(func.value) in {"Text", "Content"}:
        return func.attr in {"assemble", "from_rich_text"}
    return _name(func) in {"Text", "plain", "Content"}


def _files() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _breaches(path: Path, tree: ast.Module) -> Iterator[str]:
    where = path.relative_to(SRC.parent)
    in_ui = "ui" in path.relative_to(SRC).parts[:1]
    rich_table = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "rich.table"
        and any(alias.name == "Table" for alias in node.names)
        for node in ast.walk(tree)
    )
    for node in ast.walk(tree):
        line = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ClassDef):
            bases = {_name(base) for base in node.bases}
            if path not in DOORS and bases & UNSAFE_WIDGETS:
                yield f"{line}: class {node.name} builds on {sorted(bases & UNSAFE_WIDGETS)}; use ui/plain.py's Plain* class"
            if "App" in bases and "PlainNotifications" not in bases:
                yield f"{line}: app {node.name} lacks PlainNotifications (its toasts parse markup)"
        if in_ui and isinstance(node, ast.FunctionDef) and node.name == "render":
            if isinstance(node.returns, (ast.Name, ast.Constant)) and (
                getattr(node.returns, "id", None) == "str"
                or getattr(node.returns, "value", None) == "str"
            ):
                yield f"{line}: render() returns str, which Textual parses as markup; return Text or Content"
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr in {"border_title", "border_subtitle"}
                    and not (_literal(node.value) or _text_call(node.value))
                ):
                    yield f"{line}: {target.attr} set from a str (parsed as markup); use plain(...)"
        if not isinstance(node, ast.Call):
            continue
        called = _name(node.func)
        for keyword in node.keywords:
            if (
                keyword.arg == "markup"
                and isinstance(keyword.value, ast.Constant)
                and keyword.value.value is True
            ):
                yield f"{line}: markup=True"
        if path in DOORS:
            continue
        if called in UNSAFE_WIDGETS:
            yield f"{line}: {called}(...) parses str as markup; use Plain{called} (ui/plain.py)"
        if called in MARKUP_PARSERS and not all(_literal(arg) for arg in node.args[:1]):
            yield f"{line}: {called}() on a value that is not a literal"
        if called == "Panel":
            for keyword in node.keywords:
                if keyword.arg in {"title", "subtitle"} and not (
                    _literal(keyword.value) or _text_call(keyword.value)
                ):
                    yield f"{line}: Panel {keyword.arg} is parsed as markup; pass Text(...)"
        if called in {"Markdown", "RichMarkdown"} and not any(
            keyword.arg == "hyperlinks"
            and isinstance(keyword.value, ast.Constant)
            and keyword.value.value is False
            for keyword in node.keywords
        ):
            yield f"{line}: {called}(...) draws links whose words need not be their target; PlainMarkdown in the TUI, hyperlinks=False for rich's"
        if in_ui and rich_table and called == "Table":
            yield f"{line}: a rich Table in the TUI parses its str cells; use PlainDataTable"


def test_no_string_in_src_reaches_a_markup_parser() -> None:
    breaches = [breach for path, tree in _files() for breach in _breaches(path, tree)]
    assert not breaches, "outside text could be parsed as markup:\n" + "\n".join(
        breaches
    )


def test_the_guard_itself_finds_each_way_around_the_doors(tmp_path: Path) -> None:
    """A guard that finds nothing proves nothing: each banned shape is found in a sample."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from rich.table import Table\n"
        "class Pane(Static): ...\n"
        "class Viewer(App[None]): ...\n"
        "def render(self) -> str: ...\n"
        "w.border_title = f'{name}'\n"
        "Static(query)\n"
        "Label(query, markup=True)\n"
        "DataTable(id='x')\n"
        "Text.from_markup(query)\n"
        "Panel(body, title=f'skill {name}')\n"
        "Markdown(body)\n",
        encoding="utf-8",
    )
    found = list(_breaches(SRC / "ui" / "sample.py", ast.parse(sample.read_text())))
    for expected in (
        "class Pane",
        "app Viewer",
        "render() returns str",
        "border_title",
        "Static(...)",
        "Label(...)",
        "markup=True",
        "DataTable(...)",
        "from_markup()",
        "Panel title",
        "Markdown(...)",
    ):
        assert any(expected in breach for breach in found), (expected, found)


PAYLOAD = "[/b] [link=https://evil.example/]docs[/link] [@click=app.quit]x[/] [conceal]y[/conceal]"


def test_the_cli_console_prints_a_string_as_written_even_when_told_markup() -> None:
    from aiq_tui.commands.safe_console import SafeConsole

    console = SafeConsole(record=True, width=200, force_terminal=True)
    console.print(PAYLOAD, markup=True, emoji=True)
    console.print(":warning:")
    out = console.export_text(styles=True)
    assert PAYLOAD in out and ":warning:" in out
    assert "\x1b]8" not in out and "\x1b[8m" not in out


@pytest.mark.parametrize("cls_name", ["PlainStatic", "PlainLabel"])
async def test_plain_widgets_show_markup_as_written(cls_name: str) -> None:
    from textual.app import App, ComposeResult

    from aiq_tui.ui import plain

    cls = getattr(plain, cls_name)

    class Probe(App[None]):
        def compose(self) -> ComposeResult:
            yield cls(PAYLOAD, id="first", markup=True)
            yield cls(id="second")

    app = Probe()
    async with app.run_test(size=(160, 6)) as pilot:
        app.query_one("#second", cls).update("esc \x1b]0;t\x07 " + PAYLOAD)
        await pilot.pause()
        first, second = app.query_one("#first", cls), app.query_one("#second", cls)
        assert str(first.render()) == PAYLOAD
        assert str(second.render()) == "esc \\x1b]0;t\\x07 " + PAYLOAD


def test_the_plain_data_table_stores_every_string_as_text() -> None:
    from aiq_tui.ui.plain import plain_cell

    cell = plain_cell(PAYLOAD)
    assert isinstance(cell, Text) and cell.plain == PAYLOAD and not cell.spans
    styled = Text("pass", style="green")
    assert plain_cell(styled) is styled
    rendered = Console(width=200, record=True)
    rendered.print(cell)
    assert PAYLOAD in rendered.export_text()
