"""A box table built line by line: rich's heavy-head look for listings of any length.

rich's ``Table`` lays out every cell through its renderer, about a tenth of a millisecond a
cell: ``skills list`` over 10,000 skills took six seconds. Here a row is one line of text —
each column as wide as its longest cell (up to a cap), the last one cut with an ellipsis to
fit the width — and styles are spans on a single :class:`~rich.text.Text`, printed once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

from rich.cells import cell_len, set_cell_size
from rich.text import Span, Text

Cell = Union[str, tuple[str, str]]
"""A cell's text, or ``(text, style)`` to style that one cell."""


@dataclass(frozen=True)
class Column:
    header: str
    style: str = ""  # for every cell of the column (a cell's own style wins)
    max_width: int | None = None  # longer cells end in "…"


def box_table(
    title: str, columns: Sequence[Column], rows: Sequence[Sequence[Cell]], width: int
) -> Text:
    """``title`` (italic), then the table; the last column takes what ``width`` leaves."""
    widths = _widths(columns, rows, width)
    lines: list[str] = [title] if title else []
    spans: list[Span] = [Span(0, len(title), "italic")] if title else []
    offset = len(title) + 1 if title else 0

    def add(
        cells: Sequence[Cell], styles: Sequence[str], left: str, middle: str, right: str
    ) -> None:
        nonlocal offset
        parts = [left]
        position = offset + len(left)
        for index, (cell, column_width) in enumerate(zip(cells, widths)):
            text, style = cell if isinstance(cell, tuple) else (cell, styles[index])
            text = _fit(text, column_width)
            if style:
                spans.append(Span(position, position + len(text), style))
            parts.append(text)
            position += len(text)
            separator = middle if index < len(widths) - 1 else right
            parts.append(separator)
            position += len(separator)
        line = "".join(parts)
        lines.append(line)
        offset += len(line) + 1

    def rule(left: str, fill: str, middle: str, right: str) -> None:
        nonlocal offset
        line = left + middle.join(fill * (w + 2) for w in widths) + right
        lines.append(line)
        offset += len(line) + 1

    rule("┏", "━", "┳", "┓")
    add(
        [column.header for column in columns],
        ["bold"] * len(columns),
        "┃ ",
        " ┃ ",
        " ┃",
    )
    rule("┡", "━", "╇", "┩")
    column_styles = [column.style for column in columns]
    for row in rows:
        add(row, column_styles, "│ ", " │ ", " │")
    rule("└", "─", "┴", "┘")
    return Text("\n".join(lines), spans=spans, no_wrap=True)


def _widths(
    columns: Sequence[Column], rows: Sequence[Sequence[Cell]], width: int
) -> list[int]:
    widths = []
    for index, column in enumerate(columns):
        widest = max((cell_len(_text(row[index])) for row in rows), default=0)
        widths.append(
            max(cell_len(column.header), min(widest, column.max_width or widest))
        )
    # Borders and padding: "│ " before each column, " │" after the last, " │ " between.
    room = width - sum(widths[:-1]) - 3 * len(widths) - 1
    widths[-1] = max(cell_len(columns[-1].header), min(widths[-1], room))
    return widths


def _text(cell: Cell) -> str:
    return cell[0] if isinstance(cell, tuple) else cell


def _fit(text: str, width: int) -> str:
    """``text`` padded to ``width`` cells, or cut to it with a closing "…"."""
    length = cell_len(text)
    if length <= width:
        return text + " " * (width - length)
    return set_cell_size(text, width - 1) + "…"
