"""The prompt's completion choices (``@SERVER:URI``, ``/mcp__SERVER__PROMPT``, ``name=value``):
a small list drawn over the conversation, just above the prompt, starting under the word being
completed.

It never takes focus: the prompt keeps every key and hands over the list's (↑/↓ move while it
shows, Tab/Enter accept, Esc closes; :class:`~aiq_tui.ui.widgets.prompt.PromptInput`). It does no
I/O: :mod:`aiq_tui.ui.prompt_completion` fills it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.geometry import Offset, Region
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from aiq_tui.terminal_text import printable
from aiq_tui.tools.mcp.completion import Choice
from aiq_tui.ui.text_fit import fit

ROWS = 8
"""Choices in view at once; more scroll with the highlight."""
DETAIL_CELLS = 60
"""A choice's description is cut to this many cells (the label never)."""


class ChoiceList(OptionList, can_focus=False):
    """See the module doc. ``picked(index)`` is called when a choice is clicked."""

    DEFAULT_CSS = """
    ChoiceList {
        display: none;
        overlay: screen;
        width: auto;
        min-width: 24;
        max-width: 100%;
        height: auto;
        max-height: 10;
        border: round $accent;
        padding: 0 1;
        background: $surface;
        scrollbar-size-vertical: 1;
        & > .option-list--option-highlighted {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.choices: tuple[Choice, ...] = ()
        self.picked: Callable[[int], None] | None = None

    @property
    def showing(self) -> bool:
        return self.display and bool(self.choices)

    def show(self, choices: Sequence[Choice], anchor: Offset, screen: Region) -> None:
        """List ``choices`` (the first highlighted) with its bottom-left corner just above
        ``anchor`` (the word's first cell on screen), kept inside ``screen``."""
        if tuple(choices) != self.choices:
            self.choices = tuple(choices)
            self.clear_options()
            self.add_options([Option(_line(choice)) for choice in self.choices])
            self.highlighted = 0 if self.choices else None
        height = min(len(self.choices), ROWS) + 2  # the border
        width = (
            max(_line(choice).cell_len for choice in self.choices) + 5
            if self.choices
            else 24
        )
        x = max(screen.x, min(anchor.x - 2, screen.right - width))
        self.absolute_offset = Offset(x, max(screen.y, anchor.y - height))
        self.display = True

    def hide(self) -> None:
        self.display = False
        self.choices = ()
        self.clear_options()

    def move(self, step: int) -> None:
        """The highlight one choice up (-1) or down (1), wrapping around."""
        if self.choices:
            self.highlighted = ((self.highlighted or 0) + step) % len(self.choices)

    @property
    def current(self) -> Choice | None:
        index = self.highlighted
        return (
            self.choices[index]
            if self.showing and index is not None and index < len(self.choices)
            else None
        )

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.picked is not None:
            self.picked(event.option_index)


def _line(choice: Choice) -> Text:
    # An MCP server's values and descriptions: Text (never markup), control characters escaped.
    line = Text(printable(choice.label, one_line=True))
    if choice.detail:
        # Italic, not dim: dim on the highlighted row's background fell under 4.5:1 (3.4 dark).
        line.append(
            "  " + fit(printable(choice.detail, one_line=True), DETAIL_CELLS),
            style="italic",
        )
    return line
