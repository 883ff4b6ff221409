"""The offline demo model: deterministic, clearly labelled, and it really calls tools.

It does not understand language and never pretends to: every answer starts with
``[demo model]``. It reads the loaded skills from the system prompt (``## Skill: <name>``
sections), quotes the lines most relevant to the question, and issues real tool calls when
the question asks for them — SQL on the sample database for questions about data, listing
files, fetching a URL, ``use_skill`` when a skill is named — then summarises the results
(SQL rows as a small markdown table). Argument names are read from each tool's JSON schema,
so it follows the tools as they are actually offered.

A question may end with ``(demo: answer with about N tokens)``; the demo then answers with
a labelled filler text of about that size. :class:`DemoScript` uses this to drive the
token budget through the 80/90/95 % compression stages in a scripted long demo.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Sequence

from aiq_tui.conversation import Message, Role, ToolCall, ToolSpec
from aiq_tui.llm.base import StreamDone, StreamEvent, TextDelta, ToolCallReady, Usage

LABEL = "[demo model]"
SUMMARY_LABEL = "[demo summary]"

_STOPWORDS = frozenset(
    "the a an and or of to in on for with what which who how is are was were be do does did "
    "can could should would will my me i you your it its this that these those there their "
    "from by at as about into please show tell give list all any some me us we our find get "
    "use using have has had than then them they not no yes also just more most".split()
)
_DATA_WORDS = frozenset(
    "table tables data database sql query rows book books customer customers order orders "
    "sales sold selling revenue product products author authors review reviews rating ratings "
    "genre genres price prices stock bestseller bestsellers count".split()
)
_URL = re.compile(r"https?://[^\s)>\]\"']+")
_LONG = re.compile(r"\(demo: answer with about (\d+) tokens\)", re.I)
_SKILL_NAMED = (
    re.compile(r"(?:^|\s)/skill\s+([A-Za-z0-9][\w.-]*)"),
    re.compile(r"\buse\s+(?:the\s+)?skill[:\s]+[`'\"]?([A-Za-z0-9][\w.-]*)", re.I),
    re.compile(r"\buse\s+(?:the\s+)?[`'\"]?([A-Za-z0-9][\w.-]*)[`'\"]?\s+skill\b", re.I),
)
_MAX_TABLE_ROWS = 10
# Plain, common words: about one token each, so "about N tokens" is about N words.
_FILLER = ("the demo keeps this line so the budget grows and the next stage of compression can "
           "show what it does with older turns").split()


@dataclass(frozen=True)
class SkillSection:
    name: str
    description: str
    content: str


def skill_sections(system: str) -> list[SkillSection]:
    """The ``## Skill: <name>`` sections the prompt builder writes, in prompt order."""
    sections: list[SkillSection] = []
    current: list[str] | None = None
    name = ""
    for line in system.splitlines() + ["# end"]:
        if line.startswith("## Skill: ") or (current is not None and re.match(r"^#{1,2} (?!#)", line)):
            if current is not None:
                body = "\n".join(current).strip("\n")
                description, _, content = body.partition("\n\n")
                sections.append(SkillSection(name, description.strip(), content.strip()))
                current = None
            if line.startswith("## Skill: "):
                name, current = line[len("## Skill: "):].strip(), []
            continue
        if current is not None:
            current.append(line)
    return sections


def terms(text: str) -> list[str]:
    words = re.findall(r"[a-z0-9][a-z0-9_-]+", text.lower())
    return [w for w in words if w not in _STOPWORDS]


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _overlap(query: Sequence[str], text: str) -> int:
    wanted = {_stem(t) for t in query}
    return sum(1 for w in terms(text) if _stem(w) in wanted)


def best_skill(sections: Sequence[SkillSection], question: str) -> SkillSection | None:
    query = terms(question)
    scored = [
        (_overlap(query, s.name.replace("-", " ")) * 3 + _overlap(query, s.description) * 2
         + _overlap(query, s.content), -index, s)
        for index, s in enumerate(sections)
    ]
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return scored[0][2] if scored and scored[0][0] > 0 else None


def relevant_lines(section: SkillSection, question: str, limit: int) -> list[str]:
    query = terms(question)
    lines = [ln.strip() for ln in section.content.splitlines()]
    candidates = [(i, ln) for i, ln in enumerate(lines) if len(ln) > 3 and not ln.startswith("```")]
    ranked = sorted(candidates, key=lambda item: (-_overlap(query, item[1]), item[0]))
    chosen = sorted(ranked[:limit])
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
    values = (((spec.parameters or {}).get("properties") or {}).get(key) or {}).get("enum") or []
    if not values or wanted in values:
        return wanted
    return next((v for v in values if wanted in str(v)), values[0])


def _decode(content: str) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return content


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 40 else text[:37] + "…"


def markdown_table(columns: Sequence[str], rows: Sequence[Any], limit: int = _MAX_TABLE_ROWS) -> str:
    lines = ["| " + " | ".join(_cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    for row in rows[:limit]:
        values = [row.get(c) for c in columns] if isinstance(row, dict) else list(row)
        lines.append("| " + " | ".join(_cell(v) for v in values) + " |")
    if len(rows) > limit:
        lines.append(f"\n… and {len(rows) - limit} more rows")
    return "\n".join(lines)


def _rows(result: Any) -> tuple[list[str], list[Any]] | None:
    if isinstance(result, dict) and isinstance(result.get("rows"), list):
        rows = result["rows"]
        columns = result.get("columns") or (list(rows[0]) if rows and isinstance(rows[0], dict) else [])
        return [str(c) for c in columns], rows
    if isinstance(result, list) and all(isinstance(r, dict) for r in result):
        return (list(result[0]) if result else []), result
    return None


def _create_columns(sql: str) -> set[str]:
    inside = sql[sql.find("(") + 1: sql.rfind(")")] if "(" in sql else ""
    names = set()
    for part in inside.split(","):
        match = re.match(r"\s*[\"`\[]?([A-Za-z_][\w]*)", part)
        if match and match.group(1).upper() not in {"PRIMARY", "FOREIGN", "UNIQUE", "CHECK", "CONSTRAINT"}:
            names.add(match.group(1).lower())
    return names


LIST_TABLES_SQL = "SELECT name, sql FROM sqlite_master WHERE type='table' ORDER BY name"


def relevant_query(question: str, tables: dict[str, set[str]]) -> str:
    """A query for the question given the tables (name → columns) the first query found."""
    q = question.lower()
    words = set(terms(q))

    def table_for(*names: str) -> str | None:
        return next((t for t in tables if t.lower() in names), None)

    books, items = table_for("books", "products"), table_for("order_items", "order_lines", "items")
    if books and items and words & {"top", "best", "sell", "selling", "sales", "sold", "popular", "bestseller", "bestsellers"}:
        title = "title" if "title" in tables[books] else "name"
        ref = "book_id" if "book_id" in tables[items] else "product_id"
        if ref in tables[items] and "quantity" in tables[items] and title in tables[books]:
            return (f'SELECT b.{title} AS {title}, SUM(i.quantity) AS units_sold FROM "{items}" i '
                    f'JOIN "{books}" b ON b.id = i.{ref} GROUP BY b.id ORDER BY units_sold DESC, b.{title} LIMIT 5')
    mentioned = [t for t in tables if _stem(t.lower()) in {_stem(w) for w in words}
                 or t.lower().rstrip("s") in q]
    if not mentioned:
        for word, table in (("author", "authors"), ("customer", "customers"), ("review", "reviews"),
                            ("rating", "reviews"), ("book", "books"), ("order", "orders")):
            if word in q and table_for(table):
                mentioned = [table_for(table) or table]
                break
    if mentioned:
        table = mentioned[0]
        if "how many" in q or "count" in words or "number" in words:
            return f'SELECT COUNT(*) AS count FROM "{table}"'
        if words & {"all", "every", "full", "everything"}:
            return f'SELECT * FROM "{table}"'
        return f'SELECT * FROM "{table}" LIMIT 10'
    parts = [f"SELECT '{t}' AS table_name, COUNT(*) AS row_count FROM \"{t}\"" for t in sorted(tables)]
    return " UNION ALL ".join(parts) if parts else LIST_TABLES_SQL


@dataclass(frozen=True)
class DemoReply:
    text: str
    calls: tuple[ToolCall, ...] = ()


@dataclass
class _Turn:
    question: str
    calls: list[ToolCall] = field(default_factory=list)
    results: dict[str, Message] = field(default_factory=dict)

    def calls_to(self, name: str) -> list[ToolCall]:
        return [c for c in self.calls if c.name == name]


def _current_turn(messages: Sequence[Message]) -> _Turn:
    start = max((i for i, m in enumerate(messages) if m.role is Role.USER and not m.summary), default=-1)
    turn = _Turn(messages[start].content if start >= 0 else "")
    for message in messages[start + 1:]:
        turn.calls.extend(message.tool_calls)
        if message.role is Role.TOOL and message.tool_call_id:
            turn.results[message.tool_call_id] = message
    return turn


class DemoProvider:
    """Implements the Provider protocol offline. ``delay`` seconds between streamed words."""

    is_demo = True
    kind = "demo"

    def __init__(self, name: str = "demo", model: str = "aiq-demo", delay: float = 0.0):
        self.name, self.model, self.delay = name, model, delay
        self.on_retry = None  # never retries; present so the engine can treat providers alike

    # -- the decision -------------------------------------------------------------------------
    def reply(self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> DemoReply:
        """What the demo answers (deterministic in its inputs)."""
        turn = _current_turn(messages)
        offered = {t.name: t for t in tools}
        question = _LONG.sub("", turn.question).strip()
        call = self._next_call(question, turn, offered, len(messages))
        if call is not None:
            return DemoReply(f"{LABEL} {self._call_note(call)}", (call,))
        return DemoReply(self._answer(system, question, turn, _LONG.search(turn.question)))

    def _call_id(self, question: str, position: int) -> str:
        digest = hashlib.sha1(f"{question}\0{position}".encode()).hexdigest()[:10]
        return f"demo_{digest}"

    def _next_call(self, question: str, turn: _Turn, offered: dict[str, ToolSpec], position: int) -> ToolCall | None:
        q = question.lower()
        call_id = self._call_id(question, position)
        named = next((m.group(1) for p in _SKILL_NAMED if (m := p.search(question))), None)
        if named and "use_skill" in offered and not turn.calls_to("use_skill"):
            spec = offered["use_skill"]
            return ToolCall(call_id, "use_skill", {_arg(spec, ("skill_name", "name", "skill"), "name"): named})
        if "execute_sql" in offered and set(terms(q)) & _DATA_WORDS:
            spec = offered["execute_sql"]
            sql_key = _arg(spec, ("sql", "query", "statement"), "sql")
            source_key = _arg(spec, ("source", "database", "db"), "")
            done = turn.calls_to("execute_sql")

            def sql_call(sql: str) -> ToolCall:
                arguments = {sql_key: sql}
                if source_key:
                    arguments[source_key] = "sample"
                return ToolCall(call_id, "execute_sql", arguments)

            if not done:
                return sql_call(LIST_TABLES_SQL)
            if len(done) == 1:
                listing = _rows(_decode(turn.results[done[0].id].content)) if done[0].id in turn.results else None
                if listing and listing[1]:
                    columns, rows = listing
                    tables: dict[str, set[str]] = {}
                    for row in rows:
                        values = [row.get(c) for c in columns] if isinstance(row, dict) else list(row)
                        sql = str(values[1]) if len(values) > 1 and values[1] else ""
                        tables[str(values[0])] = _create_columns(sql)
                    tables = {t: c for t, c in tables.items() if not t.startswith("sqlite_")}
                    if tables:
                        return sql_call(relevant_query(question, tables))
        if "file_operations" in offered and re.search(r"\b(list|what|which|show)\b.*\bfiles?\b|\bls\b", q):
            if not turn.calls_to("file_operations"):
                spec = offered["file_operations"]
                op_key = _arg(spec, ("operation", "op", "action"), "operation")
                return ToolCall(call_id, "file_operations", {
                    op_key: _enum_choice(spec, op_key, "list"), _arg(spec, ("path",), "path"): "."})
        url = _URL.search(question)
        if url and "http_request" in offered and re.search(r"\b(fetch|get|download|open|request|call)\b", q):
            if not turn.calls_to("http_request"):
                spec = offered["http_request"]
                arguments = {_arg(spec, ("url",), "url"): url.group(0).rstrip(".,;")}
                if "method" in ((spec.parameters or {}).get("properties") or {}):
                    arguments["method"] = "GET"
                return ToolCall(call_id, "http_request", arguments)
        return None

    @staticmethod
    def _call_note(call: ToolCall) -> str:
        if call.name == "execute_sql":
            sql = next(iter(v for k, v in call.arguments.items() if k != "source"), "")
            return f"Running SQL on the sample database: `{sql}`"
        if call.name == "use_skill":
            return f"Loading the skill `{next(iter(call.arguments.values()), '')}`."
        if call.name == "file_operations":
            return "Listing the files in the current directory."
        return f"Calling `{call.name}`."

    # -- the answer -----------------------------------------------------------------------------
    def _answer(self, system: str, question: str, turn: _Turn, long: re.Match[str] | None) -> str:
        if long:
            return f"{LABEL} " + self._padding(int(long.group(1)))
        parts: list[str] = []
        for call in turn.calls:
            result = turn.results.get(call.id)
            if result is not None:
                parts.append(self._render_result(call, result))
        sections = skill_sections(system)
        skill = best_skill(sections, question)
        if skill is not None:
            quoted = relevant_lines(skill, question, 4)
            intro = f"From the skill **{skill.name}** ({skill.description})" if skill.description else f"From the skill **{skill.name}**"
            parts.append(intro + ":\n" + "\n".join(f"> {line}" for line in quoted) if quoted else intro + ".")
        if not parts:
            if sections:
                parts.append(f"None of the loaded skills ({', '.join(s.name for s in sections)}) mentions "
                             f"what you asked about.")
            else:
                parts.append("No skill is loaded for this question.")
            parts.append("I am the offline demo model: I quote loaded skills and run tools, but I do not "
                         "understand language. Configure a real provider (llm.provider in config.yaml) for real answers.")
        return f"{LABEL} " + "\n\n".join(parts)

    @staticmethod
    def _padding(tokens: int) -> str:
        # Common short words cost about one token each, so the answer lands near ``tokens``.
        words = ["(Scripted", "long", "answer", "for", "the", "compression", "demo.)"]
        while len(words) < tokens:
            words.extend(_FILLER[: tokens - len(words)])
        return " ".join(words)

    @staticmethod
    def _render_result(call: ToolCall, result: Message) -> str:
        data = _decode(result.content)
        if isinstance(data, dict) and data.get("error"):
            return f"`{call.name}` failed: {data['error']}"
        if call.name == "execute_sql":
            table = _rows(data)
            sql = next(iter(v for k, v in call.arguments.items() if k != "source"), "")
            if table is not None:
                columns, rows = table
                if "sqlite_master" in str(sql):
                    names = [str(r.get(columns[0]) if isinstance(r, dict) else r[0]) for r in rows]
                    return f"The sample database has {len(names)} tables: {', '.join(names)}."
                count = f"{len(rows)} row" + ("" if len(rows) == 1 else "s")
                return f"`{sql}` returned {count}:\n\n" + markdown_table(columns, rows)
        if call.name == "file_operations":
            entries = data.get("entries") if isinstance(data, dict) else data
            if isinstance(entries, list):
                names = [str(e.get("name", e)) if isinstance(e, dict) else str(e) for e in entries]
                shown = ", ".join(f"`{n}`" for n in names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
                return f"The directory holds {len(names)} entries: {shown}."
        if call.name == "use_skill":
            return f"The skill `{next(iter(call.arguments.values()), '')}` is now active."
        text = result.content if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        return f"`{call.name}` returned: " + (text[:300] + "…" if len(text) > 300 else text)

    # -- the Provider protocol --------------------------------------------------------------------
    async def stream(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec], max_tokens: int
    ) -> AsyncIterator[StreamEvent]:
        reply = self.reply(system, messages, tools)
        chunks = re.findall(r"\S+\s*|\s+", reply.text)
        finish = "tool_calls" if reply.calls else "stop"
        if len(chunks) > max_tokens:
            chunks, finish = chunks[:max_tokens], ("tool_calls" if reply.calls else "length")
        for chunk in chunks:
            if self.delay:
                await asyncio.sleep(self.delay)
            yield TextDelta(chunk)
        for call in reply.calls:
            yield ToolCallReady(call)
        input_chars = len(system) + sum(len(m.content) for m in messages)
        yield StreamDone(finish, Usage(input_tokens=input_chars // 4, output_tokens=len(chunks)))

    async def summarise(self, messages: Sequence[Message], max_tokens: int) -> str:
        """A deterministic extractive summary: first sentence of each message, tool results kept short."""
        lines = [f"{SUMMARY_LABEL} {len(messages)} earlier messages:"]
        for message in messages:
            text = " ".join(message.content.split())
            first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0] if text else ""
            first = first if len(first) <= 120 else first[:117] + "…"
            if message.role is Role.USER:
                lines.append(f"- user asked: {first}")
            elif message.role is Role.TOOL:
                lines.append(f"- tool {message.name or ''} returned: {first[:80]}")
            elif message.tool_calls:
                lines.append("- assistant called " + ", ".join(c.name for c in message.tool_calls))
            elif first:
                lines.append(f"- {message.role.value}: {first}")
        summary = "\n".join(lines)
        return summary[: max(40, max_tokens * 4)]

    async def aclose(self) -> None:
        return None


# -- the scripted long demo ----------------------------------------------------------------------

DEFAULT_ANSWER_SHARES = (0.06,) * 9 + (0.30, 0.06, 0.22, 0.06, 0.06)
"""Static answer sizes (shares of the window) for :meth:`DemoScript.long_conversation`: a steady
climb past 80 %, then big answers that jump past 90 % and 95 % right after a compression."""

_TOPICS = (
    # Questions the demo answers without tools, so each scripted turn is one model call and
    # its size is what the script asked for (tool results would add unplanned tokens).
    "Explain how skills are chosen for a question.",
    "How does the token budget decide what to compress?",
    "Why are some skills only shown as a brief?",
    "What happens to old messages when the window fills up?",
    "Describe the difference between Active, Relevant and Inactive skills.",
    "What should a good SKILL.md description contain?",
    "Which parts of the prompt cost the most tokens right now?",
    "Summarise what we have found so far.",
    "How are tool calls approved?",
)


def _turn(index: int, tokens: int) -> str:
    return f"{_TOPICS[index % len(_TOPICS)]} (demo: answer with about {max(20, tokens)} tokens)"


@dataclass
class DemoScript:
    """User turns that, played against the demo with a small window, walk the token budget
    through every compression stage (80 %, then 90 %, then 95 %).

    Two ways to use it:

    * ``DemoScript.long_conversation(window).turns`` — a fixed list sized by the window,
      tuned for a 4096-token window with the default 1024-token output reserve and a small
      prompt (it depends on the prompt's overhead; prefer the adaptive form);
    * adaptive, robust to any prompt overhead: ``script = DemoScript(window)``, then before each
      turn ``text = script.next_turn(fraction)`` with the share of the window in use after the
      previous turn (0 before the first); ``None`` means every stage has been reached and
      fired. It aims each answer at the middle of the next stage's band, and sends a short
      turn whenever a threshold was crossed (the turn that makes the engine compress).
    """

    window: int
    turns: tuple[str, ...] = ()
    thresholds: tuple[float, float, float] = (0.80, 0.90, 0.95)
    max_turns: int = 60
    max_answer: int | None = None  # tokens the model may answer (the output reserve), None = no cap
    stage: int = 0  # how many thresholds have been crossed so far
    played: int = 0
    start: float | None = None  # the budget share before the first turn

    @classmethod
    def long_conversation(
        cls, window: int = 4096, shares: Sequence[float] = DEFAULT_ANSWER_SHARES
    ) -> "DemoScript":
        turns = tuple(_turn(i, int(window * share)) for i, share in enumerate(shares))
        return cls(window=window, turns=turns)

    @classmethod
    def from_settings(cls, window: int, settings: Any) -> "DemoScript":
        """Thresholds from a :class:`~aiq_tui.config.ContextSettings`."""
        return cls(window=window, thresholds=(settings.compress_at, settings.evict_at, settings.aggressive_at),
                   max_answer=int(settings.reserve_output * 0.9))

    def next_turn(self, fraction: float) -> str | None:
        if self.played >= self.max_turns:
            return None
        crossed = sum(1 for t in self.thresholds if fraction >= t)
        if crossed > self.stage:
            # This turn makes the engine compress; keep it short and aim again once the
            # budget after compression is known.
            self.stage = crossed
            return self._emit(20)
        if self.stage >= len(self.thresholds):
            return None
        low = self.thresholds[self.stage]
        high = self.thresholds[self.stage + 1] if self.stage + 1 < len(self.thresholds) else 1.0
        target = (low + high) / 2
        if self.start is None:
            self.start = fraction
        # Before the first compression, climb in about ten steps so that there is far more
        # history than ``keep_last`` messages to summarise when 80 % is crossed.
        cap = max(0.015, (low - self.start) / 10) if self.stage == 0 else 0.35
        user = 30 / self.window  # the question itself
        share = min(cap, max(0.01, target - fraction - user))
        tokens = int(self.window * share)
        # An answer cannot exceed the output reserve; the script then climbs over several turns.
        return self._emit(min(tokens, self.max_answer) if self.max_answer else tokens)

    def _emit(self, tokens: int) -> str:
        self.played += 1
        return _turn(self.played - 1, tokens)
