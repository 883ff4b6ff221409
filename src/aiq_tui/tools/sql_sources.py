"""SQL data sources behind one small protocol: SQLite built in, PostgreSQL/MySQL via extras.

Read-only is enforced by the database engines, never by parsing alone:

* **SQLite**: reads use a ``mode=ro`` connection *and* an authorizer that allows only reading
  (SELECT, reads, recursive CTEs, functions other than ``load_extension``/file functions, and
  a list of PRAGMAs that only report): ATTACH, DETACH, every write and every other PRAGMA are
  denied by SQLite itself. A write connection (``read_only: false``) still denies ATTACH,
  DETACH and extension loading. The progress handler stops a statement at its deadline or on
  cancel; ``SQLITE_LIMIT_LENGTH`` bounds any value (``zeroblob(1e9)`` fails fast).
* **PostgreSQL**: the session starts with ``default_transaction_read_only=on`` and a
  ``statement_timeout`` on read-only sources; every read runs in a READ ONLY transaction;
  statements go through the extended protocol (a prepared statement), which the server
  refuses to hold more than one statement.
* **MySQL**: ``SET SESSION TRANSACTION READ ONLY`` on read-only sources, ``START TRANSACTION
  READ ONLY`` for reads, multi-statements off (the client flag is never set),
  ``max_execution_time`` for SELECTs.

The classifier only picks the permission key (``sql_read`` or ``sql_write``) and refuses, on
read-only sources, what a read-only transaction would still let run. PostgreSQL statements go
through PostgreSQL's own parser (:mod:`aiq_tui.tools.pg_statements`, :func:`classify_for`);
for SQLite and MySQL :func:`classify_sql` sees through BOMs, zero-width and control
characters, comments, quoted strings, dollar quoting and E'' escapes, and an unknown first
keyword counts as a write.
Cells are capped in bytes like rows are capped in number.
"""

from __future__ import annotations

import os
import re
import threading
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from aiq_tui.config import SourceSettings

if TYPE_CHECKING:  # the driver loads when a source is first used, not at start-up
    import sqlite3

    from aiq_tui.tools.pg_statements import SqlClass

READ_KEYWORDS = frozenset(
    {
        "SELECT",
        "WITH",
        "EXPLAIN",
        "VALUES",
        "SHOW",
        "DESCRIBE",
        "DESC",
        "PRAGMA",
        "TABLE",
    }
)
WRITE_KEYWORDS = frozenset(
    {
        "INSERT",
        "UPDATE",
        "DELETE",
        "REPLACE",
        "MERGE",
        "UPSERT",
        "CREATE",
        "DROP",
        "ALTER",
        "TRUNCATE",
        "ATTACH",
        "DETACH",
        "VACUUM",
        "REINDEX",
        "ANALYZE",
        "GRANT",
        "REVOKE",
        "COPY",
        "CALL",
        "DO",
        "LOCK",
        "BEGIN",
        "COMMIT",
        "ROLLBACK",
        "SAVEPOINT",
        "RELEASE",
        "SET",
        "RESET",
        "CLUSTER",
        "COMMENT",
        "REFRESH",
        "LOAD",
        "IMPORT",
        "RENAME",
        "START",
        "END",
    }
)
_WRITE_WORDS = re.compile(
    r"\b(INSERT|UPDATE|DELETE|REPLACE|MERGE|UPSERT|CREATE|DROP|ALTER|TRUNCATE|ATTACH|DETACH|"
    r"VACUUM|REINDEX|GRANT|REVOKE|COPY|CALL|DO|LOCK|INTO)\b",
    re.IGNORECASE,
)


class SqlError(Exception):
    """A statement or connection problem; ``str()`` is the user-facing message."""


@dataclass(frozen=True)
class SqlOutcome:
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    truncated: bool
    rows_affected: int | None = None
    cells_truncated: int = 0  # how many cells were cut at the byte cap


