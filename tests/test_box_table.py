"""The box table `skills list` prints: rich's heavy-head look, columns as wide as their longest
cell, the last one cut to the width with an ellipsis, styles on exactly the cells they name."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from aiq_tui.cli import main
from aiq_tui.commands.box_table import Column, box_table

Capsys = pytest.CaptureFixture[str]

COLUMNS = (
    Column("name", style="bold", max_width=8),
    Column("status"),
    Column("description"),
)


def test_the_table_reads_like_richs_heavy_head_table() -> None:
    table = box_table(
        "2 skill(s)",
        COLUMNS,
        [("pdf", "active", "Fill forms"), ("sql", ("draft", "yellow"), "Query data")],
        60,
    )
    assert table.plain.splitlines() == [
        "2 skill(s)",
        "┏━━━━━━┳━━━━━━━━┳━━━━━━━━━━━━━┓",
        "┃ name ┃ status ┃ description ┃",
        "┡━━━━━━╇━━━━━━━━╇━━━━━━━━━━━━━┩",
        "│ pdf  │ active │ Fill forms  │",
        "│ sql  │ draft  │ Query data  │",
        "└──────┴────────┴─────────────┘",
    ]


def test_styles_cover_their_cells_only() -> None:
    table = box_table("", COLUMNS, [("pdf", ("draft", "yellow"), "x")], 60)
    styled = {
        table.plain[span.start : span.end]: str(span.style) for span in table.spans
    }
    assert styled["pdf "] == "bold" and styled["draft "] == "yellow"
    assert (
        styled["name"] == styled["status"] == styled["description"] == "bold"
    )  # the header
    assert "x" not in "".join(styled)


def test_long_cells_end_in_an_ellipsis_and_every_line_fits_the_width() -> None:
    table = box_table("", COLUMNS, [("a-very-long-name", "active", "word " * 40)], 40)
    lines = table.plain.splitlines()
    assert {cell_len(line) for line in lines} == {40}
    assert "│ a-very-… │" in lines[3] and lines[3].endswith("… │")


def test_wide_characters_are_measured_in_cells() -> None:
    table = box_table("", COLUMNS, [("表格", "active", "説明です")], 60)
    lines = table.plain.splitlines()
    assert len({cell_len(line) for line in lines}) == 1  # every border lines up
    assert "│ 表格 │" in lines[3]


def test_a_long_listing_prints_every_skill(tmp_path: Path, capsys: Capsys) -> None:
    for index in range(1500):
        folder = tmp_path / f"skill-{index:04d}"
        folder.mkdir()
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{index:04d}\ndescription: Number {index}.\n---\n",
            encoding="utf-8",
        )
    assert main(["skills", "list", "--skills-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert all(f"│ skill-{index:04d} " in out for index in range(1500))
