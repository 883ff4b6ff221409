"""The offline demo model: labelled, deterministic, answers from skills, really calls tools."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from aiq_tui.config import AppConfig, ToolSettings, load_sources
from aiq_tui.conversation import Message, Role, ToolCall, ToolSpec
from aiq_tui.llm.base import StreamDone, TextDelta, ToolCallReady
from aiq_tui.llm.demo import LABEL, DemoProvider, skill_sections
from aiq_tui.llm.factory import create_provider
from aiq_tui.locations import Home
from tests.llm.helpers import calls_of, collect, done_of, text_of

SYSTEM = (
    "You are an agent.\n\n# Available skills\n- sql-analyst: Query data\n\n"
    "## Skill: sql-analyst\nAnswer questions about data with SQL.\n\n"
    "Always list the tables before querying.\nUse LIMIT on big tables.\n"
    "Best sellers come from order_items joined to books.\n\n"
    "## Skill: pdf-tools\nWork with PDF files.\n\nUse pdftotext to extract text from a PDF.\n"
    "Merge PDFs with qpdf.\n\n# Using skills\nCall use_skill to load one."
)
SQL = ToolSpec(
    "execute_sql",
    "Run SQL",
    {
        "type": "object",
        "properties": {"sql": {"type": "string"}, "source": {"type": "string"}},
        "required": ["sql"],
    },
)
FILES = ToolSpec(
    "file_operations",
    "Files",
    {
        "type": "object",
        "properties": {
            "operation": {
                "type": "string",
                "enum": ["read", "write", "list", "exists"],
            },
            "path": {"type": "string"},
        },
    },
)
HTTP = ToolSpec(
    "http_request",
    "HTTP",
    {
        "type": "object",
        "properties": {"url": {"type": "string"}, "method": {"type": "string"}},
    },
)
USE_SKILL = ToolSpec(
    "use_skill",
    "Load a skill",
    {"type": "object", "properties": {"skill_name": {"type": "string"}}},
)
TOOLS = [SQL, FILES, HTTP, USE_SKILL]


def test_skill_sections_are_parsed_from_the_prompt_builder_format() -> None:
    sections = skill_sections(SYSTEM)
    assert [s.name for s in sections] == ["sql-analyst", "pdf-tools"]
    assert sections[1].description == "Work with PDF files."
    assert sections[1].content.endswith("Merge PDFs with qpdf.")


async def test_answer_is_labelled_and_quotes_the_most_relevant_skill() -> None:
    events = await collect(
        DemoProvider(),
        [Message(Role.USER, "How do I extract text from a PDF?")],
        system=SYSTEM,
    )
    text = text_of(events)
    assert text.startswith(LABEL)
    assert (
        "**pdf-tools**" in text
        and "> Use pdftotext to extract text from a PDF." in text
    )
    assert done_of(events).finish_reason == "stop"
    assert sum(isinstance(e, TextDelta) for e in events) > 5  # streamed word by word


async def test_output_is_deterministic() -> None:
    messages = [Message(Role.USER, "Which books sell best?")]
    first = await collect(DemoProvider(), messages, TOOLS, SYSTEM)
    second = await collect(DemoProvider(), messages, TOOLS, SYSTEM)
    assert first == second


async def test_without_skills_it_says_it_is_a_demo_and_does_not_pretend() -> None:
    text = text_of(
        await collect(
            DemoProvider(), [Message(Role.USER, "Write me a poem")], system="Base."
        )
    )
    assert (
        text.startswith(LABEL)
        and "offline demo model" in text
        and "llm.provider" in text
    )


async def test_data_question_lists_tables_first_with_the_schemas_argument_names() -> (
    None
):
    events = await collect(
        DemoProvider(), [Message(Role.USER, "Which books sell best?")], TOOLS, SYSTEM
    )
    (call,) = calls_of(events)
    assert call.name == "execute_sql"
    assert "FROM sqlite_master WHERE type='table'" in call.arguments["sql"]
    assert call.arguments["source"] == "sample"
    assert done_of(events).finish_reason == "tool_calls"
    assert text_of(events).startswith(LABEL)


async def test_list_files_and_fetch_url_and_named_skill_issue_real_calls() -> None:
    files = calls_of(
        await collect(
            DemoProvider(), [Message(Role.USER, "What files are here?")], TOOLS, SYSTEM
        )
    )
    assert files[0].name == "file_operations" and files[0].arguments == {
        "operation": "list",
        "path": ".",
    }
    fetch = calls_of(
        await collect(
            DemoProvider(),
            [Message(Role.USER, "Fetch http://127.0.0.1:9/x.json please")],
            TOOLS,
        )
    )
    assert fetch[0].name == "http_request" and fetch[0].arguments == {
        "url": "http://127.0.0.1:9/x.json",
        "method": "GET",
    }
    skill = calls_of(
        await collect(
            DemoProvider(),
            [Message(Role.USER, "Use the pdf-tools skill")],
            TOOLS,
            SYSTEM,
        )
    )
    assert skill[0].name == "use_skill" and skill[0].arguments == {
        "skill_name": "pdf-tools"
    }


async def test_tools_are_not_called_when_not_offered() -> None:
    events = await collect(
        DemoProvider(), [Message(Role.USER, "Which books sell best?")], [], SYSTEM
    )
    assert calls_of(events) == [] and done_of(events).finish_reason == "stop"


async def _play(
    provider: DemoProvider,
    question: str,
    run_tool: Any,
    tools: Sequence[ToolSpec],
    system: str = SYSTEM,
) -> tuple[list[Message], str]:
    """The engine's loop in miniature: stream, run calls, feed results back, until it stops."""
    messages = [Message(Role.USER, question)]
    for _ in range(6):
        events = await collect(provider, messages, tools, system)
        calls = calls_of(events)
        messages.append(
            Message(Role.ASSISTANT, text_of(events), tool_calls=tuple(calls))
        )
        if not calls:
            return messages, text_of(events)
        for call in calls:
            messages.append(
                Message(
                    Role.TOOL,
                    await run_tool(call),
                    tool_call_id=call.id,
                    name=call.name,
                )
            )
    raise AssertionError("the demo never stopped calling tools")