@dataclass(frozen=True)
class SqlLimits:
    """Per-call limits (from ``tools.sql_*`` settings)."""

    row_cap: int = 200
    cell_bytes: int = 4000
    timeout_s: float = 30.0
    value_limit_bytes: int = 16_000_000


_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")


def _strip_literals(sql: str) -> str:
    """SQL with comments removed and literals blanked (for classification): '…' (with ''
    and, after E or in MySQL style, backslash escapes), "…", `…`, $$…$$ and $tag$…$tag$."""
    out: list[str] = []
    index, length = 0, len(sql)
    while index < length:
        char = sql[index]
        if sql.startswith("--", index) or char == "#":
            end = sql.find("\n", index)
            index = length if end < 0 else end
            out.append(" ")
        elif sql.startswith("/*", index):
            end = sql.find("*/", index + 2)
            index = length if end < 0 else end + 2
            out.append(" ")
        elif (
            char == "$"
            and (tag := _DOLLAR_TAG.match(sql, index)) is not None
            and not (index and (sql[index - 1].isalnum() or sql[index - 1] == "_"))
        ):
            end = sql.find(tag.group(0), tag.end())
            index = length if end < 0 else end + len(tag.group(0))
            out.append(" '' ")
        elif char in ("'", '"', "`"):
            # Backslash escapes: E'…' on PostgreSQL, every '…' on MySQL. Honouring them
            # everywhere can only make a string look longer, never hide a ';' outside it.
            escapes = char == "'"
            end = index + 1
            while end < length:
                if escapes and sql[end] == "\\":
                    end += 2
                    continue
                if sql[end] == char:
                    if end + 1 < length and sql[end + 1] == char:
                        end += 2
                        continue
                    break
                end += 1
            out.append(" '' ")
            index = end + 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _blank_invisible(text: str) -> str:
    """BOMs, zero-width, format and control characters become spaces (SQLite skips a BOM)."""
    return "".join(
        " "
        if ch.isspace() or unicodedata.category(ch) in ("Cf", "Cc", "Zs", "Zl", "Zp")
        else ch
        for ch in text
    )


def classify_sql(sql: str) -> str:
    """``"read"`` or ``"write"``; raises :class:`SqlError` for empty or multi-statement SQL.

    Reads: statements starting with a read keyword (:data:`READ_KEYWORDS`) and no
    data-changing keyword inside (WITH / EXPLAIN), PRAGMA without an assignment, SELECT
    without INTO. Everything else — including a keyword we do not know — is a write. This
    decides only which permission is asked: the engines enforce read-only themselves.
    """
    bare = _blank_invisible(_strip_literals(sql)).strip()
    statements = [part for part in bare.split(";") if part.strip()]
    if not statements:
        raise SqlError("the SQL is empty")
    if len(statements) > 1:
        raise SqlError(
            "one statement per call, please: split the SQL at ';' into separate calls"
        )
    statement = statements[0].strip().lstrip("(").strip()
    match = re.match(r"[A-Za-z_]+", statement)
    keyword = match.group(0).upper() if match else ""
    if keyword not in READ_KEYWORDS:
        return (
            "write"  # a write keyword, or one we do not know: never treated as a read
        )
    if keyword == "PRAGMA":
        return "write" if "=" in statement else "read"
    if keyword in ("WITH", "EXPLAIN") and _WRITE_WORDS.search(statement):
        return "write"
    if keyword == "SELECT" and re.search(r"\bINTO\b", statement, re.IGNORECASE):
        return "write"  # SELECT … INTO creates a table on PostgreSQL
    return "read"


def classify_for(engine: str, sql: str, *, has_params: bool = False) -> SqlClass:
    """How ``sql`` counts on a source of ``engine``: PostgreSQL statements by PostgreSQL's own
    parser (:mod:`aiq_tui.tools.pg_statements`), others by :func:`classify_sql`."""
    from aiq_tui.tools.pg_statements import SqlClass, classify_postgres

    if engine == "postgresql":
        return classify_postgres(sql, has_params)
    return SqlClass(classify_sql(sql))


