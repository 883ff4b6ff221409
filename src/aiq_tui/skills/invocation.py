"""Who may invoke a skill, and what a user's arguments become: Claude Code's rules, one home.

Claude Code's frontmatter (code.claude.com/docs/en/skills) decides invocation:

* ``disable-model-invocation: true`` — only the user runs the skill (``/NAME``): it is never
  listed to the model, never loaded because a request matched it, and a model's ``use_skill``
  is refused. Side-effect skills (deploy, commit, send) rely on it.
* ``user-invocable: false`` — only the model loads it: hidden from the user's slash menu, and
  ``/NAME`` does not run it.
* ``argument-hint`` — shown while the user completes ``/NAME``.
* ``$ARGUMENTS``, ``$ARGUMENTS[N]``, ``$N`` and ``$name`` (from ``arguments:``) — replaced by
  what the user typed after ``/NAME`` (:func:`substitute_arguments`).

Booleans are read as Claude Code reads them: ``true``/``false``, ``yes``/``no``, ``on``/``off``,
``1``/``0`` in any case (:func:`flag`). Everything here reads a skill's frontmatter extras (a
:class:`~aiq_tui.skills.model.SkillMeta`'s ``extras``) and nothing else.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

MODEL_FIELD = "disable-model-invocation"
USER_FIELD = "user-invocable"
HINT_FIELD = "argument-hint"
ARGUMENTS_FIELD = "arguments"

_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


def flag(value: Any) -> bool | None:
    """A frontmatter boolean as Claude Code reads it; None when it is not one (then the field
    is ignored, as Claude Code ignores it)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    return None


def model_invocable(extras: Mapping[str, Any]) -> bool:
    """False when ``disable-model-invocation`` is true: the model never sees or loads it."""
    return flag(extras.get(MODEL_FIELD)) is not True


def user_invocable(extras: Mapping[str, Any]) -> bool:
    """False when ``user-invocable`` is false: the user's ``/NAME`` does not run it."""
    return flag(extras.get(USER_FIELD)) is not False


def argument_hint(extras: Mapping[str, Any]) -> str:
    """The ``argument-hint`` to show after ``/NAME`` ("" when none)."""
    value = extras.get(HINT_FIELD)
    return " ".join(value.split()) if isinstance(value, str) else ""


MANUAL_ONLY = "only you run it: disable-model-invocation (not listed to the model)"
"""The reason a skills pane and ``prompt`` give for a skill the model never sees."""


def manual_only_reason(name: str) -> str:
    return f"{MANUAL_ONLY}; /skill {name} or /{name} runs it"


def refused_for_model(name: str) -> str:
    """What ``use_skill`` answers the model for a skill only the user may run (Claude Code blocks
    the call and tells the model not to reproduce the steps another way)."""
    return (
        f"skill {name!r} can only be run by the user (disable-model-invocation: true). "
        f"Do not carry out its steps another way; tell the user they can run /{name} themselves."
    )


def refused_for_user(name: str) -> str:
    return (
        f"{name} is not for /{name} (user-invocable: false): the model loads it when a request "
        "needs it"
    )


# -- arguments ----------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(
    r"(\\*)\$(ARGUMENTS\[(\d+)\]|ARGUMENTS|(\d+)|([A-Za-z_][\w-]*))"
)


def argument_names(extras: Mapping[str, Any]) -> tuple[str, ...]:
    """The names ``arguments:`` declares (a space-separated string or a list), in order."""
    value = extras.get(ARGUMENTS_FIELD)
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list):
        return tuple(str(item) for item in value if isinstance(item, (str, int)))
    return ()


def split_arguments(text: str) -> list[str]:
    """Shell-style words of what the user typed (``"hello world" second`` → two); text whose
    quotes do not close is split on spaces."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def substitute_arguments(
    content: str, arguments: str, names: tuple[str, ...] = ()
) -> str:
    """``content`` with the user's ``arguments`` in place, as Claude Code renders a skill:
    ``$ARGUMENTS`` is the whole text, ``$ARGUMENTS[N]`` and ``$N`` the N-th word (from 0),
    ``$name`` the word at the position ``names`` gives it. An indexed placeholder without its
    word stays as written; a named one becomes empty. A single backslash before a placeholder
    keeps it literal (``\\$1.00``). When nothing in ``content`` takes the arguments and there
    are some, ``ARGUMENTS: <text>`` is appended, so the model still sees them."""
    words = split_arguments(arguments)
    positions = {name: index for index, name in enumerate(names)}
    used = False

    def replace(match: re.Match[str]) -> str:
        nonlocal used
        slashes, whole, indexed, short, name = match.groups()
        placeholder = name is None or name in positions
        if not placeholder:
            return match.group(0)  # a $word the skill does not declare: left as written
        if len(slashes) == 1:
            return match.group(0)[1:]  # \$1 → $1, literally
        if whole == "ARGUMENTS":
            used = True
            return slashes + arguments
        index = indexed if indexed is not None else short
        if index is not None:
            used = True
            position = int(index)
            return (
                slashes + words[position] if position < len(words) else match.group(0)
            )
        used = True
        position = positions[name]
        return slashes + (words[position] if position < len(words) else "")

    rendered = _PLACEHOLDER.sub(replace, content)
    if arguments.strip() and not used:
        rendered = rendered.rstrip("\n") + f"\n\nARGUMENTS: {arguments}\n"
    return rendered


# -- what Claude Code does that this workbench does differently -------------------------------


def claude_code_notes(extras: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """For the skill viewer: each Claude Code field the skill sets, as (field, what Claude Code
    does, what aiq-tui does instead)."""
    notes: list[tuple[str, str, str]] = []

    def note(field: str, claude: str, here: str) -> None:
        if field in extras:
            notes.append((field, claude, here))

    manual = flag(extras.get(MODEL_FIELD))
    if manual is not None:
        note(
            MODEL_FIELD,
            "only the user invokes it" if manual else "the model may invoke it",
            "the same: never listed to the model, /NAME runs it"
            if manual
            else "the same",
        )
    hidden = flag(extras.get(USER_FIELD))
    if hidden is not None:
        note(
            USER_FIELD,
            "hidden from the / menu" if hidden is False else "in the / menu",
            "the same: not offered or run by /NAME" if hidden is False else "the same",
        )
    note(
        HINT_FIELD, "shown after /NAME while typing", "shown as the prompt's completion"
    )
    note(
        ARGUMENTS_FIELD, "names $name placeholders", "the same ($name, $N, $ARGUMENTS)"
    )
    note(
        "model",
        f"switches the model to {extras.get('model')!r} for the turn",
        "keeps the conversation's model",
    )
    context = extras.get("context")
    note(
        "context",
        "runs the skill in a forked subagent"
        if context == "fork"
        else f"context {context!r}",
        "runs it inline, in the conversation",
    )
    note(
        "agent",
        f"forks into the {extras.get('agent')!r} subagent",
        "no subagents: runs inline",
    )
    note(
        "hooks",
        "registers the skill's hooks when invoked",
        "runs no hooks (never executes them)",
    )
    note(
        "paths",
        "loads it automatically only for matching files",
        "matches it by its description",
    )
    note(
        "when_to_use",
        "appends it to the description in the listing",
        "kept in extras, not matched",
    )
    note("effort", "sets the effort level", "ignored")
    note(
        "disallowed-tools",
        "removes those tools while active",
        "ignored: your permissions apply",
    )
    note("shell", "shell for !`command` injection", "no command injection")
    return notes
