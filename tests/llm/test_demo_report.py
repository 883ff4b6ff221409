"""The report the demo model writes is the short one the data-report skill asks for: headline
figures computed from the rows, one table of at most REPORT_ROWS rows that says how many were
left out, findings read off the rows, and the SQL — so a report of many rows stays short."""

from __future__ import annotations

from aiq_tui.llm.demo import markdown_table
from aiq_tui.llm.demo_report import REPORT_ROWS, findings, headline_figures, report_body

COLUMNS = ["order_id", "customer", "ordered_on", "status", "total"]


def _orders(n: int) -> list[list[object]]:
    return [
        [
            i,
            f"Customer {i % 7}",
            f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}",
            "delivered" if i % 3 else "pending",
            10.0 + i,
        ]
        for i in range(1, n + 1)
    ]


def test_a_report_of_many_rows_holds_a_short_table_and_says_how_many_were_left_out() -> (
    None
):
    rows = _orders(80)
    body = report_body(COLUMNS, rows, "SELECT …", markdown_table)
    table = [line for line in body.splitlines() if line.startswith("| ")]
    assert len(table) == 1 + REPORT_ROWS  # the header and at most REPORT_ROWS rows
    assert f"The first {REPORT_ROWS} of 80 rows; {80 - REPORT_ROWS} left out." in body
    assert "```sql\nSELECT …\n```" in body
    # the same report for twice the rows is no longer than a few digits more
    assert (
        len(report_body(COLUMNS, _orders(160), "SELECT …", markdown_table))
        < len(body) + 20
    )


def test_headline_figures_are_computed_from_the_rows_and_skip_ids() -> None:
    rows = _orders(4)  # totals 11, 12, 13, 14
    lines = headline_figures(COLUMNS, rows)
    assert lines[0] == "- **4 rows**"
    assert "- **total**: 50.00 in all, 12.50 on average" in lines
    assert any(line.startswith("- **ordered_on**: 2025-") for line in lines)
    assert not any("order_id" in line for line in lines)


def test_findings_name_the_largest_value_and_the_most_common_status() -> None:
    facts = findings(COLUMNS, _orders(12))
    assert "- The largest total is 22.0 (order_id 12)." in facts
    assert "- delivered is the most common status: 8 of 12 rows." in facts
    assert not any(
        "customer" in fact for fact in facts
    )  # 7 names in 12 rows: no pattern


def test_a_small_result_is_reported_whole() -> None:
    body = report_body(COLUMNS, _orders(3), "SELECT 1", markdown_table)
    assert "All 3 rows." in body and "left out" not in body
