"""execute_sql: sources.yaml, the bundled sample database, read-only by default, row caps (seed 000)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from aiq_tui.config import SourcesFile, ToolSettings, load_sources
from aiq_tui.locations import Home
from aiq_tui.tools.sample_db import TABLES, ensure_sample_database, is_valid_sample
from aiq_tui.tools.sql import SqlTool
from aiq_tui.tools.sql_sources import SqlError, SqlLimits, classify_sql


@pytest.fixture
def tool(settings: ToolSettings, home: Home) -> SqlTool:
    return SqlTool(settings, home=home, sources=load_sources(home))


def writable_sources(home: Home, path: Path) -> SourcesFile:
    home.config_dir.mkdir(parents=True, exist_ok=True)
    home.sources_file.write_text(
        f"default: shop\nsources:\n  shop:\n    engine: sqlite\n    path: {path}\n    read_only: false\n"
    )
    return load_sources(home)


def test_sample_database_is_a_deterministic_bookshop(tmp_path: Path) -> None:
    first = ensure_sample_database(tmp_path / "a" / "sample.db")
    second = ensure_sample_database(tmp_path / "b" / "sample.db")
    dump = lambda p: list(sqlite3.connect(p).iterdump())  # noqa: E731
    assert dump(first) == dump(second)
    connection = sqlite3.connect(first)
    counts = {
        t: connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES
    }
    assert all(count >= 40 for count in counts.values()) and sum(counts.values()) > 500
    assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
    columns = {row[1] for row in connection.execute("PRAGMA table_info(books)")}
    assert {"title", "author_id", "genre", "price", "published_year"} <= columns
    assert (
        connection.execute(
            "SELECT count(*) FROM sqlite_master WHERE type='index'"
        ).fetchone()[0]
        >= 5
    )


def test_sample_database_is_not_regenerated_when_valid(tmp_path: Path) -> None:
    path = ensure_sample_database(tmp_path / "sample.db")
    before = path.stat().st_mtime_ns
    ensure_sample_database(path)
    assert path.stat().st_mtime_ns == before


def test_corrupt_sample_database_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "sample.db"
    path.write_bytes(b"not a database")
    assert not is_valid_sample(path)
    ensure_sample_database(path)
    assert is_valid_sample(path) and [p.name for p in tmp_path.iterdir()] == [
        "sample.db"
    ]


async def test_sql_select_on_default_sample_source(tool: SqlTool, home: Home) -> None:
    result = await tool.run(
        {"sql": "SELECT genre, count(*) AS n FROM books GROUP BY genre ORDER BY genre"}
    )
    assert result.ok, result.error
    assert (
        result.content["columns"] == ["genre", "n"]
        and result.content["source"] == "sample"
    )
    assert (
        result.content["row_count"] == len(result.content["rows"]) > 3
        and not result.content["truncated"]
    )
    assert home.sample_database.is_file()


async def test_sql_join_across_bookshop_tables(tool: SqlTool) -> None:
    result = await tool.run(
        {
            "sql": """
        SELECT c.name, sum(oi.quantity * oi.unit_price) AS spent
        FROM customers c JOIN orders o ON o.customer_id = c.id JOIN order_items oi ON oi.order_id = o.id
        GROUP BY c.id ORDER BY spent DESC LIMIT 5"""
        }
    )
    assert result.ok and result.content["row_count"] == 5


async def test_sql_rows_are_capped(home: Home) -> None:
    tool = SqlTool(ToolSettings(sql_row_cap=7), home=home, sources=load_sources(home))
    result = await tool.run({"sql": "SELECT * FROM customers"})
    assert (
        result.content["row_count"] == 7
        and result.content["truncated"]
        and "capped at 7" in result.summary
    )


async def test_sql_params(tool: SqlTool) -> None:
    result = await tool.run({"sql": "SELECT id FROM books WHERE id = ?", "params": [3]})
    assert result.content["rows"] == [[3]]


async def test_sql_write_on_read_only_source_is_refused_clearly(tool: SqlTool) -> None:
    result = await tool.run({"sql": "DELETE FROM books"})
    assert (
        not result.ok
        and "read-only" in result.error
        and "read_only: false" in result.error
    )
    assert "SQL: DELETE FROM books" in result.error
    count = await tool.run({"sql": "SELECT count(*) FROM books"})
    assert count.content["rows"] == [[150]]


async def test_sql_unknown_source_lists_known_ones(tool: SqlTool) -> None:
    result = await tool.run({"sql": "SELECT 1", "source": "warehouse"})
    assert (
        not result.ok
        and "unknown source 'warehouse'" in result.error
        and "known sources: sample" in result.error
    )


async def test_sql_bad_sql_reports_sqlite_message_and_the_sql(tool: SqlTool) -> None:
    result = await tool.run({"sql": "SELECT * FROM FROM books"})
    assert (
        not result.ok
        and "syntax error" in result.error
        and "SQL: SELECT * FROM FROM books" in result.error
    )
    typo = await tool.run(
        {"sql": "SELEC * FROM books"}
    )  # an unknown first keyword counts as a write
    assert not typo.ok and "read-only" in typo.error and "SELEC" in typo.error
    missing = await tool.run({"sql": "SELECT * FROM nope"})
    assert "no such table: nope" in missing.error


async def test_sql_multiple_statements_are_refused(tool: SqlTool) -> None:
    result = await tool.run({"sql": "SELECT 1; DROP TABLE books"})
    assert not result.ok and "one statement per call" in result.error


async def test_sql_write_on_writable_source_commits(home: Home, tmp_path: Path) -> None:
    db = tmp_path / "shop.db"
    sqlite3.connect(db).executescript("CREATE TABLE t (x INTEGER);")
    tool = SqlTool(ToolSettings(), home=home, sources=writable_sources(home, db))
    inserted = await tool.run({"sql": "INSERT INTO t VALUES (1), (2)"})
    assert inserted.ok and inserted.content["rows_affected"] == 2
    assert sqlite3.connect(db).execute("SELECT count(*) FROM t").fetchone() == (2,)


async def test_sql_reads_use_a_read_only_connection_even_on_writable_sources(
    home: Home, tmp_path: Path
) -> None:
    db = tmp_path / "shop.db"
    sqlite3.connect(db).executescript("CREATE TABLE t (x INTEGER);")
    tool = SqlTool(ToolSettings(), home=home, sources=writable_sources(home, db))
    source = tool.source("shop")
    with pytest.raises(SqlError, match="not authorized"):
        source.execute(
            "INSERT INTO t VALUES (1)", None, False, SqlLimits(row_cap=10)
        )  # misclassified as a read


async def test_sql_connections_are_reused_per_source(tool: SqlTool) -> None:
    await tool.run({"sql": "SELECT 1"})
    first = tool.source("sample")
    await tool.run({"sql": "SELECT 2"})
    assert (
        tool.source("sample") is first and first._reader is not None
    )  # one cached connection


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("SELECT * FROM t", "read"),
        ("  with x as (select 1) select * from x", "read"),
        ("EXPLAIN QUERY PLAN SELECT 1", "read"),
        ("PRAGMA table_info(books)", "read"),
        ("-- comment\nSELECT 'DELETE'", "read"),
        ("VALUES (1)", "read"),
        ("PRAGMA journal_mode = WAL", "write"),
        ("INSERT INTO t VALUES (1)", "write"),
        ("UPDATE t SET x = 1", "write"),
        ("DELETE FROM t", "write"),
        ("DROP TABLE t", "write"),
        ("CREATE TABLE t (x)", "write"),
        ("ATTACH 'x.db' AS x", "write"),
        ("VACUUM", "write"),
        ("WITH x AS (SELECT 1) DELETE FROM t", "write"),
        ("SELECT * INTO t2 FROM t", "write"),
        ("/* hi */ REPLACE INTO t VALUES (1)", "write"),
    ],
)
def test_sql_statement_classification(sql: str, kind: str) -> None:
    assert classify_sql(sql) == kind


def test_sql_permission_keys(tool: SqlTool) -> None:
    assert tool.permission_key({"sql": "SELECT 1"}) == "sql_read"
    assert tool.permission_key({"sql": "DELETE FROM t"}) == "sql_write"
    # The approval shows the statement as it will run (issue 23: exact, control characters
    # escaped by the approval itself), not a reflowed copy.
    assert tool.describe({"sql": "SELECT\n  1", "source": "x"}) == "[x] SELECT\n  1"


@pytest.mark.parametrize(
    ("engine", "module", "extra"),
    [("postgresql", "psycopg", "postgres"), ("mysql", "pymysql", "mysql")],
)
async def test_missing_driver_error_names_the_extra(
    home: Home, monkeypatch: pytest.MonkeyPatch, engine: str, module: str, extra: str
) -> None:
    monkeypatch.setitem(
        sys.modules, module, None
    )  # importing it now raises ImportError
    home.config_dir.mkdir(parents=True, exist_ok=True)
    home.sources_file.write_text(
        f"sources:\n  db:\n    engine: {engine}\n    dsn: x://localhost/x\n"
    )
    tool = SqlTool(ToolSettings(), home=home, sources=load_sources(home))
    result = await tool.run({"sql": "SELECT 1", "source": "db"})
    assert not result.ok and f"pip install 'aiq-tui[{extra}]'" in result.error
