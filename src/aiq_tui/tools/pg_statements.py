"""PostgreSQL statements classified by PostgreSQL's own parser (``pglast``, the ``postgres`` extra).

A hand tokenizer and the server disagree where it matters: Postgres nests ``/* … */``
comments, decodes ``U&"…"`` identifiers and reads dollar quotes, so
``/* /* */ SELECT */ COPY … TO PROGRAM`` looked like a read and ran a program on the server.
Here the statement is parsed by libpg_query (the server's grammar, through pglast, imported
when a PostgreSQL statement is first classified) and its tree walked:

* a read is one ``SELECT`` (no ``INTO``, no ``FOR UPDATE``/``SHARE``), ``VALUES``, ``TABLE``,
  ``SHOW`` or ``EXPLAIN`` of one, with no data-changing statement anywhere inside;
* ``COPY`` and any call of a function that reaches past the database — server files
  (``pg_read_file``, ``pg_ls_dir``, ``lo_import``/``lo_export``, …), other sessions and the server
  itself (``pg_terminate_backend``, ``pg_reload_conf``, advisory locks, ``set_config``,
  ``dblink*``, …), the network (``http_get`` of pgsql-http and pg_net, ``pg_background_*``) or SQL
  given as text (``query_to_xml``, …) — is a write *with a reason*: a
  READ ONLY transaction lets all of them run, so a read-only source refuses them outright;
* everything else is a write.

Without pglast a read-only source accepts only what a plain text check can prove harmless: no
comment, no dollar quote, no ``U&`` identifier, no ``COPY`` and none of those function names
anywhere in the text (see :func:`classify_without_parser`). The database's own READ ONLY
transaction stays the real enforcement; this is the first filter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pglast is imported when a statement is classified, not before
    from pglast.ast import Node


@dataclass(frozen=True)
class SqlClass:
    """How a statement counts: ``kind`` is ``"read"`` or ``"write"``; ``reason`` says why a
    write must be refused outright on a read-only source (empty for an ordinary write)."""

    kind: str
    reason: str = ""


READ = SqlClass("read")
WRITE = SqlClass("write")

_SERVER_FILES = frozenset(
    {
        "pg_read_file",
        "pg_read_binary_file",
        "pg_stat_file",
        "pg_ls_dir",
        "lo_import",
        "lo_export",
        "pg_file_write",
        "pg_file_rename",
        "pg_file_unlink",
        "pg_file_sync",
        "pg_logdir_ls",
    }
)
_ADMIN = frozenset(
    {
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_logfile_rotate",
        "pg_promote",
        "pg_switch_wal",
        "pg_create_restore_point",
        "pg_backup_start",
        "pg_backup_stop",
        "pg_start_backup",
        "pg_stop_backup",
        "pg_wal_replay_pause",
        "pg_wal_replay_resume",
        "pg_log_backend_memory_contexts",
        "pg_create_physical_replication_slot",
        "pg_create_logical_replication_slot",
        "pg_drop_replication_slot",
        "pg_copy_physical_replication_slot",
        "pg_copy_logical_replication_slot",
        "pg_replication_slot_advance",
        "pg_logical_slot_get_changes",
        "pg_logical_slot_get_binary_changes",
        "pg_logical_emit_message",
        "pg_sync_replication_slots",
        "pg_import_system_collations",
        "set_config",
        "pg_notify",
        "pg_stat_statements_reset",
        "pg_log_standby_snapshot",
    }
)
# Extensions' functions that reach past the database server: pgsql-http and pg_net make HTTP
# requests (a query's result sent anywhere), pg_background runs SQL in another session, outside
# this READ ONLY transaction.
_NETWORK = frozenset(
    {
        "http",
        "http_get",
        "http_post",
        "http_put",
        "http_patch",
        "http_delete",
        "http_head",
        "http_set_curlopt",
        "http_reset_curlopt",
        "http_collect_response",
        "pg_background_launch",
        "pg_background_result",
        "pg_background_detach",
    }
)
_SQL_TEXT = frozenset(
    {
        "query_to_xml",
        "query_to_xmlschema",
        "query_to_xml_and_xmlschema",
        "cursor_to_xml",
        "cursor_to_xmlschema",
        "ts_stat",
        "ts_rewrite",
    }
)
_PREFIXES = (
    ("pg_ls_", "lists folders on the database server"),
    ("pg_advisory_", "takes locks other sessions wait on"),
    ("pg_try_advisory_", "takes locks other sessions wait on"),
    ("dblink", "connects to other databases"),
    ("pg_replication_origin_", "changes replication state"),
    ("pg_stat_reset", "resets the server's statistics"),
)


def function_refusal(name: str) -> str:
    """Why a call of function ``name`` must not run on a read-only source ("" when it may)."""
    name = name.lower()
    if name in _SERVER_FILES:
        return f"it calls {name}(), which reads or writes files on the database server"
    if name in _ADMIN:
        return f"it calls {name}(), which acts on other sessions or the server itself"
    if name in _NETWORK:
        return f"it calls {name}(), which reaches past the database (an HTTP request, another session)"
    if name in _SQL_TEXT:
        return f"it calls {name}(), which runs SQL given as text that cannot be checked"
    for prefix, what in _PREFIXES:
        if name.startswith(prefix):
            return f"it calls {name}(), which {what}"
    return ""


COPY_REFUSAL = (
    "COPY reads or writes files on the database server or runs a program there"
)

_PLACEHOLDER = re.compile(r"%(?:\((?P<name>[^)]*)\))?(?P<kind>.)", re.DOTALL)


def server_text(sql: str, has_params: bool) -> str:
    """The statement as the server receives it: with parameters, psycopg turns ``%s`` (``%b``,
    ``%t``, ``%(name)s``) into ``$n`` and ``%%`` into ``%`` — everywhere, quotes or not."""
    if not has_params:
        return sql
    from aiq_tui.tools.sql_sources import SqlError

    count = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal count
        kind = match.group("kind")
        if kind == "%" and match.group("name") is None:
            return "%"
        if kind in "sbt":
            count += 1
            return f"${count}"
        raise SqlError(
            f"{match.group(0)!r} is not a placeholder: use %s for a parameter and %% for a literal %"
        )

    return _PLACEHOLDER.sub(replace, sql)


def classify_postgres(sql: str, has_params: bool = False) -> SqlClass:
    """:class:`SqlClass` of one PostgreSQL statement; :class:`~aiq_tui.tools.sql_sources.SqlError`
    for empty text, several statements or text PostgreSQL's parser refuses."""
    from aiq_tui.tools.sql_sources import SqlError

    text = server_text(sql, has_params)
    try:
        import pglast
        from pglast.parser import ParseError
    except ImportError:
        return classify_without_parser(text)
    try:
        statements = pglast.parse_sql(text)
    except ParseError as exc:
        raise SqlError(f"PostgreSQL's parser refuses this statement: {exc}") from exc
    if not statements:
        raise SqlError("the SQL is empty")
    if len(statements) > 1:
        raise SqlError(
            "one statement per call, please: split the SQL at ';' into separate calls"
        )
    statement = statements[0].stmt
    if statement is None:
        raise SqlError("the SQL is empty")
    return _classify_tree(statement)


