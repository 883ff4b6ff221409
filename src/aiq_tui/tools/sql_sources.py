"""SQL data sources behind one small protocol: SQLite built in, PostgreSQL/MySQL via extras.

Every source runs *read* statements on a read-only path even when the source itself is
writable (SQLite: a second ``mode=ro`` connection; PostgreSQL: a ``READ ONLY`` transaction;
MySQL: ``START TRANSACTION READ ONLY``), so a statement misclassified as a read still cannot
change data. Write statements run only on sources configured ``read_only: false``.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Sequence

from aiq_tui.config import SourceSettings

if TYPE_CHECKING:  # the driver loads when a source is first used, not at start-up
    import sqlite3

READ_KEYWORDS = frozenset({"SELECT", "WITH", "EXPLAIN", "VALUES", "SHOW", "DESCRIBE", "DESC", "PRAGMA", "TABLE"})
WRITE_KEYWORDS = frozenset({
    "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE", "UPSERT", "CREATE", "DROP", "ALTER",
    "TRUNCATE", "ATTACH", "DETACH", "VACUUM", "REINDEX", "ANALYZE", "GRANT", "REVOKE", "COPY",
    "CALL", "DO", "LOCK", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "SET", "RESET",
    "CLUSTER", "COMMENT", "REFRESH", "LOAD", "IMPORT", "RENAME", "START", "END",
})
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


def _strip_literals(sql: str) -> str:
    """SQL with comments removed and string/identifier literals blanked (for classification)."""
    out: list[str] = []
    index, length = 0, len(sql)
    while index < length:
        char = sql[index]
        if sql.startswith("--", index):
            end = sql.find("\n", index)
            index = length if end < 0 else end
            out.append(" ")
        elif sql.startswith("/*", index):
            end = sql.find("*/", index + 2)
            index = length if end < 0 else end + 2
            out.append(" ")
        elif char in ("'", '"', "`"):
            end = index + 1
            while end < length:
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


def classify_sql(sql: str) -> str:
    """``"read"`` or ``"write"``; raises :class:`SqlError` for empty or multi-statement SQL.

    Writes: statements starting with a data- or schema-changing keyword (:data:`WRITE_KEYWORDS`),
    PRAGMA with an assignment, WITH / EXPLAIN containing a data-changing keyword, SELECT … INTO.
    Everything else is a read — safe because reads always run on a read-only connection or
    transaction, so a misclassified write fails there instead of changing data.
    """
    bare = _strip_literals(sql).strip()
    statements = [part for part in bare.split(";") if part.strip()]
    if not statements:
        raise SqlError("the SQL is empty")
    if len(statements) > 1:
        raise SqlError("one statement per call, please: split the SQL at ';' into separate calls")
    statement = statements[0].strip()
    keyword = statement.split(None, 1)[0].upper().lstrip("(")
    if keyword in WRITE_KEYWORDS:
        return "write"
    if keyword not in READ_KEYWORDS:
        # Not a statement we know: it runs on the read-only path, where the engine itself
        # reports the error (a typo like SELEC) or refuses any change.
        return "read"
    if keyword == "PRAGMA":
        return "write" if "=" in statement else "read"
    if keyword in ("WITH", "EXPLAIN") and _WRITE_WORDS.search(statement):
        return "write"
    if keyword == "SELECT" and re.search(r"\bINTO\b", statement, re.IGNORECASE):
        return "write"  # SELECT … INTO creates a table on PostgreSQL
    return "read"


class SqlSource(Protocol):
    """One configured data source. Implementations are thread-safe and reuse connections."""

    name: str
    engine: str
    read_only: bool

    def execute(self, sql: str, params: Sequence[Any] | None, write: bool, row_cap: int) -> SqlOutcome: ...

    def close(self) -> None: ...


def _fetch(cursor: Any, row_cap: int) -> SqlOutcome:
    if cursor.description is None:
        count = cursor.rowcount if isinstance(cursor.rowcount, int) and cursor.rowcount >= 0 else None
        return SqlOutcome((), (), False, count)
    columns = tuple(str(column[0]) for column in cursor.description)
    rows = cursor.fetchmany(row_cap + 1)
    truncated = len(rows) > row_cap
    return SqlOutcome(columns, tuple(tuple(row) for row in rows[:row_cap]), truncated)


class SqliteSource:
    """A SQLite file. Reads use a ``mode=ro`` connection; writes a separate read-write one."""

    engine = "sqlite"

    def __init__(self, name: str, path: Path, read_only: bool) -> None:
        self.name, self.path, self.read_only = name, Path(path), read_only
        self._lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None
        self._writer: sqlite3.Connection | None = None

    def _connect(self, write: bool) -> sqlite3.Connection:
        import sqlite3

        if not self.path.is_file():
            raise SqlError(f"source {self.name!r}: database file not found: {self.path}")
        uri = f"file:{self.path}?mode={'rw' if write else 'ro'}"
        try:
            connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error as exc:
            raise SqlError(f"source {self.name!r}: cannot open {self.path}: {exc}") from exc
        connection.execute("PRAGMA foreign_keys = ON")
        return connection

    def execute(self, sql: str, params: Sequence[Any] | None, write: bool, row_cap: int) -> SqlOutcome:
        import sqlite3

        if write and self.read_only:
            raise SqlError(f"source {self.name!r} is read-only")
        with self._lock:
            if write:
                self._writer = self._writer or self._connect(True)
                connection = self._writer
            else:
                self._reader = self._reader or self._connect(False)
                connection = self._reader
            try:
                cursor = connection.execute(sql, tuple(params or ()))
                outcome = _fetch(cursor, row_cap)
                cursor.close()
                if write:
                    connection.commit()
                return outcome
            except sqlite3.Error as exc:
                if connection.in_transaction:
                    connection.rollback()
                raise SqlError(f"{exc}\nSQL: {sql.strip()}") from exc

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
            raise SqlError(f"the DSN references ${{{name}}} but that environment variable is not set")
        return env[name]

    return _ENV_REFERENCE.sub(substitute, dsn)


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

    def execute(self, sql: str, params: Sequence[Any] | None, write: bool, row_cap: int) -> SqlOutcome:
        import psycopg

        if write and self.read_only:
            raise SqlError(f"source {self.name!r} is read-only")
        with self._lock:
            try:
                if self._connection is None or self._connection.closed:
                    self._connection = psycopg.connect(expand_dsn(self._dsn))
                connection = self._connection
                connection.read_only = not write  # the server enforces reads
                with connection.cursor() as cursor:
                    cursor.execute(sql, tuple(params) if params else None)
                    outcome = _fetch(cursor, row_cap)
                connection.commit() if write else connection.rollback()
                return outcome
            except psycopg.Error as exc:
                if self._connection is not None and not self._connection.closed:
                    self._connection.rollback()
                raise SqlError(f"{str(exc).strip()}\nSQL: {sql.strip()}") from exc

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
        )

    def execute(self, sql: str, params: Sequence[Any] | None, write: bool, row_cap: int) -> SqlOutcome:
        import pymysql

        if write and self.read_only:
            raise SqlError(f"source {self.name!r} is read-only")
        with self._lock:
            try:
                if self._connection is None:
                    self._connection = self._connect()
                connection = self._connection
                with connection.cursor() as cursor:
                    cursor.execute("START TRANSACTION" if write else "START TRANSACTION READ ONLY")
                    cursor.execute(sql, tuple(params) if params else None)
                    outcome = _fetch(cursor, row_cap)
                connection.commit() if write else connection.rollback()
                return outcome
            except pymysql.Error as exc:
                if self._connection is not None:
                    try:
                        self._connection.rollback()
                    except pymysql.Error:
                        self._connection = None
                raise SqlError(f"{exc}\nSQL: {sql.strip()}") from exc

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


def open_source(name: str, settings: SourceSettings, home_root: Path) -> SqlSource:
    """A source object for ``settings`` (no connection yet); :class:`SqlError` when unusable."""
    if settings.engine == "sqlite":
        if not settings.path:
            raise SqlError(f"source {name!r}: sqlite needs a path in config/sources.yaml")
        path = Path(os.path.expanduser(settings.path))
        return SqliteSource(name, path if path.is_absolute() else home_root / path, settings.read_only)
    if not settings.dsn:
        raise SqlError(f"source {name!r}: {settings.engine} needs a dsn in config/sources.yaml")
    if settings.engine == "postgresql":
        return PostgresSource(name, settings.dsn, settings.read_only)
    return MySqlSource(name, settings.dsn, settings.read_only)
