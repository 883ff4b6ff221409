"""Read a shell script the way ``sh`` would — enough to see through the usual evasions.

The dangerous-pattern check (:func:`aiq_tui.skills.executor.find_dangerous`) is a first
filter; the sandbox and the process limits contain whatever it misses. But a line-by-line
pattern is no filter at all when ``R=rm; $R -rf /``, ``rm -rf `printf /` `` or ``\\rm`` defeat
it. This module splits a script into simple commands after quote removal and expansion:

* quotes and backslashes are removed (``'r'm``, ``r\\m`` and ``"rm"`` are ``rm``);
* ``$VAR`` / ``${VAR}`` / ``${VAR:-default}`` take what the script assigned (an unquoted value
  splits into words, as in ``CMD="rm -rf"; $CMD /``); an unknown value is empty;
* ``$(…)`` and backquotes are evaluated when they only ``echo`` or ``printf`` literal text;
  otherwise their value is unknown (never a match);
* each command knows the text fed to its stdin when that is literal: a here-string, a
  here-document, or ``echo``/``printf`` piped into it — so ``echo 'rm -rf /' | sh`` is read as
  the ``sh`` script it is;
* ``$0`` (the script itself) is kept as a marker, for ``sh "$0" &``.

:func:`commands` returns the simple commands with their context (backgrounded, in a pipeline,
stdin text); :func:`functions` the function bodies by name. Anything the lexer cannot read
(unbalanced quotes) raises :class:`ShellSyntaxError`, and the caller falls back to patterns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

UNKNOWN = "\x00?"
"""Stands for a value the scan cannot know (a real command's output, the environment)."""
SELF = "\x00$0"
"""Stands for ``$0``: the script's own path."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
_OPERATORS = ("&&", "||", ";;", "|&", "&", "|", ";", "(", ")", "\n")
_OPERATOR_HEADS = frozenset(operator[0] for operator in _OPERATORS)
_BLANKS = re.compile(r"[ \t]+")
_PLAIN_RUN = re.compile(r"[^ \t\n;&|()<>'\"\\$`]+")
"""Characters :meth:`_Lexer._word` takes as they are: none that ends a word or starts a quote,
an escape or an expansion."""
_REDIRECT = re.compile(
    r"(\d*)(<<<|<<-|<<|>>|>&|<&|&>>|&>|>\||<>|>|<)"
)  # .match(text, pos): no ^
KEYWORDS = frozenset(
    {
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "do",
        "done",
        "while",
        "until",
        "for",
        "case",
        "esac",
        "in",
        "{",
        "}",
        "!",
        "function",
        "select",
        "time",
    }
)
_MAX_DEPTH = 8


class ShellSyntaxError(ValueError):
    """The text is not a shell script this scanner can read (unbalanced quotes, …)."""


@dataclass
class Command:
    """One simple command after expansion."""

    argv: list[str]
    operator: str = (
        ""  # what ended it: ";", "&", "|", "&&", "||", "\n", ")" or "" at the end
    )
    piped_in: bool = False
    stdin: str | None = None  # literal text fed to it, when known
    redirects: list[tuple[str, str]] = field(default_factory=list)

    @property
    def background(self) -> bool:
        return self.operator == "&"

    @property
    def in_pipeline(self) -> bool:
        return self.piped_in or self.operator in ("|", "|&")


@dataclass
class Script:
    """A scanned script: its commands in order and the raw token stream of words/operators."""

    commands: list[Command]
    tokens: list[tuple[str, str]]  # ("word", text) | ("op", operator)


class _Lexer:
    def __init__(self, text: str, variables: dict[str, str], depth: int) -> None:
        self.text = text
        self.pos = 0
        self.variables = variables
        self.depth = depth
        self.tokens: list[tuple[str, str]] = []
        self.commands: list[Command] = []
        self._argv: list[str] = []
        self._redirects: list[tuple[str, str]] = []
        self._stdin: str | None = None
        self._pending_heredocs: list[
            tuple[str, bool, int]
        ] = []  # (delimiter, expand, command index)
        self._piped_in = False
        self._heredoc_targets: dict[int, str] = {}

    # -- driving --------------------------------------------------------------------------------
    def run(self) -> Script:
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char in " \t":
                self.pos = _BLANKS.match(self.text, self.pos).end()  # type: ignore[union-attr]
            elif char == "#":
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            elif char == "\\" and self.text.startswith("\\\n", self.pos):
                self.pos += 2
            else:
                operator = self._operator()
                if operator is not None:
                    self._end_command(operator)
                    if operator == "\n":
                        self._read_heredocs()
                    continue
                redirect = _REDIRECT.match(self.text, self.pos)
                if redirect:
                    self.pos = redirect.end()
                    self._redirect(redirect.group(2))
                    continue
                before = self.pos
                fields = self._word()
                if fields is None:
                    self.pos = max(
                        self.pos, before + 1
                    )  # a character no rule reads: skip it
                    continue
                for text in fields:
                    self.tokens.append(("word", text))
                self._argv.extend(fields)
        self._end_command("")
        self._read_heredocs()
        for index, body in self._heredoc_targets.items():
            if index < len(self.commands):
                self.commands[index].stdin = body
        for previous, command in zip(self.commands, self.commands[1:]):
            if command.piped_in and command.stdin is None:
                command.stdin = literal_output(previous)  # echo 'rm -rf /' | sh
        return Script(self.commands, self.tokens)

    def _operator(self) -> str | None:
        if self.text[self.pos] not in _OPERATOR_HEADS:
            return None  # most positions start a word: no operator to try
        for operator in _OPERATORS:
            if self.text.startswith(operator, self.pos):
                self.pos += len(operator)
                return operator
        return None

    def _end_command(self, operator: str) -> None:
        self.tokens.append(("op", operator))
        argv, self._argv = self._argv, []
        redirects, self._redirects = self._redirects, []
        stdin, self._stdin = self._stdin, None
        if not argv and not redirects:
            self._piped_in = operator in ("|", "|&") and self._piped_in
            return
        # Assignments only (``R=rm``): remembered for later expansions. Prefix assignments
        # (``X=1 cmd``) are remembered too — a filter errs on the side of knowing more.
        words = list(argv)
        while words and _ASSIGNMENT.match(words[0]) and not words[0].startswith("="):
            name, value = _ASSIGNMENT.match(words[0]).groups()  # type: ignore[union-attr]
            self.variables[name] = value
            words.pop(0)
        while words and words[0] in (
            "export",
            "local",
            "readonly",
            "declare",
            "typeset",
        ):
            for word in words[1:]:
                match = _ASSIGNMENT.match(word)
                if match:
                    self.variables[match.group(1)] = match.group(2)
            words = []
        while words and words[0] in KEYWORDS:  # `do rm -rf /`, `{ b & }`, `then …`
            words.pop(0)
        self.commands.append(Command(words, operator, self._piped_in, stdin, redirects))
        self._piped_in = operator in ("|", "|&")

    def _redirect(self, kind: str) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1
        if kind in ("<<", "<<-"):
            start = self.pos
            fields = self._word() or [""]
            raw = self.text[start : self.pos]
            quoted = any(q in raw for q in "'\"\\")
            self._pending_heredocs.append((fields[0], not quoted, len(self.commands)))
            return
        fields = self._word() or [""]
        target = " ".join(fields)
        if kind == "<<<":
            self._stdin = target + "\n"
        else:
            self._redirects.append((kind, target))

    def _read_heredocs(self) -> None:
        while self._pending_heredocs:
            delimiter, expand, index = self._pending_heredocs.pop(0)
            lines: list[str] = []
            while self.pos < len(self.text):
                end = self.text.find("\n", self.pos)
                line = self.text[self.pos :] if end < 0 else self.text[self.pos : end]
                self.pos = len(self.text) if end < 0 else end + 1
                if line.strip("\t") == delimiter:
                    break
                lines.append(line)
            body = "\n".join(lines) + "\n"
            if expand:
                body = "".join(_Lexer(body, self.variables, self.depth)._expanded())
            self._heredoc_targets[index] = body

    # -- words ----------------------------------------------------------------------------------
    def _word(self) -> list[str] | None:
        """The fields of the word at ``pos`` (unquoted expansions split on blanks)."""
        fields: list[str] = [""]
        started = False
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\n;&|()<>":
                break
            started = True
            if char == "'":
                end = text.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("unterminated single quote")
                fields[-1] += text[self.pos + 1 : end]
                self.pos = end + 1
            elif char == '"':
                fields[-1] += "".join(self._double_quoted())
            elif char == "\\":
                if self.pos + 1 < len(text) and text[self.pos + 1] != "\n":
                    fields[-1] += text[self.pos + 1]
                self.pos += 2
            elif char == "$" and text.startswith("$'", self.pos):
                end = self._closing("'", self.pos + 2, escapes=True)
                fields[-1] += _ansi_c(text[self.pos + 2 : end])
                self.pos = end + 1
            elif char in "$`":
                value = self._expansion()
                parts = value.split()
                if not parts:
                    continue
                if value[:1].isspace():
                    fields.append("")
                fields[-1] += parts[0]
                for part in parts[1:]:
                    fields.append(part)
                if value[-1:].isspace():
                    fields.append("")
            else:  # a run of plain characters at once (a 2,000-line script is mostly these)
                plain = _PLAIN_RUN.match(text, self.pos)
                end = plain.end() if plain else self.pos + 1
                fields[-1] += text[self.pos : end]
                self.pos = end
        if not started:
            return None
        fields = [f for f in fields if f != ""] or ([""] if started else [])
        return fields

    def _double_quoted(self) -> list[str]:
        """The text of a "…" string at ``pos`` (which is at the opening quote)."""
        self.pos += 1
        return self._expanded('"')

    def _expanded(self, closing: str | None = None) -> list[str]:
        """Text with its expansions, up to ``closing`` (``"`` for a "…" string; None: all of
        it, a here-document body). A backslash escapes ``$``, a backquote, itself and, inside
        quotes, ``"``; otherwise it stays."""
        text = self.text
        escapable = '$`"\\' if closing else "$`\\"
        out: list[str] = []
        while True:
            if self.pos >= len(text):
                if closing:
                    raise ShellSyntaxError("unterminated double quote")
                return out
            char = text[self.pos]
            if char == closing:
                self.pos += 1
                return out
            if char == "\\" and self.pos + 1 < len(text):
                following = text[self.pos + 1]
                if following in escapable:
                    out.append(following)
                elif not (following == "\n" and closing):
                    out.append("\\" + following)
                self.pos += 2
            elif char in "$`":
                out.append(self._expansion())
            else:
                out.append(char)
                self.pos += 1

    def _closing(self, quote: str, start: int, escapes: bool = False) -> int:
        index = start
        while index < len(self.text):
            if escapes and self.text[index] == "\\":
                index += 2
                continue
            if self.text[index] == quote:
                return index
            index += 1
        raise ShellSyntaxError(f"unterminated {quote}")

    def _expansion(self) -> str:
        """``$NAME``, ``${…}``, ``$(…)``, ``$((…))`` or a backquoted command at ``pos``."""
        text = self.text
        if text[self.pos] == "`":
            end = self._closing("`", self.pos + 1, escapes=True)
            inner = text[self.pos + 1 : end].replace("\\`", "`").replace("\\\\", "\\")
            self.pos = end + 1
            return self._substitute(inner)
        following = text[self.pos + 1 : self.pos + 2]
        if text.startswith("$((", self.pos):
            end = _matching(text, self.pos + 1)
            self.pos = end + 1
            return UNKNOWN
        if following == "(":
            end = _matching(text, self.pos + 1)
            inner = text[self.pos + 2 : end]
            self.pos = end + 1
            return self._substitute(inner)
        if following == "{":
            end = text.find("}", self.pos + 2)
            if end < 0:
                raise ShellSyntaxError("unterminated ${")
            inner = text[self.pos + 2 : end]
            self.pos = end + 1
            return self._parameter(inner)
        match = _NAME.match(text, self.pos + 1)
        if match:
            self.pos = match.end()
            return self._variable(match.group(0))
        if following == "0":
            self.pos += 2
            return SELF
        if following and (following.isdigit() or following in "@*#?$!-"):
            self.pos += 2
            return UNKNOWN
        self.pos += 1
        return "$"

    def _variable(self, name: str) -> str:
        if name in self.variables:
            return self.variables[name]
        if name == "HOME":
            return "~"
        return ""

    def _parameter(self, inner: str) -> str:
        match = re.match(
            r"^([A-Za-z_][A-Za-z0-9_]*|0|\d+|[@*#?$!])(?:(:?[-=?+])(.*))?$",
            inner,
            re.DOTALL,
        )
        if not match:
            return UNKNOWN
        name, operator, word = match.groups()
        if name == "0":
            return SELF
        value = self._variable(name) if _NAME.fullmatch(name) else UNKNOWN
        if operator in (":-", "-", ":=", "="):
            set_ = name in self.variables and (operator in ("-", "=") or value != "")
            if not set_:
                value = "".join(_Lexer(word, self.variables, self.depth)._expanded())
                if operator in (":=", "="):
                    self.variables[name] = value
        elif operator in (":+", "+"):
            value = word if value else ""
        return value

    def _substitute(self, inner: str) -> str:
        """The output of ``$(inner)`` when it only prints literal text, else :data:`UNKNOWN`."""
        if self.depth >= _MAX_DEPTH:
            return UNKNOWN
        try:
            script = _Lexer(inner, dict(self.variables), self.depth + 1).run()
        except ShellSyntaxError:
            return UNKNOWN
        printed = [literal_output(command) for command in script.commands]
        if not printed or any(text is None for text in printed):
            return UNKNOWN
        return "".join(printed).rstrip("\n")  # type: ignore[arg-type]


def _matching(text: str, start: int) -> int:
    """The index of the ``)`` closing the ``(`` at ``start`` (quotes respected)."""
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "'":
            end = text.find("'", index + 1)
            if end < 0:
                raise ShellSyntaxError("unterminated single quote")
            index = end + 1
            continue
        if char == '"':
            index += 1
            while index < len(text) and text[index] != '"':
                index += 2 if text[index] == "\\" else 1
            index += 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    raise ShellSyntaxError("unterminated (")


def _ansi_c(text: str) -> str:
    try:
        return text.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return text


def _printf(arguments: list[str]) -> str:
    if not arguments:
        return ""
    fmt, values = arguments[0], arguments[1:]
    if "%" not in fmt:
        return _ansi_c(fmt)
    out: list[str] = []
    while True:
        produced = re.sub(
            r"%[-+ #0]*\d*(?:\.\d+)?[sdbqc]|%%",
            lambda m: "%" if m.group(0) == "%%" else (values.pop(0) if values else ""),
            fmt,
        )
        out.append(_ansi_c(produced))
        if not values:
            return "".join(out)


def literal_output(command: Command) -> str | None:
    """What ``command`` prints when it is ``echo``/``printf`` of known text (else None)."""
    argv = command.argv
    if not argv or any(UNKNOWN in word for word in argv):
        return None
    name = argv[0].rsplit("/", 1)[-1]
    if name == "echo":
        words = argv[1:]
        newline = True
        while words and re.fullmatch(r"-[neE]+", words[0]):
            newline = newline and "n" not in words[0]
            words = words[1:]
        return " ".join(words) + ("\n" if newline else "")
    if name == "printf":
        return _printf(argv[1:])
    if name == "cat" and len(argv) == 1 and command.stdin is not None:
        return command.stdin
    return None


def scan(text: str, variables: dict[str, str] | None = None, depth: int = 0) -> Script:
    """The simple commands of ``text`` (see the module doc); :class:`ShellSyntaxError` when it
    cannot be read."""
    return _Lexer(text, dict(variables or {}), depth).run()


def functions(script: Script) -> dict[str, list[tuple[str, str]]]:
    """Function bodies by name, as token runs: ``f() { … }``, ``f() ( … )``, ``function f { … }``."""
    tokens = script.tokens
    found: dict[str, list[tuple[str, str]]] = {}
    index = 0
    while index < len(tokens):
        name = None
        start = None
        kind, value = tokens[index]
        if (
            kind == "word"
            and value == "function"
            and index + 1 < len(tokens)
            and tokens[index + 1][0] == "word"
        ):
            name = tokens[index + 1][1]
            start = index + 2
            if tokens[start : start + 2] == [("op", "("), ("op", ")")]:
                start += 2
        elif (
            kind == "word"
            and _NAME.fullmatch(value.replace(":", "_").replace(".", "_") or "x")
            and tokens[index + 1 : index + 3] == [("op", "("), ("op", ")")]
        ):
            name = value
            start = index + 3
        if name is not None and start is not None:
            while start < len(tokens) and tokens[start] == ("op", "\n"):
                start += 1
            body, end = _group(tokens, start)
            if body is not None:
                found.setdefault(name, []).extend(body)
                index = end
                continue
        index += 1
    return found


def _group(
    tokens: list[tuple[str, str]], start: int
) -> tuple[list[tuple[str, str]] | None, int]:
    """The tokens inside the ``{ … }`` or ``( … )`` starting at ``start``, and the index after it."""
    if start >= len(tokens):
        return None, start
    opening = tokens[start]
    if opening == ("word", "{"):
        close, nested_open = ("word", "}"), ("word", "{")
    elif opening == ("op", "("):
        close, nested_open = ("op", ")"), ("op", "(")
    else:
        return None, start
    depth = 0
    for index in range(start, len(tokens)):
        if tokens[index] == nested_open:
            depth += 1
        elif tokens[index] == close:
            depth -= 1
            if depth == 0:
                return tokens[start + 1 : index], index + 1
    return tokens[start + 1 :], len(tokens)


def command_words(tokens: list[tuple[str, str]]) -> list[tuple[list[str], str]]:
    """Token runs split at operators: (words, the operator after them), keywords removed."""
    out: list[tuple[list[str], str]] = []
    words: list[str] = []
    for kind, value in tokens:
        if kind == "op":
            out.append((words, value))
            words = []
        elif not words and value in KEYWORDS:
            continue
        else:
            words.append(value)
    if words:
        out.append((words, ""))
    return out
