"""What the offline demo model writes when asked for a report of query results: the shape the
bundled ``data-report`` skill asks for — headline figures, one table of at most
:data:`REPORT_ROWS` rows saying how many were left out, and the SQL used.

Pure: rows in, markdown out. Every figure is computed from the rows the database returned; none
is invented.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

REPORT_ROWS = 15
"""The report's table holds at most this many rows (data-report: "a table of at most ~15
rows; say how many rows were left out") — so a report of many rows stays short."""

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _values(columns: Sequence[str], rows: Sequence[Any], column: str) -> list[Any]:
    index = list(columns).index(column)
    out = []
    for row in rows:
        if isinstance(row, dict):
            out.append(row.get(column))
        elif isinstance(row, (list, tuple)) and index < len(row):
            out.append(row[index])
    return out


def _is_id(column: str) -> bool:
    name = column.lower()
    return name == "id" or name.endswith("_id")


def headline_figures(columns: Sequence[str], rows: Sequence[Any]) -> list[str]:
    """One line per figure: the row count, each numeric column's total and average (ids
    aside), each date column's range."""
    lines = [f"- **{len(rows):,} rows**"]
    for column in columns:
        values = [v for v in _values(columns, rows, column) if v is not None]
        if not values or _is_id(column):
            continue
        if _numeric(values):
            total = sum(values)
            lines.append(
                f"- **{column}**: {total:,.2f} in all, {total / len(values):,.2f} on average"
            )
        elif all(isinstance(v, str) and _DATE.match(v) for v in values):
            lines.append(f"- **{column}**: {min(values)} to {max(values)}")
    return lines


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def findings(columns: Sequence[str], rows: Sequence[Any], limit: int = 3) -> list[str]:
    """At most ``limit`` facts read off the rows: each numeric column's largest value (with the
    row's first column), and the most common value of each text column that has a few values
    shared by many rows (a status, a genre; not names or dates)."""
    out: list[str] = []
    first = columns[0] if columns else ""
    keys = _values(columns, rows, first) if first else []
    for column in columns[1:]:
        values = _values(columns, rows, column)
        present = [v for v in values if v is not None]
        if not present or _is_id(column):
            continue
        if _numeric(present):
            top = max(
                (i for i, v in enumerate(values) if v is not None),
                key=lambda i: values[i],
            )
            out.append(
                f"- The largest {column} is {values[top]:,} ({first} {keys[top]})."
            )
        elif all(isinstance(v, str) and not _DATE.match(v) for v in present):
            kinds = sorted(set(present))
            if 1 < len(kinds) <= 10 and len(kinds) * 2 <= len(present):
                common = max(kinds, key=present.count)
                out.append(
                    f"- {common} is the most common {column}: {present.count(common):,} "
                    f"of {len(present):,} rows."
                )
    return out[:limit]


def report_body(
    columns: Sequence[str],
    rows: Sequence[Any],
    sql: str,
    table: Callable[[Sequence[str], Sequence[Any], int], str],
) -> str:
    """The report's body for one query's result (``table`` draws the markdown table)."""
    shown = min(len(rows), REPORT_ROWS)
    facts = findings(columns, rows)
    left_out = len(rows) - shown
    note = (
        f"The first {shown} of {len(rows):,} rows; {left_out:,} left out."
        if left_out
        else f"All {len(rows):,} rows."
    )
    return (
        "## Headline figures\n\n"
        + "\n".join(headline_figures(columns, rows))
        + f"\n\n## Table\n\n{note}\n\n"
        + table(columns, rows[:shown], shown)
        + ("\n\n## Findings\n\n" + "\n".join(facts) if facts else "")
        + f"\n\n## SQL\n\n```sql\n{sql}\n```"
    )
