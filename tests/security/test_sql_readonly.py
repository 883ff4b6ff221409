"""SQL: read-only enforced by the engine, not by parsing (findings 2, 3 and 11).

Every probe runs through the ``execute_sql`` tool and the permission it asks for; "allowed"
means the policy would let it run without approval (``sql_read``), as under ``--deny-all``.
"""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import time
from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings, load_sources
from aiq_tui.conversation import ToolCall
from aiq_tui.locations import Home
from aiq_tui.tools.policy import PermissionPolicy
from aiq_tui.tools.registry import ToolRegistry, deny_all
from aiq_tui.tools.sql import SqlTool
from aiq_tui.tools.sql_sources import classify_sql


@pytest.fixture
def tool(isolated_home: Home) -> SqlTool:
    isolated_home.ensure()
    return SqlTool(
        ToolSettings(sql_timeout_seconds=2),
        home=isolated_home,
        sources=load_sources(isolated_home),
    )


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    "sql",
    [
        "\ufeffINSERT INTO customers(name) VALUES ('x')",
        "\fDELETE FROM customers",
        "\u200bDROP TABLE books",
        "\u00a0UPDATE customers SET name='x'",
        "\x0bATTACH DATABASE 'x.db' AS x",
        "SELEC 1",
        "REPLACE INTO t VALUES (1)",
        "VACUUM INTO '/tmp/copy.db'",
        "(INSERT INTO t VALUES (1))",
        "PRAGMA user_version = 7",
        "ÀNALYZE",
        "WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x",
    ],
)
def test_disguised_and_unknown_statements_classify_as_writes(sql: str) -> None:
    assert classify_sql(sql) == "write"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT $$;$$, 1; DROP TABLE t",
        "SELECT E'\\'; DROP TABLE t; --'",
        "SELECT $tag$ ; $tag$; DELETE FROM t",
        "SELECT 'a''; DROP TABLE t",
    ],
)
def test_quoting_cannot_hide_a_second_statement_from_the_classifier(sql: str) -> None:
    from aiq_tui.tools.sql_sources import SqlError

    try:
        kind = classify_sql(sql)
    except SqlError:
        return  # refused as several statements: fine
    assert kind == "write" or ";" not in sql.split("'")[0], sql


async def test_bom_attach_on_the_read_only_sample_plants_nothing(
    tool: SqlTool, isolated_home: Home, tmp_path: Path
) -> None:
    """Finding 2: U+FEFF + ATTACH opened another file read-write with no approval."""
    planted = tmp_path / "planted.db"
    registry = ToolRegistry([tool], PermissionPolicy(ToolSettings().permissions))
    for sql in (
        f"\ufeffATTACH DATABASE '{planted}' AS p",
        f"\fATTACH '{planted}' AS p",
        f"ATTACH 'file:{planted}?mode=rwc' AS p",
    ):
        result = await registry.invoke(
            ToolCall("1", "execute_sql", {"sql": sql}), deny_all, lambda e: None
        )
        assert not result.ok
    assert not planted.exists()


async def test_misclassified_writes_are_refused_by_sqlite_itself(
    tool: SqlTool, isolated_home: Home, tmp_path: Path
) -> None:
    await tool.run({"sql": "SELECT 1"})  # creates the sample
    sample = isolated_home.sample_database
    before = _digest(sample)
    source = tool.source("sample")
    from aiq_tui.tools.sql_sources import SqlError, SqlLimits

    for sql in (
        f"ATTACH DATABASE '{tmp_path / 'x.db'}' AS x",
        "DELETE FROM customers",
        "PRAGMA writable_schema=1",
        "PRAGMA journal_mode=DELETE",
        "SELECT load_extension('/tmp/evil.so')",
        f"VACUUM INTO '{tmp_path / 'copy.db'}'",
        "CREATE TEMP TABLE t(x)",
    ):
        with pytest.raises(SqlError):
            source.execute(sql, None, False, SqlLimits())  # as if classified a read
    assert (
        _digest(sample) == before
        and not (tmp_path / "x.db").exists()
        and not (tmp_path / "copy.db").exists()
    )


async def test_reporting_pragmas_and_schema_reads_still_work(tool: SqlTool) -> None:
    info = await tool.run({"sql": "PRAGMA table_info(customers)"})
    assert info.ok and info.content["rows"]
    tables = await tool.run(
        {"sql": "SELECT name FROM sqlite_master WHERE type = 'table'"}
    )
    assert tables.ok and ["customers"] in tables.content["rows"]
    recursive = await tool.run(
        {
            "sql": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<5) "
            "SELECT count(*) FROM n"
        }
    )
    assert recursive.ok and recursive.content["rows"] == [[5]]


async def test_endless_recursive_cte_stops_at_the_deadline(tool: SqlTool) -> None:
    started = time.monotonic()
    result = await tool.run(
        {
            "sql": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) "
            "SELECT max(i) FROM n"
        }
    )
    assert not result.ok and "ran past 2 s" in result.error
    assert time.monotonic() - started < 20


async def test_cancel_interrupts_a_running_query(tool: SqlTool) -> None:
    await tool.run({"sql": "SELECT 1"})
    source = tool.source("sample")
    task = asyncio.create_task(
        tool.run(
            {
                "sql": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) "
                "SELECT max(i) FROM n"
            }
        )
    )
    deadline = time.monotonic() + 60
    while source._running is None:
        assert time.monotonic() < deadline and not task.done(), (
            "the statement never started"
        )
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The connection is free again at once: the statement was interrupted, not abandoned.
    assert (await asyncio.wait_for(tool.run({"sql": "SELECT 2"}), 10)).content[
        "rows"
    ] == [[2]]


async def test_cells_are_capped_in_bytes_and_huge_values_fail_fast(
    tool: SqlTool,
) -> None:
    big = await tool.run({"sql": "SELECT printf('%.*c', 100000, 'x') AS s"})
    assert (
        big.ok
        and len(big.content["rows"][0][0].encode()) <= 4000 + 3
        and big.content["cells_truncated"] == 1
    )
    started = time.monotonic()
    huge = await tool.run({"sql": "SELECT zeroblob(1000000000)"})
    assert not huge.ok and "too big" in huge.error and time.monotonic() - started < 10


async def test_writable_sqlite_source_still_refuses_attach(
    isolated_home: Home, tmp_path: Path
) -> None:
    db = tmp_path / "shop.db"
    sqlite3.connect(db).executescript("CREATE TABLE t (x INTEGER);")
    isolated_home.config_dir.mkdir(parents=True, exist_ok=True)
    isolated_home.sources_file.write_text(
        f"sources:\n  shop:\n    engine: sqlite\n    path: {db}\n    read_only: false\n"
    )
    tool = SqlTool(
        ToolSettings(), home=isolated_home, sources=load_sources(isolated_home)
    )
    result = await tool.run(
        {"sql": f"ATTACH '{tmp_path / 'other.db'}' AS o", "source": "shop"}
    )
    assert not result.ok and not (tmp_path / "other.db").exists()
    assert (await tool.run({"sql": "INSERT INTO t VALUES (1)", "source": "shop"})).ok
