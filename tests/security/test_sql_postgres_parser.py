"""PostgreSQL read-only sources (issue 23, finding 12): statements are classified by
PostgreSQL's own parser (pglast), so a comment nested the way Postgres nests them cannot hide
a COPY; COPY, server-file, server-program and administrative functions are refused on
read-only sources even though a READ ONLY transaction would let them run; without pglast a
read-only source refuses what it cannot prove is a plain read; ``sources check`` warns when a
read-only source's role could reach the server's files or programs.

The server tests start a real PostgreSQL (tests/tools/test_sql_postgres.py); its role is a
superuser, which is exactly the set-up the warning is for.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.config import ToolSettings, load_sources
from aiq_tui.locations import Home
from aiq_tui.tools.sql import SqlTool
from aiq_tui.tools.sql_sources import SqlError
from tests.tools.test_sql_postgres import _sources, postgres_dsn  # noqa: F401 - the server fixture

NESTED_COPY = "/* /* */ SELECT */ COPY (SELECT 1) TO PROGRAM 'touch {marker}'"


# -- the classifier, no server needed ---------------------------------------------------------
def classify_for(engine: str, sql: str, *, has_params: bool = False):
    from aiq_tui.tools.sql_sources import (
        classify_for as classify,
    )  # new with the parser

    return classify(engine, sql, has_params=has_params)


@pytest.mark.parametrize(
    "sql",
    [
        "/* /* */ SELECT */ COPY (SELECT 1) TO PROGRAM 'id'",
        "/* /* */ SELECT */ COPY (SELECT 1) TO '/tmp/x'",
        "COPY t FROM PROGRAM 'id'",
        "SELECT pg_read_file('/etc/passwd')",
        "SELECT * FROM pg_catalog.pg_read_binary_file('x')",
        "SELECT pg_ls_dir('.')",
        "SELECT lo_import('/etc/passwd')",
        "SELECT lo_export(1, '/tmp/x')",
        "SELECT pg_terminate_backend(1)",
        "SELECT pg_cancel_backend(1)",
        "SELECT pg_reload_conf()",
        "SELECT pg_rotate_logfile()",
        "SELECT pg_advisory_lock(1)",
        "SELECT pg_try_advisory_xact_lock(1)",
        "SELECT set_config('standard_conforming_strings', 'off', false)",
        "SELECT dblink_exec('x', 'y')",
        "SELECT query_to_xml('SELECT pg_read_file(''/etc/passwd'')', true, false, '')",
        "SELECT U&\"pg\\005fread\\005ffile\"('/etc/passwd')",
        "WITH x AS (SELECT pg_read_file('/etc/passwd')) SELECT * FROM x",
        "EXPLAIN ANALYZE SELECT pg_terminate_backend(1)",
    ],
)
def test_server_files_programs_and_admin_functions_are_writes_with_a_reason(
    sql: str,
) -> None:
    verdict = classify_for("postgresql", sql)
    assert verdict.kind == "write" and verdict.reason, sql


@pytest.mark.parametrize(
    "sql",
    [
        "WITH x AS (DELETE FROM t RETURNING 1) SELECT * FROM x",
        "SELECT * INTO copy_of_t FROM t",
        "SELECT * FROM t FOR UPDATE",
        "SET statement_timeout = 0",
        "LOAD 'plpgsql'",
        "DO $$ BEGIN END $$",
        "CALL p()",
        "PREPARE q AS SELECT 1",
        "LISTEN x",
        "BEGIN",
    ],
)
def test_statements_that_change_anything_are_writes(sql: str) -> None:
    assert classify_for("postgresql", sql).kind == "write", sql


@pytest.mark.parametrize(
    "sql",
    [
        "/* a /* nested */ comment */ SELECT 1",
        "SELECT 'pg_read_file' AS name",
        "TABLE books",
        "VALUES (1), (2)",
        "SHOW statement_timeout",
        "EXPLAIN SELECT * FROM t",
        "WITH x AS (SELECT 1) SELECT * FROM x",
        "SELECT $$COPY$$, now()",
    ],
)
def test_plain_reads_stay_reads(sql: str) -> None:
    assert classify_for("postgresql", sql).kind == "read", sql


def test_placeholders_are_read_the_way_psycopg_sends_them() -> None:
    assert (
        classify_for(
            "postgresql",
            "SELECT * FROM t WHERE id = %s AND n LIKE '5%%'",
            has_params=True,
        ).kind
        == "read"
    )
    with pytest.raises(SqlError, match="one statement per call"):
        classify_for("postgresql", "SELECT 1; SELECT 2")


def test_without_pglast_a_read_only_postgres_source_refuses_what_it_cannot_prove(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(
        sys.modules, "pglast", None
    )  # as if the extra were not installed
    assert (
        classify_for("postgresql", "SELECT id, title FROM books WHERE id = 7").kind
        == "read"
    )
    for sql in (
        "/* /* */ SELECT */ COPY (SELECT 1) TO PROGRAM 'id'",
        "SELECT pg_read_file('x')",
        "SELECT U&\"pg\\005fread\\005ffile\"('x')",
        "SELECT 1 -- a comment",
        "SELECT $$x$$",
        "SELECT PG_TERMINATE_BACKEND(1)",
    ):
        verdict = classify_for("postgresql", sql)
        assert verdict.kind == "write" and "pglast" in verdict.reason, sql


# -- against a real server ----------------------------------------------------------------------
@pytest.fixture
def pg_tool(
    postgres_dsn: str,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[SqlTool]:
    monkeypatch.setenv("AIQ_TEST_PG", postgres_dsn)
    _sources(isolated_home, postgres_dsn)
    tool = SqlTool(
        ToolSettings(sql_timeout_seconds=5),
        home=isolated_home,
        sources=load_sources(isolated_home),
    )
    yield tool
    tool.close()


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder the server can write to (it may run as the postgres user)."""
    folder = Path(tempfile.mkdtemp(prefix="aiq-pg-shared-"))
    os.chmod(folder, 0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


async def test_a_nested_comment_cannot_disguise_copy_to_program(
    pg_tool: SqlTool, shared_dir: Path
) -> None:
    """Finding 12: Postgres nests comments, the hand tokenizer did not: the COPY ran a program."""
    marker = shared_dir / "ran"
    result = await pg_tool.run(
        {"sql": NESTED_COPY.format(marker=marker), "source": "pg"}
    )
    assert not result.ok and "read-only" in result.error and "COPY" in result.error
    assert not marker.exists()
    written = shared_dir / "written"
    result = await pg_tool.run(
        {"sql": f"/* /* */ SELECT */ COPY (SELECT 1) TO '{written}'", "source": "pg"}
    )
    assert not result.ok and not written.exists()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT pg_reload_conf()",
        "SELECT pg_read_file('PG_VERSION')",
        "SELECT pg_advisory_lock(4242)",
        "SELECT pg_rotate_logfile()",
        "SELECT count(*) FROM pg_ls_dir('.')",
    ],
)
async def test_admin_and_server_file_functions_are_refused_on_a_read_only_source(
    pg_tool: SqlTool, sql: str
) -> None:
    result = await pg_tool.run({"sql": sql, "source": "pg"})
    assert not result.ok and "read-only" in result.error, result
    assert sql.split("(")[0].split()[-1] in result.error  # the function is named


