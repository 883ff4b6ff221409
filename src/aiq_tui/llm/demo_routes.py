"""How the offline demo model reads a question: which tool it asks for, with what arguments.

Pure functions over the question text (and, for SQL, the tables the database reported).
The demo model (:mod:`aiq_tui.llm.demo`) uses them to route like an agent would: shell words
→ ``execute_command``, URLs → ``http_request``, files and notes → ``file_operations``
(reads, lists and writes), data questions → ``execute_sql``. It is pattern matching, not
understanding, and the demo says so in every answer.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "what",
        "which",
        "who",
        "how",
        "is",
        "are",
        "was",
        "were",
        "be",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "my",
        "me",
        "i",
        "you",
        "your",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "their",
        "from",
        "by",
        "at",
        "as",
        "about",
        "into",
        "please",
        "show",
        "tell",
        "give",
        "list",
        "all",
        "any",
        "some",
        "me",
        "us",
        "we",
        "our",
        "find",
        "get",
        "use",
        "using",
        "have",
        "has",
        "had",
        "than",
        "then",
        "them",
        "they",
        "not",
        "no",
        "yes",
        "also",
        "just",
        "more",
        "most",
    ]
)
DATA_WORDS = frozenset(
    [
        "table",
        "tables",
        "data",
        "database",
        "sql",
        "query",
        "rows",
        "book",
        "books",
        "customer",
        "customers",
        "order",
        "orders",
        "sales",
        "sold",
        "selling",
        "revenue",
        "product",
        "products",
        "author",
        "authors",
        "review",
        "reviews",
        "rating",
        "ratings",
        "genre",
        "genres",
        "price",
        "prices",
        "stock",
        "bestseller",
        "bestsellers",
        "count",
        "spent",
        "spending",
    ]
)
URL = re.compile(r"https?://[^\s)>\]\"'`]+")
_PATH = re.compile(
    r"(?<![\w/.-])((?:\.{0,2}/)?(?:[\w.-]+/)*[\w-][\w.-]*\.(?:md|txt|csv|json|ya?ml|log|sql|html|py|toml))\b"
)
_BACKTICK = re.compile(r"`([^`\n]+)`")
_NUMBER = re.compile(r"\b(?:top|first|last|latest|recent|the)?\s*(\d{1,3})\b")

LIST_TABLES_SQL = "SELECT name, sql FROM sqlite_master WHERE type='table' ORDER BY name"
MAX_ROWS = 200
"""The most rows a question may ask for in one query (what the SQL tool returns at most, sql_row_cap)."""


def terms(text: str) -> list[str]:
    words = re.findall(r"[a-z0-9][a-z0-9_-]+", text.lower())
    return [w for w in words if w not in STOPWORDS]


def stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


# -- files -----------------------------------------------------------------------------------


def file_path(question: str) -> str | None:
    """The first file path named in the question (``reports/x.md``, ``notes.txt``)."""
    match = _PATH.search(question)
    return match.group(1).rstrip(".") if match else None


def wants_write(question: str) -> bool:
    q = question.lower()
    verb = re.search(r"\b(save|write|store|append|jot|note down|put)\b", q)
    thing = re.search(r"\b(file|note|notes|report|todo|to-do|summary)\b", q)
    return bool(verb and (thing or file_path(question)))


def wants_read(question: str) -> bool:
    return bool(
        re.search(r"\b(read|open|show|print|display|cat|look at)\b", question.lower())
        and file_path(question)
    )


def wants_listing(question: str) -> bool:
    q = question.lower()
    return bool(
        re.search(
            r"\b(list|what|which|show)\b.*\b(files?|folders?|directory)\b|\bls\b", q
        )
    )


def slug(text: str, fallback: str = "notes") -> str:
    words = [
        w
        for w in terms(text)
        if w.isalnum() and w not in {"save", "write", "report", "note", "notes", "file"}
    ]
    return "-".join(words[:3]) or fallback


def note_text(question: str) -> str | None:
    """What to note for "save a note: buy milk" / "note that the demo works"."""
    match = re.search(r"\bnote(?:\s+down)?\s*(?::|that)\s*(.+)$", question, re.I | re.S)
    return match.group(1).strip().rstrip(".") if match else None


# -- shell ------------------------------------------------------------------------------------


def shell_argv(question: str, allowlist: Sequence[str] = ()) -> list[str] | None:
    """The command a question asks for, as an argv list; None when it asks for none.

    A command in backticks is taken as written (``run `wc -l README.md` ``); otherwise a few
    everyday requests map to the allowlisted programs the shell-basics skill lists.
    """
    q = question.lower()
    for quoted in _BACKTICK.findall(question):
        try:
            argv = shlex.split(quoted)
        except ValueError:
            continue
        if argv and (
            not allowlist
            or argv[0] in allowlist
            or re.search(r"\b(run|execute|command)\b", q)
        ):
            return argv
    path = file_path(question)
    where = path or _folder(question) or "."
    if re.search(r"\b(disk usage|how big|size of|how much space does)\b", q):
        return ["du", "-sh", where]
    if re.search(r"\b(free space|disk space|disk free|df)\b", q):
        return ["df", "-h"]
    if (
        path
        and re.search(r"\b(lines?|wc)\b", q)
        and re.search(r"\b(how many|count|number of|wc)\b", q)
    ):
        return ["wc", "-l", path]
    grep = re.search(
        r"\b(?:grep|search|look)\s+(?:for\s+)?[\"']([^\"']+)[\"']", question, re.I
    )
    if grep:
        return [
            "grep",
            "-rn",
            grep.group(1),
            where if path or _folder(question) else ".",
        ]
    find = re.search(
        r"\bfind\b.*?(\*?\.[a-z0-9]{1,5})\s+files?\b|\bfind\s+(?:all\s+)?(?:the\s+)?([a-z0-9]{1,5})\s+files\b",
        q,
    )
    if find:
        ext = find.group(1) or "." + find.group(2)
        return ["find", ".", "-name", ext if ext.startswith("*") else "*" + ext]
    if re.search(
        r"\bwhat(?:'s| is)? the (date|time)\b|\btoday'?s date\b|\bcurrent (date|time)\b",
        q,
    ):
        return ["date"]
    if re.search(r"\bwho ?am ?i\b|\bwhich user\b", q):
        return ["whoami"]
    if re.search(
        r"\b(kernel|operating system|uname|system information|system info)\b", q
    ):
        return ["uname", "-a"]
    if re.search(r"\b(pwd|current directory|working directory|where am i)\b", q):
        return ["pwd"]
    if re.search(r"\b(ls|run ls|list (the )?(folder|directory|contents))\b", q):
        return ["ls", "-la", where]
    return None


def _folder(question: str) -> str | None:
    match = re.search(r"\b(?:in|of|under)\s+(?:the\s+)?([\w.-]+/)(?:\s|$)", question)
    return match.group(1) if match else None


# -- HTTP -----------------------------------------------------------------------------------------


def http_method(question: str) -> str:
    q = question.lower()
    for method, words in (
        ("DELETE", r"\bdelete\b"),
        ("PUT", r"\b(put|replace)\b"),
        ("POST", r"\b(post|send|submit|create)\b"),
    ):
        if re.search(words, q):
            return method
    return "GET"


# -- SQL ------------------------------------------------------------------------------------------


def wants_data(question: str) -> bool:
    return bool({stem(w) for w in terms(question)} & {stem(w) for w in DATA_WORDS})


def requested_rows(question: str) -> int | None:
    """``"the 25 most recent orders"`` → 25 (capped at :data:`MAX_ROWS`)."""
    for match in _NUMBER.finditer(question):
        if file_path(question) and match.group(1) in (file_path(question) or ""):
            continue
        return max(1, min(MAX_ROWS, int(match.group(1))))
    return None


def create_columns(sql: str) -> set[str]:
    inside = sql[sql.find("(") + 1 : sql.rfind(")")] if "(" in sql else ""
    names = set()
    for part in inside.split(","):
        match = re.match(r"\s*[\"`\[]?([A-Za-z_][\w]*)", part)
        if match and match.group(1).upper() not in {
            "PRIMARY",
            "FOREIGN",
            "UNIQUE",
            "CHECK",
            "CONSTRAINT",
        }:
            names.add(match.group(1).lower())
    return names


# Questions about the bundled bookshop that an analyst asks; each needs these tables/columns.
_BOOKSHOP: tuple[tuple[str, dict[str, set[str]], str], ...] = (
    (
        r"\b(recent|latest|newest|last)\b.*\borders?\b",
        {"orders": {"customer_id", "ordered_on", "total"}, "customers": {"name"}},
        "SELECT o.id AS order_id, c.name AS customer, o.ordered_on, o.status, o.total FROM orders o "
        "JOIN customers c ON c.id = o.customer_id ORDER BY o.ordered_on DESC, o.id DESC LIMIT {n}",
    ),
    (
        r"\b(top|best|biggest)\b.*\bcustomers?\b|\bcustomers?\b.*\b(spent|spend|spending)\b",
        {"orders": {"customer_id", "total"}, "customers": {"name", "city"}},
        "SELECT c.name AS customer, c.city, COUNT(o.id) AS orders, ROUND(SUM(o.total), 2) AS spent "
        "FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.id ORDER BY spent DESC LIMIT {n}",
    ),
    (
        # "top 5 books by rating", "best-rated books": the reviews' average, not units sold
        r"\b(top|best|highest)\b.*\b(by|on)\s+(average\s+)?(ratings?|reviews?|stars?)\b"
        r"|\b(best|highest|top)[- ]rated\b|\b(best|highest|top)\s+(average\s+)?ratings?\b",
        {
            "reviews": {"book_id", "rating"},
            "books": {"title", "author_id"},
            "authors": {"name"},
        },
        "SELECT b.title, a.name AS author, ROUND(AVG(r.rating), 2) AS avg_rating, "
        "COUNT(r.id) AS reviews FROM books b JOIN reviews r ON r.book_id = b.id "
        "JOIN authors a ON a.id = b.author_id GROUP BY b.id "
        "ORDER BY avg_rating DESC, reviews DESC, b.title LIMIT {n}",
    ),
    (
        r"\b(recent|latest|newest|last)\b.*\breviews?\b|\breviews?\b.*\bratings?\b",
        {"reviews": {"book_id", "rating", "reviewed_on"}, "books": {"title"}},
        "SELECT b.title, r.rating, r.reviewed_on FROM reviews r JOIN books b ON b.id = r.book_id "
        "ORDER BY r.reviewed_on DESC, r.id DESC LIMIT {n}",
    ),
    (
        r"\b(low|least|lowest|running out|restock)\b.*\bstock\b|\bstock\b.*\b(low|least|lowest)\b",
        {"books": {"title", "genre", "stock"}},
        "SELECT title, genre, stock FROM books ORDER BY stock, title LIMIT {n}",
    ),
    (
        r"\b(expensive|priciest|dearest)\b.*\bbooks?\b",
        {"books": {"title", "price", "author_id"}, "authors": {"name"}},
        "SELECT b.title, a.name AS author, b.price FROM books b JOIN authors a ON a.id = b.author_id "
        "ORDER BY b.price DESC, b.title LIMIT {n}",
    ),
    (
        r"\brevenue\b.*\bgenres?\b|\bgenres?\b.*\brevenue\b",
        {"order_items": {"book_id", "quantity", "unit_price"}, "books": {"genre"}},
        "SELECT b.genre, SUM(i.quantity) AS units, ROUND(SUM(i.quantity * i.unit_price), 2) AS revenue "
        "FROM order_items i JOIN books b ON b.id = i.book_id GROUP BY b.genre ORDER BY revenue DESC LIMIT {n}",
    ),
    (
        r"\b(per|by|each)\s+month\b|\bmonthly\b",
        {"orders": {"ordered_on", "total"}},
        "SELECT strftime('%Y-%m', ordered_on) AS month, COUNT(*) AS orders, ROUND(SUM(total), 2) AS revenue "
        "FROM orders GROUP BY month ORDER BY month DESC LIMIT {n}",
    ),
)


def _has(tables: dict[str, set[str]], needs: dict[str, set[str]]) -> bool:
    return all(t in tables and columns <= tables[t] for t, columns in needs.items())


def relevant_query(question: str, tables: dict[str, set[str]]) -> str:
    """A query for the question given the tables (name → columns) the database reported."""
    q = question.lower()
    words = set(terms(q))
    rows = requested_rows(question)
    for pattern, needs, sql in _BOOKSHOP:
        if re.search(pattern, q) and _has(tables, needs):
            return sql.format(n=rows or 10)

    def table_for(*names: str) -> str | None:
        return next((t for t in tables if t.lower() in names), None)

    books, items = (
        table_for("books", "products"),
        table_for("order_items", "order_lines", "items"),
    )
    if (
        books
        and items
        and words
        & {
            "top",
            "best",
            "sell",
            "selling",
            "sales",
            "sold",
            "popular",
            "bestseller",
            "bestsellers",
        }
    ):
        title = "title" if "title" in tables[books] else "name"
        ref = "book_id" if "book_id" in tables[items] else "product_id"
        if (
            ref in tables[items]
            and "quantity" in tables[items]
            and title in tables[books]
        ):
            return (
                f'SELECT b.{title} AS {title}, SUM(i.quantity) AS units_sold FROM "{items}" i '
                f'JOIN "{books}" b ON b.id = i.{ref} GROUP BY b.id ORDER BY units_sold DESC, b.{title} '
                f"LIMIT {rows or 5}"
            )
    mentioned = [
        t
        for t in tables
        if stem(t.lower()) in {stem(w) for w in words} or t.lower().rstrip("s") in q
    ]
    if not mentioned:
        for word, table in (
            ("author", "authors"),
            ("customer", "customers"),
            ("review", "reviews"),
            ("rating", "reviews"),
            ("book", "books"),
            ("order", "orders"),
        ):
            if word in q and table_for(table):
                mentioned = [table_for(table) or table]
                break
    if mentioned:
        table = mentioned[0]
        if "how many" in q or "count" in words or "number" in words:
            return f'SELECT COUNT(*) AS count FROM "{table}"'
        if words & {"all", "every", "full", "everything"}:
            return f'SELECT * FROM "{table}"'
        return f'SELECT * FROM "{table}" LIMIT {rows or 10}'
    parts = [
        f"SELECT '{t}' AS table_name, COUNT(*) AS row_count FROM \"{t}\""
        for t in sorted(tables)
    ]
    return " UNION ALL ".join(parts) if parts else LIST_TABLES_SQL
