"""SQLite's engine-side read-only rule: authorizers that a connection consults for every
action of every statement, so no text trick (a BOM, a comment, a second statement) can turn a
read into a write, an ATTACH of another file, or a call of ``load_extension``.

Loaded when a source opens its first connection (sqlite3 stays off the start-up path).
"""

from __future__ import annotations

import sqlite3

_READ_ACTIONS = frozenset(
    {
        sqlite3.SQLITE_SELECT,
        sqlite3.SQLITE_READ,
        sqlite3.SQLITE_FUNCTION,
        getattr(sqlite3, "SQLITE_RECURSIVE", 33),
    }
)
_DENIED_FUNCTIONS = frozenset(
    {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}
)
_REPORTING_PRAGMAS = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "database_list",
        "collation_list",
        "compile_options",
        "user_version",
        "schema_version",
        "application_id",
        "page_count",
        "page_size",
        "encoding",
        "freelist_count",
        "data_version",
        "integrity_check",
        "quick_check",
        "function_list",
        "module_list",
        "pragma_list",
        "foreign_key_check",
    }
)
_PRAGMAS_WITH_ARGUMENT = frozenset(
    {
        "table_info",
        "table_xinfo",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "integrity_check",
        "quick_check",
        "foreign_key_check",
    }
)


def read_only_authorizer(
    action: int,
    arg1: str | None,
    arg2: str | None,
    _db: str | None,
    _trigger: str | None,
) -> int:
    if action == sqlite3.SQLITE_FUNCTION:
        return (
            sqlite3.SQLITE_DENY
            if (arg2 or "").lower() in _DENIED_FUNCTIONS
            else sqlite3.SQLITE_OK
        )
    if action in _READ_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA:
        name = (arg1 or "").lower()
        if name in _REPORTING_PRAGMAS and (
            arg2 is None or name in _PRAGMAS_WITH_ARGUMENT
        ):
            return sqlite3.SQLITE_OK
    return (
        sqlite3.SQLITE_DENY
    )  # ATTACH, DETACH, writes, schema changes, other PRAGMAs, …


def write_authorizer(
    action: int,
    arg1: str | None,
    arg2: str | None,
    _db: str | None,
    _trigger: str | None,
) -> int:
    if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
        return sqlite3.SQLITE_DENY  # a writable source is this file, never another one
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _DENIED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() in (
        "writable_schema",
        "trusted_schema",
    ):
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK
