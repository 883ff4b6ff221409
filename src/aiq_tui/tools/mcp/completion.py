"""What the prompt offers while ``@SERVER:URI`` or ``/mcp__SERVER__PROMPT [name=value…]`` is typed.

Pure functions over the fleet's lists (:class:`~.catalog.Resource`, :class:`~.catalog.Prompt`):
the TUI calls :func:`completion_at` on every edit and shows :attr:`Completion.choices`; when the
word being typed is a resource template's variable or a prompt argument's value and the server
declared ``completions``, :attr:`Completion.request` says what to ask it (``completion/complete``,
:meth:`~.fleet.McpFleet.complete`) and :func:`value_choices` turns its answer into choices.
:func:`accept` puts a choice into the line.

What a caller may rely on:

* only the word before the cursor is completed (from the last space, or the line's start); the
  rest of the line is kept as it is;
* ``@`` completes at the start of a word anywhere in the line (``a@b`` is not a mention);
  ``/mcp__`` only as the line's first word, its arguments after it;
* at most :data:`MAX_CHOICES` choices; a server's values longer than the given bound, or with
  control characters, are left out (never cut: a cut value would be a wrong one); labels and
  details are safe to print (:func:`aiq_tui.terminal_text.printable`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote, unquote

from aiq_tui.terminal_text import printable

if (
    TYPE_CHECKING
):  # the prompt imports this module before the first frame; the catalog loads the tools
    from aiq_tui.tools.mcp.catalog import Prompt, Resource

MAX_CHOICES = 100
"""MCP's own cap: a ``completion/complete`` answer holds at most 100 values; the lists of
resources and prompts are cut there too."""

_RESERVED = ":/?#[]@!$&'()*+,;="
_EXPRESSION = re.compile(r"\{([^{}]*)\}")

RefKind = Literal["ref/resource", "ref/prompt"]


@dataclass(frozen=True)
class Choice:
    """One line of the list: ``text`` replaces the word being typed."""

    text: str
    label: str
    detail: str = ""
    final: bool = False
    """Nothing more to type in this word: accepting it adds a space after it."""


@dataclass(frozen=True)
class ValueRequest:
    """A ``completion/complete`` to send: ``argument``'s ``value`` so far, for the template
    ``ref`` (``ref/resource``) or the prompt named ``ref`` (``ref/prompt``) of ``server``."""

    server: str
    kind: RefKind
    ref: str
    argument: str
    value: str
    context: tuple[tuple[str, str], ...] = ()
    """The other arguments already given (``context.arguments``)."""
    head: str = ""
    """The word's text before the value (``@srv:demo://text/``, ``name=``): each value is put after it."""
    tail: str = ""
    """The template's text after the variable, up to the next one: put after each value."""
    reserved: bool = False
    """A ``{+var}`` expression: the value's ``/``, ``:`` … stay as they are (else percent-encoded)."""
    last: bool = True
    """The template's last variable (or a prompt's argument): a value ends the word."""


@dataclass(frozen=True)
class Completion:
    """The word from ``start`` to ``end`` (the cursor) and what may replace it."""

    start: int
    end: int
    choices: tuple[Choice, ...]
    request: ValueRequest | None = None


def completion_at(
    line: str,
    cursor: int,
    resources: Sequence[Resource],
    prompts: Sequence[Prompt],
    can_complete: Callable[[str], bool],
) -> Completion | None:
    """What to offer for the word before ``cursor`` in ``line`` (None: nothing to complete).
    ``can_complete(server)``: whether that server declared ``completions``."""
    before = line[:cursor]
    start = max(before.rfind(" "), before.rfind("\t")) + 1
    word = before[start:]
    if word.startswith("@"):
        return _mention(start, cursor, word, resources, can_complete)
    if start == 0 and word.startswith("/"):
        return _prompt_names(cursor, word, prompts)
    first = line.split(maxsplit=1)[0] if line.strip() else ""
    if start > 0 and first.lower().startswith("/mcp__") and not line[:1].isspace():
        prompt = next((p for p in prompts if p.command == first), None)
        if prompt is not None and prompt.arguments:
            return _argument(start, cursor, word, line, prompt, can_complete)
    return None


def value_choices(
    request: ValueRequest, values: Iterable[object], max_chars: int
) -> tuple[Choice, ...]:
    """A server's completion values as choices: strings only, at most :data:`MAX_CHOICES`,
    each at most ``max_chars`` long and printable as it is (others are left out)."""
    found: list[Choice] = []
    for value in values:
        if len(found) >= MAX_CHOICES:
            break
        if (
            not isinstance(value, str)
            or not value
            or len(value) > max_chars
            or printable(value, one_line=True) != value
        ):
            continue
        if request.kind == "ref/resource":
            text = (
                request.head
                + quote(value, safe=_RESERVED if request.reserved else "")
                + request.tail
            )
        else:
            text = request.head + (
                shlex.quote(value)
                if any(c.isspace() or c in "'\"" for c in value)
                else value
            )
        found.append(Choice(text, text, final=request.last))
    return tuple(dict.fromkeys(found))


def accept(line: str, completion: Completion, choice: Choice) -> tuple[str, int]:
    """``line`` with the word replaced by ``choice`` (a space after a final one unless one
    follows already), and where the cursor goes: after it."""
    after = line[completion.end :]
    text = choice.text + (" " if choice.final and not after[:1].isspace() else "")
    return line[: completion.start] + text + after, completion.start + len(text)


# -- @SERVER:URI --------------------------------------------------------------------------------


def _mention(
    start: int,
    end: int,
    word: str,
    resources: Sequence[Resource],
    can_complete: Callable[[str], bool],
) -> Completion | None:
    typed = word[1:]
    server, colon, uri = typed.partition(":")
    if colon:
        for resource in resources:
            if (
                resource.template
                and resource.server.lower() == server.lower()
                and can_complete(resource.server)
            ):
                request = _template_request(resource, uri, f"@{resource.server}:")
                if request is not None:
                    return Completion(start, end, (), request)
    wanted = typed.lower()
    ranked: list[tuple[int, Choice]] = []
    for resource in resources:
        mention = f"{resource.server}:{resource.uri}"
        if printable(mention, one_line=True) != mention or any(
            c.isspace() for c in mention
        ):
            continue
        where = mention.lower().find(wanted)
        if where < 0 and wanted not in resource.name.lower():
            continue
        if resource.template:
            text = "@" + resource.server + ":" + _literal_head(resource.uri)
            detail = "template" + (f" · {resource.name}" if resource.name else "")
        else:
            text = "@" + mention
            detail = resource.name
        if resource.description:
            detail += (" · " if detail else "") + resource.description
        rank = 0 if where == 0 else 1 if where > 0 else 2
        ranked.append(
            (
                rank,
                Choice(
                    text, "@" + mention, _one_line(detail), final=not resource.template
                ),
            )
        )
    choices = tuple(choice for _, choice in sorted(ranked, key=lambda pair: pair[0]))[
        :MAX_CHOICES
    ]
    if not choices or (len(choices) == 1 and choices[0].text == word):
        return None
    return Completion(start, end, choices)


def _literal_head(template: str) -> str:
    """A URI template up to its first variable (``demo://text/{id}`` → ``demo://text/``)."""
    match = _EXPRESSION.search(template)
    return template[: match.start()] if match else template


