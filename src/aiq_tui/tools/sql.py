"""``execute_sql``: one statement against a source from ``config/sources.yaml``.

Sources are opened lazily and reused (one :class:`SqlSource` per name, connections kept). The
built-in ``sample`` source is the bundled bookshop database, generated on first use. Reads
(``sql_read``) are allowed by default; writes (``sql_write``) ask and are refused outright on
read-only sources. Results: ``{"columns", "rows", "row_count", "truncated"}`` capped at
``tools.sql_row_cap`` rows and ``tools.sql_cell_bytes`` per cell; a statement stops after
``tools.sql_timeout_seconds`` or when the turn is cancelled. Read-only is enforced by each
engine (see :mod:`aiq_tui.tools.sql_sources`); the classifier picks the permission, and on a
read-only PostgreSQL source refuses what a READ ONLY transaction would still run (COPY, server
files and programs, administrative functions: :mod:`aiq_tui.tools.pg_statements`).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import Any

from aiq_tui.config import SourcesFile, ToolSettings
from aiq_tui.conversation import ToolSpec
from aiq_tui.locations import Home
from aiq_tui.tools.base import ToolResult
from aiq_tui.tools.pg_statements import SqlClass
from aiq_tui.tools.sql_sources import (
    SqlError,
    SqlLimits,
    SqlSource,
    classify_for,
    open_source,
)


def _spec(sources: SourcesFile) -> ToolSpec:
    listed = "; ".join(
        f"{name} ({settings.engine}{', read-only' if settings.read_only else ''})"
        + (f": {settings.description}" if settings.description else "")
        for name, settings in sorted(sources.sources.items())
    )
    return ToolSpec(
        name="execute_sql",
        description=(
            f"Run one SQL statement on a configured data source and return columns and rows. "
            f"Default source: {sources.default}. Sources: {listed}."
        ),
        parameters={
            "type": "object",
            "properties": {
                "sql": {"type": "string", "description": "One SQL statement."},
                "source": {
                    "type": "string",
                    "description": f"Source name (default {sources.default}).",
                },
                "params": {
                    "type": "array",
                    "description": "Positional parameters (? for SQLite, %s for PostgreSQL/MySQL).",
                },
            },
            "required": ["sql"],
            "additionalProperties": False,
        },
    )


class SqlTool:
    """The ``execute_sql`` tool over the sources of one config home."""

    def __init__(
        self, settings: ToolSettings, *, home: Home, sources: SourcesFile
    ) -> None:
        self._settings = settings
        self._home = home
        self._sources = sources
        self._open: dict[str, SqlSource] = {}
        self._lock = threading.Lock()
        self._spec = _spec(sources)

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def _source_name(self, arguments: dict[str, Any]) -> str:
        return str(arguments.get("source") or self._sources.default or "sample")

    def _classify(self, arguments: dict[str, Any]) -> SqlClass:
        """How the statement counts on its source's engine (:class:`SqlError` when it cannot run)."""
        settings = self._sources.sources.get(self._source_name(arguments))
        engine = settings.engine if settings is not None else "sqlite"
        return classify_for(
            engine,
            str(arguments.get("sql", "")),
            has_params=bool(arguments.get("params")),
        )

    def permission_key(self, arguments: dict[str, Any]) -> str:
        try:
            return (
                "sql_read" if self._classify(arguments).kind == "read" else "sql_write"
            )
        except SqlError:
            return "sql_read"  # run() refuses it with the reason; nothing executes

    def describe(self, arguments: dict[str, Any]) -> str:
        # The statement as it will run, line breaks and all: the approval escapes what is invisible.
        return (
            f"[{self._source_name(arguments)}] {str(arguments.get('sql', '')).strip()}"
        )

    def source(self, name: str) -> SqlSource:
        """The (cached) source called ``name``; :class:`SqlError` naming the known ones."""
        with self._lock:
            if name in self._open:
                return self._open[name]
            settings = self._sources.sources.get(name)
            if settings is None:
                known = ", ".join(sorted(self._sources.sources)) or "none"
                raise SqlError(
                    f"unknown source {name!r}; known sources: {known} (config/sources.yaml)"
                )
            if (
                settings.engine == "sqlite"
                and settings.path
                and _same_file(
                    settings.path, self._home.root, self._home.sample_database
                )
            ):
                from aiq_tui.tools.sample_db import (
                    ensure_sample_database,
                )  # sqlite3: only when used

                ensure_sample_database(self._home.sample_database)
            source = open_source(name, settings, self._home.root)
            self._open[name] = source
            return source

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        sql = arguments.get("sql")
        if not isinstance(sql, str):
            return ToolResult.failure("sql must be a string")
        params = arguments.get("params")
        if params is not None and not isinstance(params, list):
            return ToolResult.failure("params must be an array")
        name = self._source_name(arguments)
        started = time.perf_counter()
        try:
            verdict = self._classify(arguments)
            write = verdict.kind == "write"
            source = self.source(name)
            if write and source.read_only and verdict.reason:
                return ToolResult.failure(
                    f"source {name!r} is read-only, so this statement was not run: {verdict.reason}.\n"
                    f"SQL: {sql.strip()}"
                )
            if write and source.read_only:
                return ToolResult.failure(
                    f"source {name!r} is read-only, so this write statement was not run"
                    f"{_unknown_keyword_note(sql)}. "
                    f"Set read_only: false for {name!r} in config/sources.yaml to allow writes.\nSQL: {sql.strip()}"
                )
            limits = SqlLimits(
                row_cap=self._settings.sql_row_cap,
                cell_bytes=self._settings.sql_cell_bytes,
                timeout_s=self._settings.sql_timeout_seconds,
                value_limit_bytes=self._settings.sql_value_limit_bytes,
            )
            running = asyncio.ensure_future(
                asyncio.to_thread(source.execute, sql, params, write, limits)
            )
            try:
                outcome = await asyncio.shield(running)
            except asyncio.CancelledError:
                # Esc / Ctrl-C: stop the statement in the database, not just stop waiting for it.
                source.interrupt()
                raise
        except SqlError as exc:
            return ToolResult.failure(
                str(exc) if "SQL:" in str(exc) else f"{exc}\nSQL: {sql.strip()}"
            )
        content: dict[str, Any] = {
            "source": name,
            "columns": list(outcome.columns),
            "rows": [list(row) for row in outcome.rows],
            "row_count": len(outcome.rows),
            "truncated": outcome.truncated,
            "duration_s": round(time.perf_counter() - started, 4),
        }
        if outcome.rows_affected is not None:
            content["rows_affected"] = outcome.rows_affected
        if outcome.cells_truncated:
            content["cells_truncated"] = outcome.cells_truncated
            content["cell_cap_bytes"] = self._settings.sql_cell_bytes
        if outcome.columns:
            summary = (
                f"{len(outcome.rows)} row{'' if len(outcome.rows) == 1 else 's'}"
                + (
                    f" (capped at {self._settings.sql_row_cap})"
                    if outcome.truncated
                    else ""
                )
            )
        else:
            summary = f"{outcome.rows_affected if outcome.rows_affected is not None else 0} rows affected"
        return ToolResult(ok=True, content=content, summary=summary)

    def close(self) -> None:
        with self._lock:
            for source in self._open.values():
                source.close()
            self._open.clear()


def _same_file(raw: str, root: Path, target: Path) -> bool:
    path = Path(os.path.expanduser(raw))
    path = path if path.is_absolute() else root / path
    return os.path.realpath(path) == os.path.realpath(target)


def _unknown_keyword_note(sql: str) -> str:
    from aiq_tui.tools.sql_sources import (
        READ_KEYWORDS,
        WRITE_KEYWORDS,
        _blank_invisible,
        _strip_literals,
    )

    words = _blank_invisible(_strip_literals(sql)).split()
    first = words[0].lstrip("(").upper() if words else ""
    if first and first not in READ_KEYWORDS and first not in WRITE_KEYWORDS:
        return f" (its first word {words[0]!r} is not a statement we know, so it counts as a write)"
    return ""
