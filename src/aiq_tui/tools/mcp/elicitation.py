"""A server's question to the user (MCP ``elicitation/create``) as plain values, and its answer.

A server may ask, in the middle of a tool call, for a few values (a form: flat fields of string,
number, integer, boolean or a choice) or for the user to open a URL. Who answers is the
caller's :data:`~aiq_tui.tools.mcp.connection.Elicitor`: the TUI shows a dialog, ``aiq-tui ask``
at a terminal asks there; a headless run has nobody to ask, so :func:`headless_answer`
declines. ``--yes`` approves tool calls, never a server's question: only
``--accept-elicitation-defaults`` lets a headless run answer with the values the server itself
proposed — and even then it declines when a required field has no default (nothing is made up
on the user's behalf) or when the question looks destructive (:func:`destructive_reason`: a
confirmation the server pre-answered yes, "delete", "drop", "cannot be undone"…), which only a
person answers.

No SDK here: the request is read by attribute or key from whatever the SDK hands over.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Action = Literal["accept", "decline", "cancel"]
Value = str | int | float | bool | list[str] | None


@dataclass(frozen=True)
class ElicitationField:
    """One field of a form: ``kind`` is string | number | integer | boolean | choice | multi (a
    list of strings, typed comma-separated)."""

    name: str
    kind: str
    title: str = ""
    description: str = ""
    required: bool = False
    default: Value = None
    choices: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return self.title or self.name


@dataclass(frozen=True)
class ElicitationRequest:
    server: str
    message: str
    mode: str = "form"  # form | url
    url: str = ""
    fields: tuple[ElicitationField, ...] = ()


@dataclass(frozen=True)
class ElicitationAnswer:
    action: Action
    content: Mapping[str, Value] = field(default_factory=dict)
    reason: str = ""
    """Why it was declined (for the log; the server is not told)."""


def _get(obj: Any, *names: str) -> Any:
    for name in names:
        value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


def _choices(schema: Mapping[str, Any]) -> tuple[str, ...]:
    """``enum`` values, or the ``const`` of each ``oneOf`` / ``anyOf`` option (titled enums)."""
    options = schema.get("enum") or [
        o.get("const")
        for o in (schema.get("oneOf") or schema.get("anyOf") or ())
        if isinstance(o, Mapping)
    ]
    return (
        tuple(str(o) for o in options if o is not None)
        if isinstance(options, list)
        else ()
    )


def _field(name: str, schema: Mapping[str, Any], required: bool) -> ElicitationField:
    kind = str(schema.get("type") or "string")
    default = schema.get("default")
    items = schema.get("items")
    if kind == "array" and isinstance(
        items, Mapping
    ):  # a multiple choice: a list of strings
        choices = _choices(items)
        kept = [str(v) for v in default] if isinstance(default, list) else None
        return ElicitationField(
            name,
            "multi",
            str(schema.get("title") or ""),
            str(schema.get("description") or ""),
            required,
            kept,
            choices,
        )
    choices = _choices(schema)
    if choices:
        kind = "choice"
    elif kind not in ("string", "number", "integer", "boolean"):
        kind = "string"
    return ElicitationField(
        name,
        kind,
        str(schema.get("title") or ""),
        str(schema.get("description") or ""),
        required,
        default if isinstance(default, (str, int, float, bool)) else None,
        choices,
    )


def request_from(server: str, params: Any) -> ElicitationRequest:
    """The SDK's ``ElicitRequestParams`` (form or URL mode) as an :class:`ElicitationRequest`."""
    mode = str(_get(params, "mode") or "form")
    message = str(_get(params, "message") or "")
    if mode == "url":
        return ElicitationRequest(
            server, message, "url", str(_get(params, "url") or "")
        )
    schema = _get(params, "requested_schema", "requestedSchema") or {}
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    required = (
        set(schema.get("required") or ()) if isinstance(schema, Mapping) else set()
    )
    fields = tuple(
        _field(str(name), spec, name in required)
        for name, spec in (properties or {}).items()
        if isinstance(spec, Mapping)
    )
    return ElicitationRequest(server, message, "form", fields=fields)


