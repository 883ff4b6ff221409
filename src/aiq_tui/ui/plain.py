"""The app's doors for text onto the screen: whatever a string holds, it is shown, never obeyed.

Textual parses a ``str`` as content markup almost everywhere it takes one — a ``Static`` or a
``Label`` and their ``update``, a ``DataTable`` cell, a ``notify()`` toast, a border title. Markup
there is more than colour: ``[@click=app.confirm_skill_tools('x')]…[/]`` makes the text a button
for any app action, ``[link=…]`` a link whose target is not its text. Text from a skill, a
project, a model, a tool, an MCP server or a session file must never reach those parsers.

So the app uses these, not Textual's own, and ``tests/security/test_outside_text_is_never_markup.py``
fails on any ``Static(``, ``Label(``, ``DataTable(`` (or subclass of one) or ``markup=True`` in
``src/``:

* :func:`plain` — a string as a :class:`~rich.text.Text`: made printable (control characters
  shown escaped, :mod:`aiq_tui.terminal_text`), never parsed (a border title, a row label);
* :class:`PlainStatic` / :class:`PlainLabel` — never parse markup, in ``__init__`` or ``update``,
  and show a string's control characters escaped; styled text is passed as ``Text``;
* :class:`PlainDataTable` — every ``str`` cell, row label and column label becomes
  :func:`plain_cell` text (the base ``DataTable`` runs ``Text.from_markup`` on each);
* :class:`PlainMarkdown` — a skill's body or a tool's output as Markdown whose links open
  nothing: a link's words need not be its address (``[docs.python.org](https://evil.example)``),
  so a click says where it points instead of going there;
* :class:`PlainNotifications` — an app mixin: every ``notify()`` toast is literal, whoever
  calls it (both apps, :class:`~aiq_tui.ui.app.AiqApp` and the replay viewer, use it).
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual import on
from textual.widgets import DataTable, Label, Markdown, Static

from aiq_tui.terminal_text import printable


def plain(text: str, *, one_line: bool = True, style: str | Style = "") -> Text:
    """``text`` for a table cell, a title or a status line: one line unless told otherwise."""
    return Text(printable(text, one_line=one_line), style=style)


def plain_cell(value: Any) -> Any:
    """A table cell as the table should draw it: a ``str`` as literal :class:`Text` (its lines
    kept: a row may be taller than one line), anything else as it is."""
    if isinstance(value, str):
        return Text(printable(value), end="")
    return value


def _content(content: Any) -> Any:
    return printable(content) if isinstance(content, str) else content


class PlainStatic(Static):
    """A ``Static`` whose strings are text: markup is off (whatever ``markup=`` says) and control
    characters show escaped. Style goes in a :class:`Text` passed in."""

    def __init__(self, content: Any = "", **options: Any) -> None:
        options["markup"] = False
        super().__init__(_content(content), **options)

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        super().update(_content(content), layout=layout)


class PlainLabel(Label):
    """A ``Label`` whose strings are text (see :class:`PlainStatic`)."""

    def __init__(self, content: Any = "", **options: Any) -> None:
        options["markup"] = False
        super().__init__(_content(content), **options)

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        super().update(_content(content), layout=layout)


class PlainDataTable(DataTable[Any]):
    """A ``DataTable`` that draws every ``str`` it is given — cells, row and column labels — as
    literal text: the base class parses each as markup, so an eval query holding
    ``[@click=app.quit]…`` would become a button."""

    def add_column(self, label: Any, **options: Any) -> Any:
        return super().add_column(
            plain(label) if isinstance(label, str) else label, **options
        )

    def add_row(
        self,
        *cells: Any,
        height: int | None = 1,
        key: str | None = None,
        label: Any = None,
    ) -> Any:
        return super().add_row(
            *(plain_cell(cell) for cell in cells),
            height=height,
            key=key,
            label=plain(label) if isinstance(label, str) else label,
        )

    def update_cell(
        self,
        row_key: Any,
        column_key: Any,
        value: Any,
        *,
        update_width: bool = False,
    ) -> None:
        super().update_cell(
            row_key, column_key, plain_cell(value), update_width=update_width
        )


def plain_notification(message: Any, title: Any) -> tuple[str, str]:
    """A toast's message and title as they are shown: printable, and (the caller passes
    ``markup=False``) never parsed."""
    return printable(str(message)), printable(str(title), one_line=True)


class PlainNotifications:
    """An app mixin: every toast shows its message as text. Textual's ``notify`` parses markup
    unless told not to, and a widget's ``notify`` passes ``markup=True`` on; a toast quoting an
    eval query, an error or a file name would act on what it holds."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        message, title = plain_notification(message, title)
        super().notify(  # type: ignore[misc]
            message, title=title, severity=severity, timeout=timeout, markup=False
        )


class PlainMarkdown(Markdown):
    """Markdown from outside the app (a skill's body, a tool's output). A click on a link opens
    nothing and says where the link points: its words may name another address than its target."""

    def __init__(self, markdown: str | None = None, **options: Any) -> None:
        options["open_links"] = False
        super().__init__(markdown, **options)

    @on(Markdown.LinkClicked)
    def _say_where_it_points(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        self.notify(
            f"This link points to {event.href} — not opened; copy it to open it yourself.",
            title="Link",
        )