class SqlSource(Protocol):
    """One configured data source. Implementations are thread-safe and reuse connections."""

    name: str
    engine: str
    read_only: bool

    def execute(
        self, sql: str, params: Sequence[Any] | None, write: bool, limits: SqlLimits
    ) -> SqlOutcome: ...

    def interrupt(self) -> None:
        """Stop the statement running now (from another thread): Esc / Ctrl-C."""
        ...

    def close(self) -> None: ...


def _cap_cell(value: Any, cap: int) -> tuple[Any, bool]:
    if isinstance(value, str) and len(value.encode("utf-8", "surrogatepass")) > cap:
        return value.encode("utf-8", "surrogatepass")[:cap].decode(
            "utf-8", "ignore"
        ) + "…", True
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        if len(data) > cap:
            return f"<blob of {len(data)} bytes; first {cap} shown> " + data[
                :cap
            ].hex(), True
        return data.hex(), False  # JSON-safe and unambiguous
    return value, False


def _fetch(cursor: Any, limits: SqlLimits) -> SqlOutcome:
    if cursor.description is None:
        count = (
            cursor.rowcount
            if isinstance(cursor.rowcount, int) and cursor.rowcount >= 0
            else None
        )
        return SqlOutcome((), (), False, count)
    columns = tuple(str(column[0]) for column in cursor.description)
    raw = cursor.fetchmany(limits.row_cap + 1)
    truncated = len(raw) > limits.row_cap
    cut = 0
    rows: list[tuple[Any, ...]] = []
    for row in raw[: limits.row_cap]:
        cells = []
        for value in row:
            capped, was_cut = _cap_cell(value, limits.cell_bytes)
            cut += was_cut
            cells.append(capped)
        rows.append(tuple(cells))
    return SqlOutcome(columns, tuple(rows), truncated, cells_truncated=cut)


class SqliteSource:
    """A SQLite file. Reads use a ``mode=ro`` connection under the read-only authorizer;
    writes (``read_only: false`` only) a separate read-write one."""

    engine = "sqlite"

    def __init__(self, name: str, path: Path, read_only: bool) -> None:
        self.name, self.path, self.read_only = name, Path(path), read_only
        self._lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None
        self._writer: sqlite3.Connection | None = None
        self._running: sqlite3.Connection | None = None
        self._deadline = 0.0
        self._cancelled = threading.Event()

    def _connect(self, write: bool, limits: SqlLimits) -> sqlite3.Connection:
        import sqlite3

        if not self.path.is_file():
            raise SqlError(
                f"source {self.name!r}: database file not found: {self.path}"
            )
        uri = f"file:{self.path}?mode={'rw' if write else 'ro'}"
        try:
            connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error as exc:
            raise SqlError(
                f"source {self.name!r}: cannot open {self.path}: {exc}"
            ) from exc
        connection.execute("PRAGMA foreign_keys = ON")
        if hasattr(connection, "setlimit"):
            connection.setlimit(
                sqlite3.SQLITE_LIMIT_LENGTH,
                max(limits.value_limit_bytes, limits.cell_bytes),
            )
            connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        from aiq_tui.tools.sqlite_authorizer import (
            read_only_authorizer,
            write_authorizer,
        )

        connection.set_authorizer(write_authorizer if write else read_only_authorizer)
        connection.set_progress_handler(self._progress, 10_000)
        return connection

    def _progress(self) -> int:
        # Non-zero aborts the statement: past the deadline, or cancelled from the UI.
        return 1 if self._cancelled.is_set() or time.monotonic() > self._deadline else 0

    def execute(
        self, sql: str, params: Sequence[Any] | None, write: bool, limits: SqlLimits
    ) -> SqlOutcome:
        import sqlite3

        if write and self.read_only:
            raise SqlError(f"source {self.name!r} is read-only")
        with self._lock:
            if write:
                self._writer = self._writer or self._connect(True, limits)
                connection = self._writer
            else:
                self._reader = self._reader or self._connect(False, limits)
                connection = self._reader
            self._cancelled.clear()
            self._deadline = time.monotonic() + limits.timeout_s
            self._running = connection
            try:
                cursor = connection.execute(sql, tuple(params or ()))
                outcome = _fetch(cursor, limits)
                cursor.close()
                if write:
                    connection.commit()
                return outcome
            except (sqlite3.Error, sqlite3.Warning) as exc:
                if connection.in_transaction:
                    connection.rollback()
                raise SqlError(
                    f"{self._explain(exc, limits)}\nSQL: {sql.strip()}"
                ) from exc
            finally:
                self._running = None

    def _explain(self, exc: Exception, limits: SqlLimits) -> str:
        text = str(exc)
        if "interrupted" in text:
            if self._cancelled.is_set():
                return "the query was cancelled"
            return f"the query ran past {limits.timeout_s:g} s and was stopped (tools.sql_timeout_seconds)"
        if "not authorized" in text:
            return (
                f"{text}: source {self.name!r} is read-only — SQLite refuses ATTACH, DETACH, writes, "
                "extension loading and PRAGMAs that change settings on it"
            )
        if "too big" in text:
            return f"{text} (values are limited to {limits.value_limit_bytes} bytes)"
        if "one statement at a time" in text:
            return "one statement per call, please: split the SQL at ';' into separate calls"
        return text

    def interrupt(self) -> None:
        self._cancelled.set()
        running = self._running
        if running is not None:
            running.interrupt()

    def close(self) -> None:
        with self._lock:
            for connection in (self._reader, self._writer):
                if connection is not None:
                    connection.close()
            self._reader = self._writer = None


_ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_dsn(dsn: str, environ: dict[str, str] | None = None) -> str:
    """Replace ``${VAR}`` from the environment; a missing variable is an error naming it."""
    env = os.environ if environ is None else environ

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise SqlError(
                f"the DSN references ${{{name}}} but that environment variable is not set"
            )
        return env[name]

    return _ENV_REFERENCE.sub(substitute, dsn)


def _pipeline_supported() -> bool:
    import psycopg

    checker = getattr(getattr(psycopg, "Pipeline", None), "is_supported", None)
    return bool(checker()) if checker is not None else False


class PostgresSource:
    """PostgreSQL through psycopg 3 (``pip install 'aiq-tui[postgres]'``)."""

    engine = "postgresql"

    def __init__(self, name: str, dsn: str, read_only: bool) -> None:
        try:
            import psycopg  # noqa: F401
        except ImportError as exc:
            raise SqlError(
                f"source {name!r} uses PostgreSQL but the driver is not installed: "
                "pip install 'aiq-tui[postgres]'"
            ) from exc
        self.name, self.read_only, self._dsn = name, read_only, dsn
        self._lock = threading.Lock()
        self._connection: Any = None

    def execute(
        self, sql: str, params: Sequence[Any] | None, write: bool, limits: SqlLimits
    ) -> SqlOutcome:
        import psycopg

        if write and self.read_only:
            raise SqlError(f"source {self.name!r} is read-only")
        with self._lock:
            try:
                if self._connection is None or self._connection.closed:
                    # standard_conforming_strings as PostgreSQL's parser reads them when it
                    # classifies (pg_statements): a backslash never ends a '…' string.
                    options = (
                        f"-c statement_timeout={int(limits.timeout_s * 1000)}"
                        " -c standard_conforming_strings=on"
                    )
                    if self.read_only:
                        options += " -c default_transaction_read_only=on"
                    self._connection = psycopg.connect(
                        expand_dsn(self._dsn), options=options
                    )
                connection = self._connection
                connection.read_only = not write  # the server enforces reads
                with connection.cursor() as cursor:
                    # Pipeline mode always uses the extended protocol, where the server refuses
                    # a second statement however the text is quoted ($$…$$, E'\\'').
                    # This call's deadline, for this transaction only (the session default
                    # from connect stays as a floor).
                    cursor.execute(
                        "SELECT set_config('statement_timeout', %s, true)",
                        (str(int(limits.timeout_s * 1000)),),
                    )
                    if _pipeline_supported():
                        with connection.pipeline():
                            cursor.execute(sql, tuple(params) if params else None)
                    else:  # libpq < 14: binary results also force the extended protocol
                        cursor.execute(
                            sql, tuple(params) if params else None, binary=True
                        )
                    outcome = _fetch(cursor, limits)
                connection.commit() if write else connection.rollback()
                return outcome
            except psycopg.Error as exc:
                if self._connection is not None and not self._connection.closed:
                    self._connection.rollback()
                text = str(exc).strip()
                if "multiple commands" in text or "more than one" in text:
                    text = "one statement per call, please: split the SQL at ';' into separate calls"
                elif "statement timeout" in text:
                    text = f"the query ran past {limits.timeout_s:g} s and was stopped (tools.sql_timeout_seconds)"
                raise SqlError(f"{text}\nSQL: {sql.strip()}") from exc

    def role_warnings(self, limits: SqlLimits) -> list[str]:
        """What the source's role may do beyond reading: superuser, or membership of a role in
        :data:`SERVER_ACCESS_ROLES`."""
        outcome = self.execute(_ROLE_QUERY, [list(SERVER_ACCESS_ROLES)], False, limits)
        if not outcome.rows:
            return []
        role, superuser, granted = outcome.rows[0]
        fix = (
            "; give this read-only source a role that can only SELECT (CREATE ROLE … LOGIN, "
            "GRANT SELECT …) — the server, not the parser, is what should refuse it"
        )
        if superuser:
            return [
                f"role {role!r} is a superuser: it can run programs and read or write files on the "
                f"database server ({', '.join(SERVER_ACCESS_ROLES)} and more) whatever read_only says{fix}"
            ]
        return [
            f"role {role!r} is a member of {member}, which lets it {_ROLE_POWERS.get(member, 'reach')} "
            f"the database server{fix}"
            for member in granted
        ]

    def interrupt(self) -> None:
        connection = self._connection
        if connection is not None and not connection.closed:
            try:
                connection.cancel()
            except Exception:
                pass

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


