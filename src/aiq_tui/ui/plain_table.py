"""A ``DataTable`` that never parses markup (see :mod:`aiq_tui.ui.plain`); its own module so
that Textual's table is loaded only by the screens that show one, after the first frame."""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable

from aiq_tui.ui.plain import plain, plain_cell


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