async def test_data_question_runs_two_real_queries_on_the_sample_database_and_renders_a_table(
    isolated_home: Home,
) -> None:
    from aiq_tui.tools.sample_db import ensure_sample_database
    from aiq_tui.tools.sql import SqlTool

    isolated_home.ensure()
    ensure_sample_database(isolated_home.sample_database)
    tool = SqlTool(
        ToolSettings(), home=isolated_home, sources=load_sources(isolated_home)
    )
    ran: list[str] = []

    async def run(call: ToolCall) -> str:
        ran.append(call.arguments["sql"])
        result = await tool.run(dict(call.arguments))
        assert result.ok, result.error
        return result.to_model_text()

    try:
        _messages, answer = await _play(
            DemoProvider(), "Which books sell best?", run, [tool.spec, FILES]
        )
    finally:
        tool.close()
    assert len(ran) == 2 and "sqlite_master" in ran[0] and "SUM(i.quantity)" in ran[1]
    assert answer.startswith(LABEL)
    assert "| title | units_sold |" in answer and "returned 5 rows" in answer
    assert "**sql-analyst**" in answer  # and it still quotes the relevant skill


@pytest.mark.parametrize(
    "question",
    [
        "what are the top 5 books by rating?",
        "Which are the 5 highest rated books?",
        "show the 5 books with the best ratings",
    ],
)
async def test_a_question_by_rating_is_answered_by_the_reviews_average_rating(
    isolated_home: Home, question: str
) -> None:
    from aiq_tui.tools.sample_db import ensure_sample_database
    from aiq_tui.tools.sql import SqlTool

    isolated_home.ensure()
    ensure_sample_database(isolated_home.sample_database)
    tool = SqlTool(
        ToolSettings(), home=isolated_home, sources=load_sources(isolated_home)
    )
    ran: list[str] = []

    async def run(call: ToolCall) -> str:
        ran.append(call.arguments["sql"])
        result = await tool.run(dict(call.arguments))
        assert result.ok, result.error
        return result.to_model_text()

    try:
        _messages, answer = await _play(DemoProvider(), question, run, [tool.spec])
    finally:
        tool.close()
    assert "AVG(r.rating)" in ran[-1] and "ORDER BY avg_rating DESC" in ran[-1]
    assert "| title | author | avg_rating | reviews |" in answer, answer
    assert "returned 5 rows" in answer and "units_sold" not in answer


async def test_counting_question_after_tables_runs_a_count() -> None:
    async def run(call: ToolCall) -> str:
        if "sqlite_master" in call.arguments["sql"]:
            return json.dumps(
                {
                    "columns": ["name", "sql"],
                    "rows": [
                        [
                            "customers",
                            "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)",
                        ],
                        [
                            "orders",
                            "CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL)",
                        ],
                    ],
                }
            )
        assert call.arguments["sql"] == 'SELECT COUNT(*) AS count FROM "customers"'
        return json.dumps({"columns": ["count"], "rows": [[42]]})

    _, answer = await _play(
        DemoProvider(), "How many customers are there?", run, [SQL], system="Base."
    )
    assert "| count |" in answer and "| 42 |" in answer