class MySqlSource:
    """MySQL/MariaDB through PyMySQL (``pip install 'aiq-tui[mysql]'``).

    The DSN is ``mysql://user:password@host:port/database``.
    """

    engine = "mysql"

    def __init__(self, name: str, dsn: str, read_only: bool) -> None:
        try:
            import pymysql  # noqa: F401
        except ImportError as exc:
            raise SqlError(
                f"source {name!r} uses MySQL but the driver is not installed: pip install 'aiq-tui[mysql]'"
            ) from exc
        self.name, self.read_only, self._dsn = name, read_only, dsn
        self._lock = threading.Lock()
        self._connection: Any = None

    def _connect(self) -> Any:
        from urllib.parse import unquote, urlsplit

        import pymysql

        parts = urlsplit(expand_dsn(self._dsn))
        return pymysql.connect(
            host=parts.hostname or "localhost",
            port=parts.port or 3306,
            user=unquote(parts.username or ""),
            password=unquote(parts.password or ""),
            database=parts.path.lstrip("/") or None,
            autocommit=False,
            client_flag=0,  # never CLIENT.MULTI_STATEMENTS: the server runs one statement per call
        )

    def execute(
        self, sql: str, params: Sequence[Any] | None, write: bool, limits: SqlLimits
    ) -> SqlOutcome:
        import pymysql

        if write and self.read_only:
            raise SqlError(f"source {self.name!r} is read-only")
        with self._lock:
            try:
                if self._connection is None:
                    self._connection = self._connect()
                    with self._connection.cursor() as cursor:
                        if self.read_only:
                            cursor.execute("SET SESSION TRANSACTION READ ONLY")
                        cursor.execute(
                            "SET SESSION max_execution_time = %s",
                            (int(limits.timeout_s * 1000),),
                        )
                connection = self._connection
                with connection.cursor() as cursor:
                    cursor.execute(
                        "START TRANSACTION" if write else "START TRANSACTION READ ONLY"
                    )
                    cursor.execute(sql, tuple(params) if params else None)
                    outcome = _fetch(cursor, limits)
                connection.commit() if write else connection.rollback()
                return outcome
            except pymysql.Error as exc:
                if self._connection is not None:
                    try:
                        self._connection.rollback()
                    except pymysql.Error:
                        self._connection = None
                raise SqlError(f"{exc}\nSQL: {sql.strip()}") from exc

    def interrupt(self) -> None:
        connection = self._connection
        if connection is not None:
            try:
                connection.close()  # the server aborts the statement of a closed session
            except Exception:
                pass
            self._connection = None

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


SERVER_ACCESS_ROLES = (
    "pg_execute_server_program",
    "pg_read_server_files",
    "pg_write_server_files",
)
"""PostgreSQL roles that let a member run programs on, or read/write files of, the database server."""

_ROLE_POWERS = {
    "pg_execute_server_program": "run programs on",
    "pg_read_server_files": "read any file on",
    "pg_write_server_files": "write files on",
}
_ROLE_QUERY = (
    "SELECT r.rolname::text, r.rolsuper, ARRAY(SELECT g.rolname::text FROM pg_roles g "
    "WHERE g.rolname = ANY(%s) AND pg_has_role(r.oid, g.oid, 'MEMBER') ORDER BY 1) "
    "FROM pg_roles r WHERE r.rolname = current_user"
)


@dataclass(frozen=True)
class SourceCheck:
    """What ``aiq-tui sources check`` found for one source."""

    name: str
    engine: str
    read_only: bool
    ok: bool
    problem: str = ""  # why it cannot be used (ok is False)
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "engine": self.engine,
            "read_only": self.read_only,
            "ok": self.ok,
            "problem": self.problem,
            "warnings": list(self.warnings),
        }


def check_source(name: str, source: SqlSource, limits: SqlLimits) -> SourceCheck:
    """Open ``source`` and run a trivial read; for a read-only PostgreSQL source, also warn when
    its role could reach past the database (a READ ONLY transaction does not stop a superuser's
    ``COPY … TO PROGRAM`` or ``pg_read_file``: the parser's refusal would be all that is left)."""
    warnings: list[str] = []
    try:
        source.execute("SELECT 1", None, False, limits)
        if isinstance(source, PostgresSource) and source.read_only:
            warnings = source.role_warnings(limits)
    except SqlError as exc:
        return SourceCheck(
            name, source.engine, source.read_only, False, str(exc).split("\nSQL:")[0]
        )
    return SourceCheck(
        name, source.engine, source.read_only, True, warnings=tuple(warnings)
    )


def open_source(name: str, settings: SourceSettings, home_root: Path) -> SqlSource:
    """A source object for ``settings`` (no connection yet); :class:`SqlError` when unusable."""
    if settings.engine == "sqlite":
        if not settings.path:
            raise SqlError(
                f"source {name!r}: sqlite needs a path in config/sources.yaml"
            )
        path = Path(os.path.expanduser(settings.path))
        return SqliteSource(
            name, path if path.is_absolute() else home_root / path, settings.read_only
        )
    if not settings.dsn:
        raise SqlError(
            f"source {name!r}: {settings.engine} needs a dsn in config/sources.yaml"
        )
    if settings.engine == "postgresql":
        return PostgresSource(name, settings.dsn, settings.read_only)
    return MySqlSource(name, settings.dsn, settings.read_only)
