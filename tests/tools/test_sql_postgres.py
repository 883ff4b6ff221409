"""execute_sql against a real PostgreSQL server started by the test (skipped when unavailable;
failed instead where ``AIQ_CI_EXPECT`` declares ``postgres``: tests/capabilities.py).

Needs ``initdb``/``pg_ctl`` on PATH and psycopg (``pip install 'aiq-tui[postgres]'``). When the
tests run as root (containers), the server runs as the ``postgres`` user via ``runuser``.
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings, load_sources
from aiq_tui.locations import Home
from aiq_tui.tools.sql import SqlTool
from tests.capabilities import missing

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def postgres_dsn() -> Iterator[str]:
    try:
        import psycopg  # noqa: F401 - the client the tool uses
    except ImportError:
        missing(
            "postgres", "psycopg is not installed (pip install -e '.[dev]' brings it)"
        )
    # Debian keeps the server binaries off PATH, under /usr/lib/postgresql/<version>/bin.
    server_dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    search = os.pathsep.join([os.environ.get("PATH", ""), *server_dirs])
    initdb, pg_ctl = (
        shutil.which("initdb", path=search),
        shutil.which("pg_ctl", path=search),
    )
    if not initdb or not pg_ctl:
        missing(
            "postgres", "PostgreSQL server binaries (initdb, pg_ctl) are not installed"
        )
    prefix: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        runuser = shutil.which("runuser")
        try:
            import pwd

            pwd.getpwnam("postgres")
        except (KeyError, ImportError):
            runuser = None
        if not runuser:
            missing(
                "postgres",
                "running as root without a postgres user to start the server",
            )
        prefix = [runuser, "-u", "postgres", "--"]
    base = Path(tempfile.mkdtemp(prefix="aiq-pg-"))
    data = base / "data"
    if prefix:
        shutil.chown(base, "postgres")
        os.chmod(base, 0o755)
    port = _free_port()
    try:
        subprocess.run(
            [
                *prefix,
                initdb,
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        subprocess.run(
            [
                *prefix,
                pg_ctl,
                "-D",
                str(data),
                "-w",
                "-t",
                "60",
                "-l",
                str(base / "log"),
                "-o",
                f"-p {port} -k {base} -c listen_addresses=127.0.0.1",
                "start",
            ],
            check=True,
            capture_output=True,
            timeout=90,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        shutil.rmtree(base, ignore_errors=True)
        output = (exc.stderr or b"").decode(errors="replace").strip()[-400:]
        missing(
            "postgres",
            f"could not start PostgreSQL: {exc}" + (f": {output}" if output else ""),
        )
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(base, ignore_errors=True)


def _sources(home: Home, dsn: str) -> None:
    home.config_dir.mkdir(parents=True, exist_ok=True)
    home.sources_file.write_text(
        "sources:\n"
        f'  pg:\n    engine: postgresql\n    dsn: "${{AIQ_TEST_PG}}"\n    read_only: true\n'
        f"  pgrw:\n    engine: postgresql\n    dsn: {dsn}\n    read_only: false\n"
    )


async def test_postgres_read_write_and_read_only(
    postgres_dsn: str, isolated_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIQ_TEST_PG", postgres_dsn)
    _sources(isolated_home, postgres_dsn)
    tool = SqlTool(
        ToolSettings(sql_row_cap=3),
        home=isolated_home,
        sources=load_sources(isolated_home),
    )
    try:
        created = await tool.run(
            {
                "sql": "CREATE TABLE IF NOT EXISTS shelf (id int, title text)",
                "source": "pgrw",
            }
        )
        assert created.ok, created.error
        inserted = await tool.run(
            {
                "sql": "INSERT INTO shelf SELECT g, 'Book ' || g FROM generate_series(1, 5) g",
                "source": "pgrw",
            }
        )
        assert inserted.ok and inserted.content["rows_affected"] == 5
        rows = await tool.run(
            {
                "sql": "SELECT id, title FROM shelf WHERE id > %s ORDER BY id",
                "params": [0],
                "source": "pg",
            }
        )
        assert rows.ok and rows.content["columns"] == ["id", "title"]
        assert (
            rows.content["rows"] == [[1, "Book 1"], [2, "Book 2"], [3, "Book 3"]]
            and rows.content["truncated"]
        )
        refused = await tool.run({"sql": "DELETE FROM shelf", "source": "pg"})
        assert not refused.ok and "read-only" in refused.error
        # A write disguised as a read still hits a READ ONLY transaction on the server.
        sneaky = await tool.run({"sql": "SELECT 1 FROM shelf; ", "source": "pgrw"})
        assert sneaky.ok
        bad = await tool.run({"sql": "SELECT * FROM missing_table", "source": "pg"})
        assert not bad.ok and "missing_table" in bad.error and "SQL:" in bad.error
        again = await tool.run({"sql": "SELECT count(*) FROM shelf", "source": "pg"})
        assert again.ok and again.content["rows"] == [
            [5]
        ]  # the connection survived the error
    finally:
        await tool.run({"sql": "DROP TABLE IF EXISTS shelf", "source": "pgrw"})
        tool.close()


async def test_postgres_quoting_cannot_smuggle_a_second_statement(
    postgres_dsn: str, isolated_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 3: $$…$$ and E'\\'' hid a ';' and a second statement dropped a table."""
    monkeypatch.setenv("AIQ_TEST_PG", postgres_dsn)
    _sources(isolated_home, postgres_dsn)
    tool = SqlTool(
        ToolSettings(sql_timeout_seconds=2),
        home=isolated_home,
        sources=load_sources(isolated_home),
    )
    try:
        assert (
            await tool.run(
                {"sql": "CREATE TABLE IF NOT EXISTS keep (id int)", "source": "pgrw"}
            )
        ).ok
        for sql in (
            "SELECT $$;$$; DROP TABLE keep",
            "SELECT E'\\''; DROP TABLE keep; --'",
            "SELECT '\\'; DROP TABLE keep; --'",
            "SELECT 1 # 2; DROP TABLE keep",
            "SELECT $a$x$a$; DROP TABLE keep",
        ):
            # Sent straight to the engine as a read, bypassing the classifier: the server refuses.
            from aiq_tui.tools.sql_sources import SqlError, SqlLimits

            source = tool.source("pg")
            with pytest.raises(SqlError):
                await asyncio.to_thread(source.execute, sql, None, False, SqlLimits())
            result = await tool.run({"sql": sql, "source": "pg"})
            assert not result.ok, sql
        # A read-only source refuses a write even inside an explicitly writable transaction attempt.
        for sql in (
            "SET default_transaction_read_only = off",
            "COMMIT",
            "CREATE TABLE x (i int)",
        ):
            assert not (await tool.run({"sql": sql, "source": "pg"})).ok
        still = await tool.run({"sql": "SELECT count(*) FROM keep", "source": "pg"})
        assert still.ok, still.error
        shown = await tool.run({"sql": "SHOW statement_timeout", "source": "pg"})
        assert shown.content["rows"] == [["2s"]], shown
        slow = await tool.run({"sql": "SELECT pg_sleep(10)", "source": "pg"})
        assert not slow.ok and "ran past 2 s" in slow.error
    finally:
        await tool.run({"sql": "DROP TABLE IF EXISTS keep", "source": "pgrw"})
        tool.close()


async def test_postgres_without_pipeline_mode_still_refuses_a_second_statement(
    postgres_dsn: str, isolated_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libpq < 14 has no pipeline mode: binary results force the extended protocol instead."""
    from aiq_tui.tools import sql_sources

    monkeypatch.setattr(sql_sources, "_pipeline_supported", lambda: False)
    monkeypatch.setenv("AIQ_TEST_PG", postgres_dsn)
    _sources(isolated_home, postgres_dsn)
    tool = SqlTool(
        ToolSettings(), home=isolated_home, sources=load_sources(isolated_home)
    )
    try:
        source = tool.source("pg")
        with pytest.raises(sql_sources.SqlError, match="one statement per call"):
            await asyncio.to_thread(
                source.execute,
                "SELECT $$;$$; SELECT 2",
                None,
                False,
                sql_sources.SqlLimits(),
            )
        rows = await tool.run({"sql": "SELECT 1 AS one, 'x' AS t", "source": "pg"})
        assert rows.ok and rows.content["rows"] == [[1, "x"]]
    finally:
        tool.close()