async def test_tool_error_is_reported_honestly() -> None:
    async def run(call: ToolCall) -> str:
        return json.dumps({"error": "no such table: nope"})

    _, answer = await _play(
        DemoProvider(), "Show the customers table", run, [SQL], system="Base."
    )
    assert "`execute_sql` failed: no such table: nope" in answer


async def test_long_answer_directive_pads_to_about_that_many_words() -> None:
    text = text_of(
        await collect(
            DemoProvider(),
            [Message(Role.USER, "Explain skills (demo: answer with about 300 tokens)")],
            system=SYSTEM,
            max_tokens=2000,
        )
    )
    assert 300 <= len(text.split()) <= 360 and "Scripted" in text


async def test_max_tokens_cuts_the_answer_with_finish_reason_length() -> None:
    events = await collect(
        DemoProvider(),
        [Message(Role.USER, "Explain (demo: answer with about 300 tokens)")],
        system=SYSTEM,
        max_tokens=20,
    )
    assert sum(isinstance(e, TextDelta) for e in events) == 20
    assert done_of(events).finish_reason == "length"


async def test_summarise_is_deterministic_and_extractive() -> None:
    messages = [
        Message(Role.USER, "Which books sell best? Thanks."),
        Message(Role.ASSISTANT, "", tool_calls=(ToolCall("c1", "execute_sql", {}),)),
        Message(
            Role.TOOL, '{"rows": [["Dune", 12]]}', tool_call_id="c1", name="execute_sql"
        ),
        Message(Role.ASSISTANT, "Dune sells best. It sold 12."),
    ]
    demo = DemoProvider()
    summary = await demo.summarise(messages, 200)
    assert summary == await demo.summarise(messages, 200)
    assert summary.startswith("[demo summary] 4 earlier messages:")
    assert "- user asked: Which books sell best?" in summary
    assert "- assistant called execute_sql" in summary and "Dune sells best." in summary


def test_factory_returns_the_demo_by_default_and_rejects_unknown_names() -> None:
    provider = create_provider(AppConfig())
    assert provider.is_demo and provider.name == "demo" and provider.model == "aiq-demo"
    with pytest.raises(
        ValueError, match="unknown provider 'nope'; known: anthropic, demo, openai"
    ):
        create_provider(AppConfig(), "nope")


async def test_stream_ends_with_exactly_one_done_after_tool_calls() -> None:
    events = await collect(DemoProvider(), [Message(Role.USER, "list files")], TOOLS)
    kinds = [type(e) for e in events]
    assert kinds[-1] is StreamDone and kinds.count(StreamDone) == 1
    assert kinds.index(ToolCallReady) > max(
        i for i, k in enumerate(kinds) if k is TextDelta
    )


# -- routing like an agent ------------------------------------------------------------------------

COMMAND = ToolSpec(
    "execute_command",
    "Run",
    {
        "type": "object",
        "properties": {
            "command": {"type": ["array", "string"]},
            "cwd": {"type": "string"},
        },
    },
)
ALL_TOOLS = [SQL, FILES, HTTP, USE_SKILL, COMMAND]
SHELL_FIRST = (
    "Base.\n\n## Skill: shell-basics\nRun safe shell commands.\n\n"
    "`execute_command` runs one program from the allowlist.\n\n# Using skills\nx"
)
NOTES_FIRST = (
    "Base.\n\n## Skill: file-notes\nRead and write notes.\n\n"
    "The `file_operations` tool reads, writes and lists files.\n\n# Using skills\nx"
)
SQL_FIRST = (
    "Base.\n\n## Skill: sql-explorer\nExplore a database.\n\n"
    "Answer questions by running SQL through the `execute_sql` tool.\n\n# Using skills\nx"
)


async def _first_call(
    question: str, system: str = "Base.", tools: Sequence[ToolSpec] = ALL_TOOLS
) -> ToolCall:
    calls = calls_of(
        await collect(DemoProvider(), [Message(Role.USER, question)], tools, system)
    )
    assert calls, f"no tool call for {question!r}"
    return calls[0]


@pytest.mark.parametrize(
    ("question", "argv"),
    [
        ("How much disk space is free?", ["df", "-h"]),
        ("How big is this folder?", ["du", "-sh", "."]),
        ("Please run `ls -la docs` for me", ["ls", "-la", "docs"]),
        ("How many lines does notes/todo.md have?", ["wc", "-l", "notes/todo.md"]),
        ("Search for 'TODO' in the project", ["grep", "-rn", "TODO", "."]),
        ("What is the date today? what's the date", ["date"]),
    ],
)
async def test_shell_words_route_to_execute_command(
    question: str, argv: list[str]
) -> None:
    call = await _first_call(question)
    assert call.name == "execute_command" and call.arguments == {"command": argv}


