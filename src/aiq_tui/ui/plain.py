"""The app's doors for text onto the screen: whatever a string holds, it is shown, never obeyed.

Textual parses a ``str`` as content markup almost everywhere it takes one — a ``Static`` or a
``Label`` and their ``update``, a ``DataTable`` cell, a ``notify()`` toast, a border title. Markup
there is more than colour: ``[@click=app.confirm_skill_tools('x')]…[/]`` makes the text a button
for any app action, ``[link=…]`` a link whose target is not its text. Text from a skill, a
project, a model, a tool, an MCP server or a session file must never reach those parsers.

So the app uses these, not Textual's own (the table and the Markdown in modules of their own:
Textual's ``DataTable`` and ``Markdown`` are loaded after the first frame), and ``tests/security/test_outside_text_is_never_markup.py``
fails on any ``Static(``, ``Label(``, ``DataTable(`` (or subclass of one) or ``markup=True`` in
``src/``:

* :func:`plain` — a string as a :class:`~rich.text.Text`: made printable (control characters
  shown escaped, :mod:`aiq_tui.terminal_text`), never parsed (a border title, a row label);
* :class:`PlainStatic` / :class:`PlainLabel` — never parse markup, in ``__init__`` or ``update``,
  and show a string's control characters escaped; styled text is passed as ``Text``;
* :class:`~aiq_tui.ui.plain_table.PlainDataTable` — every ``str`` cell, row label and column
  label becomes :func:`plain_cell` text (the base ``DataTable`` runs ``Text.from_markup`` on each);
* :class:`~aiq_tui.ui.plain_markdown.PlainMarkdown` — a skill's body or a tool's output as
  Markdown whose links open nothing: a link's words need not be its address
  (``[docs.python.org](https://evil.example)``), so a click says where it points instead;
* :class:`PlainNotifications` — an app mixin: every ``notify()`` toast is literal, whoever
  calls it (both apps, :class:`~aiq_tui.ui.app.AiqApp` and the replay viewer, use it).
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.widgets import Label, Static

from aiq_tui.printable_text import printable_text
from aiq_tui.terminal_text import printable


def plain(text: str, *, one_line: bool = True, style: str | Style = "") -> Text:
    """``text`` for a table cell, a title or a status line: one line unless told otherwise."""
    return Text(printable(text, one_line=one_line), style=style)


def plain_cell(value: Any) -> Any:
    """A table cell as the table should draw it: a ``str`` as literal :class:`Text` (its lines
    kept: a row may be taller than one line), a :class:`Text` made printable with its styles,
    anything else as it is."""
    if isinstance(value, str):
        return Text(printable(value), end="")
    if isinstance(value, Text):
        return printable_text(value)
    return value


def _content(content: Any) -> Any:
    if isinstance(content, str):
        return printable(content)
    if isinstance(content, Text):
        return printable_text(content)
    return content


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