def coerce(spec: ElicitationField, text: str) -> tuple[Value, str]:
    """``(value, "")`` for what the user typed, or ``(None, problem)``; empty is None."""
    text = text.strip()
    if not text:
        return None, f"{spec.label} is required" if spec.required else ""
    if spec.kind == "boolean":
        lowered = text.lower()
        if lowered in ("y", "yes", "true", "1", "on"):
            return True, ""
        if lowered in ("n", "no", "false", "0", "off"):
            return False, ""
        return None, f"{spec.label}: answer yes or no"
    if spec.kind in ("number", "integer"):
        try:
            return (int(text) if spec.kind == "integer" else float(text)), ""
        except ValueError:
            return (
                None,
                f"{spec.label}: expected {'a whole number' if spec.kind == 'integer' else 'a number'}",
            )
    if spec.kind == "multi":  # comma-separated
        picked = [part.strip() for part in text.split(",") if part.strip()]
        wrong = [part for part in picked if spec.choices and part not in spec.choices]
        if wrong:
            return (
                None,
                f"{spec.label}: {', '.join(wrong)} is not one of {', '.join(spec.choices)}",
            )
        return picked, ""
    if spec.kind == "choice" and text not in spec.choices:
        return None, f"{spec.label}: one of {', '.join(spec.choices)}"
    return text, ""


_DESTRUCTIVE = re.compile(
    r"\b(delet(e|es|ed|ing|ion)|remov(e|es|ed|ing|al)|destroy\w*|drop(s|ped|ping)?|"
    r"wip(e|es|ed|ing)|eras(e|es|ed|ing)|purg(e|es|ed|ing)|overwrit\w*|truncat\w*|"
    r"reset(s|ting)?|revok\w*|terminat\w*|kill\w*|uninstall\w*|force(d|s)?|"
    r"permanent(ly)?|irreversibl[ey]|undone|unrecoverabl[ey]|transfer\w*|"
    r"pay(s|ing|ment|ments)?|publish\w*|deploy\w*|shut ?down)\b",
    re.IGNORECASE,
)
"""Words of a question whose default must not be taken for the user."""

_CONSENT = re.compile(
    r"\b(confirm\w*|approv\w*|agree\w*|accept\w*|consent\w*|proceed\w*|sure|yes|"
    r"allow\w*|authori[sz]\w*|continue)\b",
    re.IGNORECASE,
)
"""Names of a boolean field that is the user's consent."""


def destructive_reason(request: ElicitationRequest) -> str | None:
    """Why the server's defaults must not be taken without a person (None: they may be): the
    question speaks of deleting, dropping, paying…, or a consent field (``confirm``, ``proceed``)
    defaults to yes. A first filter on words, so it errs towards asking."""
    words = " ".join(
        (
            request.message,
            *(f"{f.name} {f.title} {f.description}" for f in request.fields),
            *(str(f.default) for f in request.fields if isinstance(f.default, str)),
        )
    )
    found = _DESTRUCTIVE.search(words)
    if found:
        return f"the question says {found.group(0)!r}"
    for spec in request.fields:
        if spec.kind == "boolean" and spec.default is True:
            if _CONSENT.search(f"{spec.name} {spec.title}".replace("_", " ")):
                return f"its {spec.label!r} defaults to yes"
    return None


def headless_answer(
    request: ElicitationRequest, accept_defaults: bool
) -> ElicitationAnswer:
    """What a run with nobody to ask answers (see the module doc)."""
    if not accept_defaults:
        return ElicitationAnswer(
            "decline",
            reason="nobody to ask in a headless run (--accept-elicitation-defaults takes "
            "the server's defaults when the question is not destructive; --yes approves "
            "tool calls only)",
        )
    if request.mode == "url":
        return ElicitationAnswer(
            "decline", reason="a URL cannot be opened in a headless run"
        )
    missing = [f.name for f in request.fields if f.required and f.default is None]
    if missing:
        return ElicitationAnswer(
            "decline", reason=f"no default for {', '.join(missing)}"
        )
    danger = destructive_reason(request)
    if danger is not None:
        return ElicitationAnswer(
            "decline",
            reason=f"it looks destructive ({danger}): only a person answers that, at a "
            "terminal or in the TUI",
        )
    return ElicitationAnswer(
        "accept", {f.name: f.default for f in request.fields if f.default is not None}
    )