def _classify_tree(statement: Node) -> SqlClass:
    from pglast import ast
    from pglast.visitors import Visitor

    class Walk(Visitor):
        def __init__(self) -> None:
            self.refusal = ""
            self.changes = False

        def visit(self, ancestors: object, node: object) -> None:
            if isinstance(node, ast.FuncCall) and not self.refusal:
                name = node.funcname[-1].sval if node.funcname else ""
                self.refusal = function_refusal(name)
            elif isinstance(node, ast.CopyStmt):
                self.refusal = self.refusal or COPY_REFUSAL
            elif isinstance(
                node, (ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt, ast.MergeStmt)
            ):
                self.changes = True

    walk = Walk()
    walk(statement)
    if walk.refusal:
        return SqlClass("write", walk.refusal)
    if walk.changes:
        return WRITE
    return READ if _plain_read(statement) else WRITE


def _plain_read(statement: object) -> bool:
    from pglast import ast

    if isinstance(statement, ast.ExplainStmt):
        return _plain_read(statement.query)
    if isinstance(statement, ast.VariableShowStmt):
        return True
    return (
        isinstance(statement, ast.SelectStmt)
        and not statement.intoClause
        and not statement.lockingClause
    )


# -- without pglast -----------------------------------------------------------------------------
_NAMES = re.compile(
    r"(?<!\w)(?:"
    + "|".join(re.escape(name) for name in sorted(_SERVER_FILES | _ADMIN | _SQL_TEXT))
    + "|"
    + "|".join(re.escape(prefix) + r"\w*" for prefix, _ in _PREFIXES)
    # "http" is in many a literal (a URL): only a call of these counts
    + "|"
    + "|".join(re.escape(name) + r"(?=\s*\()" for name in sorted(_NETWORK))
    + ")",
    re.IGNORECASE,
)
_UNPROVABLE = re.compile(r"/\*|--|\$|\bu&|\bcopy\b", re.IGNORECASE)
_NO_PARSER = "install PostgreSQL's parser to classify it (pip install 'aiq-tui[postgres]' brings pglast)"


def classify_without_parser(sql: str) -> SqlClass:
    """What a text check can prove: a statement with no comment, dollar quote, ``U&`` identifier,
    ``COPY`` or refused function name anywhere in it — literals included — is classified by the
    keyword classifier; any other is a write a read-only source refuses."""
    from aiq_tui.tools.sql_sources import classify_sql

    found = _NAMES.search(sql)
    if found:
        return SqlClass("write", f"{function_refusal(found.group(0))}; {_NO_PARSER}")
    if _UNPROVABLE.search(sql):
        return SqlClass(
            "write",
            "comments, dollar quotes, U& identifiers and COPY cannot be proved harmless "
            f"without PostgreSQL's parser; {_NO_PARSER}",
        )
    return SqlClass(classify_sql(sql))