def _template_request(resource: Resource, typed: str, head: str) -> ValueRequest | None:
    """The variable ``typed`` is in the middle of, when it follows the template's literal parts
    (RFC 6570 ``{var}`` and ``{+var}``; other expressions are not completed)."""
    parts: list[tuple[str, str]] = []  # ("text", literal) / (operator, variable)
    position = 0
    for match in _EXPRESSION.finditer(resource.uri):
        parts.append(("text", resource.uri[position : match.start()]))
        expression = match.group(1)
        operator = expression[:1] if expression[:1] in "+#./;?&" else ""
        parts.append((operator or "var", expression[len(operator) :]))
        position = match.end()
    parts.append(("text", resource.uri[position:]))
    at = 0
    context: list[tuple[str, str]] = []
    for index, (kind, part) in enumerate(parts):
        if kind == "text":
            if not typed.startswith(part, at):
                return None
            at += len(part)
            continue
        if (
            kind not in ("var", "+")
            or "," in part
            or not re.fullmatch(r"[A-Za-z0-9_.%]+", part)
        ):
            return None
        following = parts[index + 1][1]
        rest = typed[at:]
        if following and following in rest:
            value = rest[: rest.index(following)]
            context.append((part, unquote(value)))
            at += len(value)
            continue
        return ValueRequest(
            resource.server,
            "ref/resource",
            resource.uri,
            part,
            unquote(rest),
            tuple(context),
            head + typed[:at],
            following,
            reserved=kind == "+",
            last=index + 2 >= len(parts),
        )
    return None


# -- /mcp__SERVER__PROMPT -----------------------------------------------------------------------


def _prompt_names(end: int, word: str, prompts: Sequence[Prompt]) -> Completion | None:
    lowered = word.lower()
    if len(lowered) < 4 or not (
        lowered.startswith("/mcp__") or "/mcp__".startswith(lowered)
    ):
        return None
    rest = lowered[len("/mcp__") :]
    ranked: list[tuple[int, Choice]] = []
    for prompt in prompts:
        command = prompt.command
        if printable(command, one_line=True) != command or any(
            c.isspace() for c in command
        ):
            continue
        if command.lower().startswith(lowered):
            rank = 0
        elif rest and rest in command.lower()[len("/mcp__") :]:
            rank = 1
        else:
            continue
        arguments = " ".join(
            f"{a.name}=" + ("" if a.required else "?") for a in prompt.arguments
        )
        detail = " · ".join(part for part in (prompt.description, arguments) if part)
        ranked.append(
            (
                rank,
                Choice(
                    command, command, _one_line(detail), final=bool(prompt.arguments)
                ),
            )
        )
    choices = tuple(choice for _, choice in sorted(ranked, key=lambda pair: pair[0]))[
        :MAX_CHOICES
    ]
    if not choices or (len(choices) == 1 and choices[0].text == word):
        return None
    return Completion(0, end, choices)


def _argument(
    start: int,
    end: int,
    word: str,
    line: str,
    prompt: Prompt,
    can_complete: Callable[[str], bool],
) -> Completion | None:
    names = [argument.name for argument in prompt.arguments]
    given: dict[str, str] = {}
    rest = line[:start] + " " + line[end:]
    try:
        words = shlex.split(
            rest
        )  # as the command reads them (mcp_prompts.prompt_arguments)
    except ValueError:
        words = rest.split()
    for other in words[1:]:
        name, found, value = other.partition("=")
        if found and name in names:
            given[name] = value
    name, found, value = word.partition("=")
    if found:
        if name not in names or not can_complete(prompt.server):
            return None
        context = tuple(
            (key, given[key]) for key in names if key in given and key != name
        )
        request = ValueRequest(
            prompt.server,
            "ref/prompt",
            prompt.name,
            name,
            value.lstrip("'\""),
            context,
            f"{name}=",
        )
        return Completion(start, end, (), request)
    choices = tuple(
        Choice(
            f"{argument.name}=",
            f"{argument.name}=",
            _one_line(
                " · ".join(
                    part
                    for part in (
                        "required" if argument.required else "optional",
                        argument.description,
                    )
                    if part
                )
            ),
        )
        for argument in prompt.arguments
        if argument.name not in given
        and argument.name.lower().startswith(word.lower())
        and printable(argument.name, one_line=True) == argument.name
    )
    return Completion(start, end, choices[:MAX_CHOICES]) if choices else None


def _one_line(text: str) -> str:
    return printable(" ".join(text.split()), one_line=True)