async def test_a_url_routes_to_http_request_and_a_post_says_so() -> None:
    get = await _first_call("What does https://example.org/api/items return?")
    assert get.name == "http_request" and get.arguments == {
        "url": "https://example.org/api/items",
        "method": "GET",
    }
    post = await _first_call("Post a new item to http://127.0.0.1:9/items")
    assert post.arguments["method"] == "POST"


async def test_a_note_is_written_with_file_operations_in_the_notes_folder() -> None:
    call = await _first_call(
        "Save a note: call the printer technician on Monday", NOTES_FIRST
    )
    assert call.name == "file_operations" and call.arguments["operation"] == "write"
    assert call.arguments["path"].startswith("notes/") and call.arguments[
        "path"
    ].endswith(".md")
    assert "- call the printer technician on Monday" in call.arguments["content"]


async def test_reading_a_named_file_uses_file_operations_read() -> None:
    call = await _first_call("Read README.md please")
    assert call.arguments == {"operation": "read", "path": "README.md"}


@pytest.mark.parametrize(
    ("system", "tool"),
    [(SHELL_FIRST, "execute_command"), (NOTES_FIRST, "file_operations")],
)
async def test_listing_files_follows_the_active_skill(system: str, tool: str) -> None:
    call = await _first_call("What files are in this folder?", system)
    assert call.name == tool
    assert call.arguments in (
        {"command": ["ls", "-la", "."]},
        {"operation": "list", "path": "."},
    )


async def test_a_question_without_tool_words_follows_the_active_skills_tool() -> None:
    call = await _first_call("Anything interesting this month?", SQL_FIRST)
    assert call.name == "execute_sql" and "sqlite_master" in call.arguments["sql"]


async def test_write_that_up_saves_the_previous_answer_as_a_report() -> None:
    previous = "[demo model] `SELECT title` returned 2 rows:\n\n| title | units_sold |\n|---|---|\n| Dune | 12 |"
    messages = [
        Message(Role.USER, "Which books sell best?"),
        Message(Role.ASSISTANT, previous),
        Message(
            Role.USER, "Write that up as a report and save it to reports/bestsellers.md"
        ),
    ]
    (call,) = calls_of(await collect(DemoProvider(), messages, [FILES], "Base."))
    assert (
        call.arguments["operation"] == "write"
        and call.arguments["path"] == "reports/bestsellers.md"
    )
    assert call.arguments["content"].startswith("# Bestsellers")
    assert (
        "| Dune | 12 |" in call.arguments["content"]
        and "offline demo model" in call.arguments["content"]
    )


async def test_a_denied_call_is_reported_as_not_run() -> None:
    async def run(call: ToolCall) -> str:
        return json.dumps({"error": "denied: the user declined"})

    _, answer = await _play(
        DemoProvider(), "Please run `df -h`", run, [COMMAND], system="Base."
    )
    assert "`execute_command` was not run — denied: the user declined." in answer


async def test_command_output_is_shown_with_its_exit_code() -> None:
    async def run(call: ToolCall) -> str:
        return json.dumps(
            {
                "command": "wc -l a.md",
                "exit_code": 0,
                "stdout": "12 a.md\n",
                "stderr": "",
            }
        )

    _, answer = await _play(
        DemoProvider(), "Run `wc -l a.md`", run, [COMMAND], system="Base."
    )
    assert (
        answer.startswith(LABEL)
        and "`wc -l a.md` exited with 0" in answer
        and "12 a.md" in answer
    )


async def test_the_summary_keeps_the_schema_so_the_next_question_queries_directly() -> (
    None
):
    listing = json.dumps(
        {
            "columns": ["name", "sql"],
            "rows": [
                [
                    "orders",
                    "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, ordered_on TEXT, total REAL)",
                ],
                [
                    "customers",
                    "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT)",
                ],
            ],
        }
    )
    call = ToolCall(
        "c1",
        "execute_sql",
        {"sql": "SELECT name, sql FROM sqlite_master WHERE type='table' ORDER BY name"},
    )
    old = [
        Message(Role.USER, "Which tables are there?", id="m1"),
        Message(Role.ASSISTANT, "", tool_calls=(call,), id="m2"),
        Message(Role.TOOL, listing, tool_call_id="c1", name="execute_sql", id="m3"),
    ]
    summary = await DemoProvider().summarise(old, 512)
    assert (
        "- schema: customers(city, id, name); orders(customer_id, id, ordered_on, total)"
        in summary
    )
    messages = [
        Message(Role.USER, summary, summary=True),
        Message(Role.USER, "Show the 7 most recent orders with their customers."),
    ]
    (next_call,) = calls_of(await collect(DemoProvider(), messages, [SQL], "Base."))
    assert "JOIN customers" in next_call.arguments["sql"] and next_call.arguments[
        "sql"
    ].endswith("LIMIT 7")