async def test_another_session_cannot_be_terminated_from_a_read_only_source(
    pg_tool: SqlTool, postgres_dsn: str
) -> None:
    import psycopg

    with psycopg.connect(postgres_dsn) as victim:
        pid = victim.info.backend_pid
        result = await pg_tool.run(
            {"sql": f"SELECT pg_terminate_backend({pid})", "source": "pg"}
        )
        assert not result.ok and "pg_terminate_backend" in result.error
        assert victim.execute("SELECT 1").fetchone() == (1,)  # still alive


async def test_reads_with_nested_comments_and_parameters_still_run(
    pg_tool: SqlTool,
) -> None:
    result = await pg_tool.run(
        {
            "sql": "/* a /* b */ c */ SELECT %s::int + 1 AS n, '100%%' AS p",
            "params": [41],
            "source": "pg",
        }
    )
    assert result.ok and result.content["rows"] == [[42, "100%"]], result


def test_sources_check_warns_that_a_read_only_source_runs_as_a_superuser(
    postgres_dsn: str,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("AIQ_TEST_PG", postgres_dsn)
    _sources(isolated_home, postgres_dsn)
    assert main(["sources", "check", "--json"]) == 0
    report = {
        row["name"]: row for row in json.loads(capsys.readouterr().out)["sources"]
    }
    assert report["pg"]["ok"] and any(
        "superuser" in w for w in report["pg"]["warnings"]
    )
    assert not any(
        "superuser" in w for w in report["pgrw"]["warnings"]
    )  # writable: its role is its business
    assert report["sample"]["ok"]
    assert main(["sources", "check", "pg"]) == 0
    out = capsys.readouterr().out
    assert "superuser" in out and "pg_execute_server_program" in out
