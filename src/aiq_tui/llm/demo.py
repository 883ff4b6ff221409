"""The offline demo model: deterministic, clearly labelled, and it really calls tools.

It does not understand language and never pretends to: every answer starts with
``[demo model]``. It routes a question like an agent would (:mod:`aiq_tui.llm.demo_routes`):
a named skill → ``use_skill``; a URL → ``http_request``; shell words or a command in
backticks → ``execute_command``; a data question → ``execute_sql`` on the sample database
(tables listed first unless the conversation, or its summary, still has the schema); "save",
"note", "write … to FILE" → ``file_operations`` write (a note, or a report of the results it
has), "read FILE" / "list files" → read / list. With no such words it follows the lead skill
— the one the question is about, else the first loaded (Active) one — and uses the tool that
skill's instructions name. Argument names are read from each tool's JSON schema. It then
answers from the real results (SQL rows as a markdown table, command output, what was saved)
and quotes the skill it followed; a refused call is reported as not run.

A question may end with ``(demo: answer with about N tokens)``; the demo then answers with a
labelled filler text of about that size — a hook for tests and benchmarks that need an
answer of a given size. ``/demo`` does not use it: :mod:`aiq_tui.llm.demo_script` tells a
story with real questions instead.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiq_tui.context.prompt import USE_SKILL_INSTRUCTIONS
from aiq_tui.conversation import Message, Role, ToolCall, ToolSpec
from aiq_tui.json_bounds import loads_bounded
from aiq_tui.llm.base import (
    OnRetry,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCallReady,
    Usage,
)
from aiq_tui.llm.demo_report import headline_figures, report_body
from aiq_tui.llm.demo_routes import (
    LIST_TABLES_SQL,
    URL,
    create_columns,
    file_path,
    http_method,
    note_text,
    relevant_query,
    shell_argv,
    slug,
    stem,
    terms,
    wants_data,
    wants_listing,
    wants_read,
    wants_write,
)

LABEL = "[demo model]"
SUMMARY_LABEL = "[demo summary]"

_LONG = re.compile(r"\(demo: answer with about (\d+) tokens\)", re.I)
_SKILL_NAMED = (
    re.compile(r"(?:^|\s)/skill\s+([A-Za-z0-9][\w.-]*)"),
    re.compile(r"\buse\s+(?:the\s+)?skill[:\s]+[`'\"]?([A-Za-z0-9][\w.-]*)", re.I),
    re.compile(
        r"\buse\s+(?:the\s+)?[`'\"]?([A-Za-z0-9][\w.-]*)[`'\"]?\s+skill\b", re.I
    ),
)
_MAX_TABLE_ROWS = 10
_AFTER_SKILLS = frozenset({USE_SKILL_INSTRUCTIONS.splitlines()[0], "# end"})
_MAX_SHOWN_ROWS = (
    8  # an answer shows at most this many rows, and says how many it left out
)
# Plain, common words: about one token each, so "about N tokens" is about N words.
_FILLER = [
    "the",
    "demo",
    "keeps",
    "this",
    "line",
    "so",
    "the",
    "budget",
    "grows",
    "and",
    "the",
    "next",
    "stage",
    "of",
    "compression",
    "can",
    "show",
    "what",
    "it",
    "does",
    "with",
    "older",
    "turns",
]


@dataclass(frozen=True)
class SkillSection:
    name: str
    description: str
    content: str


def _section_ends(line: str) -> bool:
    """A line the prompt builder writes after the skill sections (skill bodies have their own
    ``#`` headings, so a heading alone does not end a section)."""
    return line in _AFTER_SKILLS


def skill_sections(system: str) -> list[SkillSection]:
    """The ``## Skill: <name>`` sections the prompt builder writes, in prompt order."""
    sections: list[SkillSection] = []
    current: list[str] | None = None
    name = ""
    for line in system.splitlines() + [next(iter(_AFTER_SKILLS))]:
        if line.startswith("## Skill: ") or (
            current is not None and _section_ends(line)
        ):
            if current is not None:
                body = "\n".join(current).strip("\n")
                description, _, content = body.partition("\n\n")
                sections.append(
                    SkillSection(name, description.strip(), content.strip())
                )
                current = None
            if line.startswith("## Skill: "):
                name, current = line[len("## Skill: ") :].strip(), []
            continue
        if current is not None:
            current.append(line)
    return sections


def _overlap(query: Sequence[str], text: str) -> int:
    wanted = {stem(t) for t in query}
    return sum(1 for w in terms(text) if stem(w) in wanted)


def best_skill(sections: Sequence[SkillSection], question: str) -> SkillSection | None:
    query = terms(question)
    scored = [
        (
            _overlap(query, s.name.replace("-", " ")) * 3
            + _overlap(query, s.description) * 2
            + _overlap(query, s.content),
            -index,
            s,
        )
        for index, s in enumerate(sections)
    ]
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return scored[0][2] if scored and scored[0][0] > 0 else None


def relevant_lines(
    section: SkillSection, question: str, limit: int, *, in_order: bool = True
) -> list[str]:
    """The ``limit`` prose lines of a skill that share most words with the question (in the
    skill's order, or best first with ``in_order=False``)."""
    query = terms(question)
    lines: list[str] = []
    fenced = False
    for raw in section.content.splitlines():
        line = raw.strip()
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced or not line or line.startswith(("#", "|")):
            lines.append("")  # prose only: not code, headings or tables
        elif lines and lines[-1] and not re.match(r"^([-*]|\d+\.)\s", line):
            lines[-1] += " " + line  # a wrapped line continues its sentence or bullet
        else:
            lines.append(line)
    candidates = [(i, ln) for i, ln in enumerate(lines) if len(ln) > 3]
    ranked = sorted(candidates, key=lambda item: (-_overlap(query, item[1]), item[0]))
    chosen = sorted(ranked[:limit]) if in_order else ranked[:limit]
    return [ln for _, ln in chosen]


def _arg(spec: ToolSpec, candidates: Sequence[str], default: str) -> str:
    """The schema's property name for a concept (e.g. the SQL text: "sql" or "query")."""
    properties = (spec.parameters or {}).get("properties") or {}
    for name in candidates:
        if name in properties:
            return name
    for name in properties:
        if any(c in name for c in candidates):
            return name
    return default


def _enum_choice(spec: ToolSpec, key: str, wanted: str) -> str:
    values = (((spec.parameters or {}).get("properties") or {}).get(key) or {}).get(
        "enum"
    ) or []
    if not values or wanted in values:
        return wanted
    return next((v for v in values if wanted in str(v)), values[0])


def _decode(content: str) -> Any:
    try:
        return loads_bounded(content)
    except ValueError:  # a tool result nested too deep for json is text too
        return content


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 40 else text[:37] + "…"


def markdown_table(
    columns: Sequence[str], rows: Sequence[Any], limit: int = _MAX_TABLE_ROWS
) -> str:
    lines = [
        "| " + " | ".join(_cell(c) for c in columns) + " |",
        "|" + "---|" * len(columns),
    ]
    for row in rows[:limit]:
        values = [row.get(c) for c in columns] if isinstance(row, dict) else list(row)
        lines.append("| " + " | ".join(_cell(v) for v in values) + " |")
    if len(rows) > limit:
        lines.append(f"\n… and {len(rows) - limit} more rows")
    return "\n".join(lines)


def _rows(result: Any) -> tuple[list[str], list[Any]] | None:
    if isinstance(result, dict) and isinstance(result.get("rows"), list):
        rows = result["rows"]
        columns = result.get("columns") or (
            list(rows[0]) if rows and isinstance(rows[0], dict) else []
        )
        return [str(c) for c in columns], rows
    if isinstance(result, list) and all(isinstance(r, dict) for r in result):
        return (list(result[0]) if result else []), result
    return None


TOOL_NAMES = ("execute_sql", "execute_command", "file_operations", "http_request")


def lead_skill(sections: Sequence[SkillSection], question: str) -> SkillSection | None:
    """The skill the demo follows: the one the question is about, else the first loaded one
    (the prompt lists Active skills first, so that is the Active skill)."""
    return best_skill(sections, question) or (sections[0] if sections else None)


def skill_tools(section: SkillSection | None) -> list[str]:
    """The tools a skill's instructions name, in the order they first appear."""
    if section is None:
        return []
    text = section.description + "\n" + section.content
    found = [(text.find(name), name) for name in TOOL_NAMES if name in text]
    return [name for _, name in sorted(found)]


@dataclass(frozen=True)
class DemoReply:
    text: str
    calls: tuple[ToolCall, ...] = ()


@dataclass
class _Turn:
    question: str
    calls: list[ToolCall] = field(default_factory=list)
    results: dict[str, Message] = field(default_factory=dict)
    earlier: Sequence[Message] = ()  # the messages before this turn's question

    def calls_to(self, name: str) -> list[ToolCall]:
        return [c for c in self.calls if c.name == name]

    def wrote(self) -> bool:
        return any(
            c.arguments.get("operation") == "write"
            for c in self.calls_to("file_operations")
        )


def _current_turn(messages: Sequence[Message]) -> _Turn:
    start = max(
        (i for i, m in enumerate(messages) if m.role is Role.USER and not m.summary),
        default=-1,
    )
    turn = _Turn(
        messages[start].content if start >= 0 else "", earlier=messages[: max(start, 0)]
    )
    for message in messages[start + 1 :]:
        turn.calls.extend(message.tool_calls)
        if message.role is Role.TOOL and message.tool_call_id:
            turn.results[message.tool_call_id] = message
    return turn


def _sql_of(call: ToolCall) -> str:
    return str(
        next(
            iter(v for k, v in call.arguments.items() if k not in ("source", "params")),
            "",
        )
    )


def known_tables(messages: Sequence[Message]) -> dict[str, set[str]]:
    """Tables (name → columns) from the latest table listing still in the conversation: a
    real agent does not list the tables again while it remembers them."""
    calls = {c.id: c for m in messages for c in m.tool_calls}
    tables: dict[str, set[str]] = {}
    for message in messages:
        if message.summary:  # a summary keeps the schema it saw (see summarise)
            tables = _schema_from_summary(message.content) or tables
            continue
        call = calls.get(message.tool_call_id or "")
        if message.role is not Role.TOOL or call is None or call.name != "execute_sql":
            continue
        if "sqlite_master" not in _sql_of(call):
            continue
        listing = _rows(_decode(message.content))
        if not listing or not listing[1]:
            continue
        columns, rows = listing
        found: dict[str, set[str]] = {}
        for row in rows:
            values = (
                [row.get(c) for c in columns] if isinstance(row, dict) else list(row)
            )
            sql = str(values[1]) if len(values) > 1 and values[1] else ""
            if not str(values[0]).startswith("sqlite_"):
                found[str(values[0])] = create_columns(sql)
        tables = found or tables
    return tables


_SCHEMA_LINE = "- schema: "


def _schema_line(tables: dict[str, set[str]]) -> str:
    return _SCHEMA_LINE + "; ".join(
        f"{name}({', '.join(sorted(columns))})"
        for name, columns in sorted(tables.items())
    )


def _schema_from_summary(text: str) -> dict[str, set[str]]:
    line = next((ln for ln in text.splitlines() if ln.startswith(_SCHEMA_LINE)), "")
    found = re.findall(r"([\w.-]+)\(([^)]*)\)", line[len(_SCHEMA_LINE) :])
    return {
        name: {c.strip() for c in columns.split(",") if c.strip()}
        for name, columns in found
    }


def _last_answer(messages: Sequence[Message]) -> str:
    """The previous final answer, without the demo label and the skill quote."""
    for message in reversed(messages):
        if (
            message.role is Role.ASSISTANT
            and message.content
            and not message.tool_calls
        ):
            text = message.content.removeprefix(LABEL).strip()
            return re.split(r"\n\n(?:From the skill|Following) \*\*", text)[0].strip()
    return ""


class DemoProvider:
    """Implements the Provider protocol offline. ``delay`` seconds between streamed words."""

    is_demo = True
    kind = "demo"

    def __init__(self, name: str = "demo", model: str = "aiq-demo", delay: float = 0.0):
        self.name, self.model, self.delay = name, model, delay
        self.on_retry: OnRetry | None = None  # never retries
        self.base_url = ""  # offline: no endpoint

    def check_ready(self) -> None:
        """Always ready: no key, no network."""

    # -- the decision -------------------------------------------------------------------------
    def reply(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> DemoReply:
        """What the demo answers (deterministic in its inputs)."""
        turn = _current_turn(messages)
        offered = {t.name: t for t in tools}
        question = _LONG.sub("", turn.question).strip()
        lead = lead_skill(skill_sections(system), question)
        call = self._next_call(question, turn, offered, lead, messages)
        if call is not None:
            return DemoReply(f"{LABEL} {self._call_note(call, lead)}", (call,))
        return DemoReply(
            self._answer(system, question, turn, _LONG.search(turn.question))
        )

    def _call_id(
        self, question: str, position: int, earlier_calls: Sequence[ToolCall] = ()
    ) -> str:
        # The turn's earlier call ids are part of the digest: compression between two rounds
        # can bring the history back to an earlier length, and ids must stay unique.
        key = f"{question}\0{position}" + (
            "\0" + ",".join(c.id for c in earlier_calls) if earlier_calls else ""
        )
        digest = hashlib.sha1(key.encode()).hexdigest()[:10]
        return f"demo_{digest}"

    def _next_call(
        self,
        question: str,
        turn: _Turn,
        offered: dict[str, ToolSpec],
        lead: SkillSection | None,
        messages: Sequence[Message],
    ) -> ToolCall | None:
        """The next tool call the question needs, in the order an agent would make them:
        load a named skill; then the request's own tool (URL, command, data, file); when the
        question names none, the tool the lead (Active) skill works with."""
        call_id = self._call_id(question, len(messages), turn.calls)

        def make(name: str, arguments: dict[str, Any]) -> ToolCall:
            return ToolCall(call_id, name, arguments)

        named = next(
            (m.group(1) for p in _SKILL_NAMED if (m := p.search(question))), None
        )
        if named and "use_skill" in offered and not turn.calls_to("use_skill"):
            spec = offered["use_skill"]
            return make(
                "use_skill",
                {_arg(spec, ("skill_name", "name", "skill"), "name"): named},
            )
        url = URL.search(question)
        if url and "http_request" in offered:
            if not turn.calls_to("http_request"):
                spec = offered["http_request"]
                arguments = {_arg(spec, ("url",), "url"): url.group(0).rstrip(".,;")}
                if "method" in _properties(spec):
                    arguments["method"] = http_method(question)
                return make("http_request", arguments)
            return None
        argv = shell_argv(question)
        listing = wants_listing(question) and not wants_write(question)
        follows_shell = "execute_command" in skill_tools(lead)[:1]
        if argv is None and listing and follows_shell:
            argv = [
                "ls",
                "-la",
                file_path(question) or ".",
            ]  # the shell skill lists with ls
        if argv is not None and "execute_command" in offered:
            if not turn.calls_to("execute_command"):
                spec = offered["execute_command"]
                return make(
                    "execute_command",
                    {_arg(spec, ("command", "argv", "cmd"), "command"): argv},
                )
            return None
        writing = wants_write(question)
        data = wants_data(question) or (
            not writing
            and not listing
            and not wants_read(question)
            and skill_tools(lead)[:1] == ["execute_sql"]
            and bool(terms(question))
        )
        if (
            data
            and "execute_sql" in offered
            and not (writing and not wants_data(question))
        ):
            step = self._sql_step(
                question, turn, offered["execute_sql"], messages, make
            )
            if step is not None:
                return step
        if "file_operations" not in offered:
            return None
        spec = offered["file_operations"]
        op_key, path_key = (
            _arg(spec, ("operation", "op", "action"), "operation"),
            _arg(spec, ("path",), "path"),
        )
        if writing and not turn.wrote():
            path = file_path(question) or self._default_path(question, lead)
            content_key = _arg(spec, ("content", "text", "data"), "content")
            return make(
                "file_operations",
                {
                    op_key: _enum_choice(spec, op_key, "write"),
                    path_key: path,
                    content_key: self._document(question, path, turn),
                },
            )
        if turn.calls_to("file_operations"):
            return None
        named = file_path(question)
        if named and wants_read(question):
            return make(
                "file_operations",
                {op_key: _enum_choice(spec, op_key, "read"), path_key: named},
            )
        if listing:
            return make(
                "file_operations",
                {op_key: _enum_choice(spec, op_key, "list"), path_key: "."},
            )
        return None

    def _sql_step(
        self,
        question: str,
        turn: _Turn,
        spec: ToolSpec,
        messages: Sequence[Message],
        make: Any,
    ) -> ToolCall | None:
        sql_key = _arg(spec, ("sql", "query", "statement"), "sql")
        source_key = _arg(spec, ("source", "database", "db"), "")

        def sql_call(sql: str) -> ToolCall:
            arguments = {sql_key: sql}
            if source_key:
                arguments[source_key] = "sample"
            return make("execute_sql", arguments)

        done = turn.calls_to("execute_sql")
        if any("sqlite_master" not in _sql_of(c) for c in done):
            return None  # the question's query ran: answer it
        tables = known_tables(messages)
        if not tables:
            return None if done else sql_call(LIST_TABLES_SQL)
        return sql_call(relevant_query(question, tables))

    @staticmethod
    def _default_path(question: str, lead: SkillSection | None) -> str:
        # The skills' own conventions: data-report saves to reports/, file-notes to notes/.
        folder = (
            "reports"
            if "report" in question.lower() or (lead and "report" in lead.name)
            else "notes"
        )
        return f"{folder}/{slug(question, folder[:-1])}.md"

    @staticmethod
    def _document(question: str, path: str, turn: _Turn) -> str:
        """What the demo writes: a note, or a report of the results it has (this turn's query
        results, else the previous answer) — never invented figures."""
        note = note_text(question)
        if note:
            return f"# Notes\n\n- {note}\n"
        body = ""
        for call in turn.calls_to("execute_sql"):
            result = turn.results.get(call.id)
            table = _rows(_decode(result.content)) if result is not None else None
            if table and "sqlite_master" not in _sql_of(call):
                body = report_body(*table, _sql_of(call), markdown_table)
        body = (
            body
            or _last_answer(turn.earlier)
            or "(no results yet: ask a data question first)"
        )
        title = (
            path.rsplit("/", 1)[-1]
            .rsplit(".", 1)[0]
            .replace("-", " ")
            .strip()
            .capitalize()
            or "Report"
        )
        return (
            f"# {title}\n\n_Written by the aiq-tui offline demo model from the conversation's "
            f"tool results; check the figures before you share them._\n\n{body}\n"
        )

    @staticmethod
    def _call_note(call: ToolCall, lead: SkillSection | None) -> str:
        follow = (
            f" (following **{lead.name}**)"
            if lead is not None and call.name in skill_tools(lead)
            else ""
        )
        if call.name == "execute_sql":
            return f"Running SQL on the sample database{follow}: `{_sql_of(call)}`"
        if call.name == "use_skill":
            return f"Loading the skill `{next(iter(call.arguments.values()), '')}`."
        if call.name == "execute_command":
            argv: object = next(iter(call.arguments.values()), [])
            shown = " ".join(argv) if isinstance(argv, list) else str(argv)
            return f"Running the command `{shown}`{follow}."
        if call.name == "file_operations":
            operation, path = (
                call.arguments.get("operation", "list"),
                call.arguments.get("path", "."),
            )
            verb = {"write": "Saving", "read": "Reading", "list": "Listing"}.get(
                str(operation), "Checking"
            )
            return f"{verb} `{path}`{follow}."
        if call.name == "http_request":
            return f"Requesting {call.arguments.get('method', 'GET')} {call.arguments.get('url', '')}{follow}."
        return f"Calling `{call.name}`."

    # -- the answer -----------------------------------------------------------------------------
    def _answer(
        self, system: str, question: str, turn: _Turn, long: re.Match[str] | None
    ) -> str:
        if long:
            return f"{LABEL} " + self._padding(int(long.group(1)))
        parts: list[str] = []
        # A report was written of this turn's rows (saved or refused): the answer gives their
        # headline figures, not the table again — the report is where the table goes.
        reported = turn.wrote()
        for call in turn.calls:
            result = turn.results.get(call.id)
            if result is not None:
                parts.append(self._render_result(call, result, reported))
        sections = skill_sections(system)
        skill = (
            lead_skill(sections, question) if parts else best_skill(sections, question)
        )
        if skill is not None:
            # After tool results one line of the skill is enough; without them the quote is the answer.
            quoted = [
                _clip(line, 160)
                for line in relevant_lines(skill, question, 4, in_order=not parts)
                if not (
                    parts and skill.description.startswith(line.split(": ", 1)[-1][:40])
                )
            ]
            if parts:
                if quoted:
                    parts.append(f"From the skill **{skill.name}**:\n> {quoted[0]}")
            else:
                intro = (
                    f"From the skill **{skill.name}** ({skill.description})"
                    if skill.description
                    else f"From the skill **{skill.name}**"
                )
                parts.append(
                    intro + ":\n" + "\n".join(f"> {line}" for line in quoted)
                    if quoted
                    else intro + "."
                )
        if not parts:
            if sections:
                parts.append(
                    f"None of the loaded skills ({', '.join(s.name for s in sections)}) mentions "
                    f"what you asked about."
                )
            else:
                parts.append("No skill is loaded for this question.")
            parts.append(
                "I am the offline demo model: I quote loaded skills and run tools, but I do not "
                "understand language. Configure a real provider (llm.provider in config.yaml) for real answers."
            )
        return f"{LABEL} " + "\n\n".join(parts)

    @staticmethod
    def _padding(tokens: int) -> str:
        # Common short words cost about one token each, so the answer lands near ``tokens``.
        words = ["(Scripted", "long", "answer", "for", "the", "compression", "demo.)"]
        while len(words) < tokens:
            words.extend(_FILLER[: tokens - len(words)])
        return " ".join(words)

    @staticmethod
    def _render_result(call: ToolCall, result: Message, reported: bool = False) -> str:
        """One call's result for the answer; ``reported``: the turn wrote a report of its query
        results, so the answer gives their headline figures, not the table again."""
        data = _decode(result.content)
        if isinstance(data, dict) and data.get("error"):
            error = str(data["error"])
            if error.startswith("denied:"):
                return f"`{call.name}` was not run — {error}."
            return f"`{call.name}` failed: {error}"
        if call.name == "execute_sql":
            table = _rows(data)
            sql = _sql_of(call)
            if table is not None:
                columns, rows = table
                if "sqlite_master" in sql:
                    names = [
                        str(r.get(columns[0]) if isinstance(r, dict) else r[0])
                        for r in rows
                    ]
                    return f"The sample database has {len(names)} tables: {', '.join(names)}."
                count = f"{len(rows)} row" + ("" if len(rows) == 1 else "s")
                if reported:
                    return (
                        f"`{sql}` returned {count}; the report has the table. "
                        "Headline figures:\n\n"
                        + "\n".join(headline_figures(columns, rows))
                    )
                return f"`{sql}` returned {count}:\n\n" + markdown_table(
                    columns, rows, _MAX_SHOWN_ROWS
                )
        if call.name == "file_operations" and isinstance(data, dict):
            if "bytes" in data:
                state = "new file" if data.get("created") else "replaced"
                return f"Saved `{call.arguments.get('path') or data.get('path')}` ({data['bytes']:,} bytes, {state})."
            entries = data.get("entries")
            if isinstance(entries, list):
                names = [
                    str(e.get("name", e)) if isinstance(e, dict) else str(e)
                    for e in entries
                ]
                shown = ", ".join(f"`{n}`" for n in names[:20]) + (
                    f" and {len(names) - 20} more" if len(names) > 20 else ""
                )
                return f"The directory holds {len(names)} entries: {shown}."
        if call.name == "file_operations" and isinstance(data, str):
            lines = data.splitlines()
            head = "\n".join(lines[:15]) + (
                f"\n… ({len(lines) - 15} more lines)" if len(lines) > 15 else ""
            )
            return f"`{call.arguments.get('path')}` reads:\n\n```\n{head}\n```"
        if (
            call.name == "execute_command"
            and isinstance(data, dict)
            and "exit_code" in data
        ):
            out = str(data.get("stdout") or data.get("stderr") or "").rstrip()
            lines = out.splitlines()
            head = "\n".join(lines[:15]) + (
                f"\n… ({len(lines) - 15} more lines)" if len(lines) > 15 else ""
            )
            return f"`{data.get('command')}` exited with {data['exit_code']}:\n\n```\n{head or '(no output)'}\n```"
        if call.name == "http_request" and isinstance(data, dict) and "status" in data:
            body = (
                json.dumps(data["json"], ensure_ascii=False)
                if "json" in data
                else str(data.get("body", ""))
            )
            return (
                f"{call.arguments.get('method', 'GET')} {call.arguments.get('url')} answered "
                f"{data['status']}: " + (body[:300] + "…" if len(body) > 300 else body)
            )
        if call.name == "use_skill":
            return (
                f"The skill `{next(iter(call.arguments.values()), '')}` is now active."
            )
        text = (
            result.content
            if isinstance(data, str)
            else json.dumps(data, ensure_ascii=False)
        )
        return f"`{call.name}` returned: " + (
            text[:300] + "…" if len(text) > 300 else text
        )

    # -- the Provider protocol --------------------------------------------------------------------
    async def stream(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int,
    ) -> AsyncIterator[StreamEvent]:
        reply = self.reply(system, messages, tools)
        # Word by word, but a table row as one piece: tables arrive whole, rows at a time.
        chunks = re.findall(r"(?m)^\|[^\n]*\n?|\S+\s*|\s+", reply.text)
        finish = "tool_calls" if reply.calls else "stop"
        if len(chunks) > max_tokens:
            chunks, finish = (
                chunks[:max_tokens],
                ("tool_calls" if reply.calls else "length"),
            )
        for chunk in chunks:
            if self.delay:
                await asyncio.sleep(self.delay)
            yield TextDelta(chunk)
        for call in reply.calls:
            yield ToolCallReady(call)
        input_chars = len(system) + sum(len(m.content) for m in messages)
        yield StreamDone(
            finish, Usage(input_tokens=input_chars // 4, output_tokens=len(chunks))
        )

    async def summarise(self, messages: Sequence[Message], max_tokens: int) -> str:
        """A deterministic extractive summary: first sentence of each message, tool results kept short."""
        lines = [f"{SUMMARY_LABEL} {len(messages)} earlier messages:"]
        tables = known_tables(messages)
        if tables:  # what a good summary keeps: the facts the next steps need
            lines.append(_schema_line(tables))
        for message in messages:
            if message.summary:  # its facts carry over; its header lines do not pile up
                lines.extend(
                    ln
                    for ln in message.content.splitlines()[1:]
                    if not ln.startswith((_SCHEMA_LINE, SUMMARY_LABEL))
                )
                continue
            text = " ".join(message.content.split())
            first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0] if text else ""
            first = first if len(first) <= 120 else first[:117] + "…"
            if message.role is Role.USER:
                lines.append(f"- user asked: {first}")
            elif message.role is Role.TOOL:
                lines.append(f"- tool {message.name or ''} returned: {first[:80]}")
            elif message.tool_calls:
                lines.append(
                    "- assistant called "
                    + ", ".join(c.name for c in message.tool_calls)
                )
            elif first:
                lines.append(f"- {message.role.value}: {first}")
        summary = "\n".join(lines)
        return summary[: max(40, max_tokens * 4)]

    async def aclose(self) -> None:
        return None


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _properties(spec: ToolSpec) -> dict[str, Any]:
    return (spec.parameters or {}).get("properties") or {}


from aiq_tui.llm.demo_script import DemoScript as DemoScript  # noqa: E402 - re-exported
