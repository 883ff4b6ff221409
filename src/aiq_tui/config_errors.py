"""msgspec's validation errors, said in plain words: which setting, and what it must be.

msgspec reports the first problem as ``Expected `int` >= 1 - at `$.context.keep_last```;
users need ``context.keep_last`` and "must be an integer ≥ 1 (got "lots")". The wording is
derived from the field's declared type and limits in :mod:`aiq_tui.config`, so it cannot
drift from what is checked. Only a broken file imports this module.
"""

from __future__ import annotations

import difflib
import re
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import msgspec

_WHERE = re.compile(
    r"^(?P<what>.*) - at `(?P<at>[^`]*)`(?: in `(?P<inside>[^`]*)`)?$", re.DOTALL
)
_STEP = re.compile(r"\.(\w+)|\[(\d+|\.\.\.)\]")
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<name>[^`]*)`")
_MISSING = re.compile(r"^Object missing required field `(?P<name>[^`]*)`")
_PATTERN = re.compile(r"matching regex '(?P<regex>[^']*)'")
_MISSING_VALUE = object()
_REFERENCE = "see docs/configuration.md"


def explain(
    exc: msgspec.ValidationError, model: type, data: Any
) -> tuple[str | None, str]:
    """``(dotted field or None, message)`` for the first problem ``exc`` reports in ``data``
    converted to ``model``."""
    try:
        return _explain(str(exc), model, data)
    except (
        LookupError,
        TypeError,
        ValueError,
        AttributeError,
    ):  # a shape not foreseen here:
        return None, str(exc)  # msgspec's own words still name the place


def _explain(error: str, model: type, data: Any) -> tuple[str | None, str]:
    match = _WHERE.match(error)
    # No "- at" part: the problem is at the top level of the file.
    what, at, inside = (
        (match["what"], match["at"], match["inside"]) if match else (error, "$", None)
    )
    key_problem = at == "key" and inside is not None
    path = inside if key_problem and inside is not None else at
    parts, declared, value = _walk(model, data, path)
    where = ".".join(parts) or None
    if key_problem:
        if pattern := _PATTERN.search(
            what
        ):  # a name that must look a certain way (MCP servers)
            bad = (
                next(
                    (
                        k
                        for k in value
                        if isinstance(k, str) and not re.match(pattern["regex"], k)
                    ),
                    "?",
                )
                if isinstance(value, dict)
                else "?"
            )
            return where, (
                f"names may hold letters, digits, `-` and single `_` between them, at most 40 characters "
                f"(got {_shown(bad)})"
            )
        return (
            where,
            f"names must be text (got {_shown(_first_bad_key(value))}; put it in quotes)",
        )
    if _is_struct(declared):
        if unknown := _UNKNOWN.match(what):
            name = unknown["name"]
            close = difflib.get_close_matches(
                name, declared.__struct_fields__, n=1, cutoff=0.75
            )
            hint = f"did you mean `{close[0]}`? " if close else "check the spelling; "
            return _join(where, name), f"unknown setting `{name}` ({hint}{_REFERENCE})"
        if missing := _MISSING.match(what):
            name = missing["name"]
            return _join(
                where, name
            ), f"is missing (must be {_describe(_hints(declared)[name])})"
        if what.startswith("Expected `object`"):
            return where, f"must be a mapping of settings (got {_shown(value)})"
        return where, what  # a cross-field rule (``__post_init__``): its own words
    return (
        where,
        f"must be {_describe(declared)} (got {_shown(value)}{_quoted_number_hint(declared, value)})",
    )


def _walk(model: type, data: Any, at: str) -> tuple[list[str], Any, Any]:
    """Follow msgspec's ``$.a.b[...].c`` through the declared types and the data: the dotted
    names (a dict's ``[...]`` becomes the key that fails), the declared type and the value."""
    parts: list[str] = []
    declared: Any = model
    value: Any = data
    for name, index in _STEP.findall(at.removeprefix("$")):
        declared = _core(declared)
        if name:
            value = (
                value.get(name, _MISSING_VALUE)
                if isinstance(value, dict)
                else _MISSING_VALUE
            )
            declared = _hints(declared).get(name, Any)
            parts.append(name)
        elif (
            index == "..."
        ):  # msgspec does not say which key: the first whose value fails
            item_type = get_args(declared)[1] if get_args(declared) else Any
            mapping = value if isinstance(value, dict) else {}
            key = next(
                (k for k, v in mapping.items() if not _converts(v, item_type)), "?"
            )
            value = mapping.get(key, _MISSING_VALUE)
            declared = item_type
            parts.append(str(key))
        else:
            args = get_args(declared)
            declared = args[0] if args else Any
            value = (
                value[int(index)]
                if isinstance(value, list) and int(index) < len(value)
                else _MISSING_VALUE
            )
            parts[-1:] = [f"{parts[-1] if parts else ''}[{index}]"]
    return parts, declared, value


def _converts(value: Any, declared: Any) -> bool:
    try:
        msgspec.convert(value, declared)
    except msgspec.ValidationError:
        return False
    return True


def _describe(declared: Any) -> str:
    """What a value of ``declared`` must be, in words: ``an integer ≥ 1``, ``one of: a, b``."""
    origin = get_origin(declared)
    if origin is Annotated:
        base, *extras = get_args(declared)
        limits = [m for m in extras if isinstance(m, msgspec.Meta)]
        return _describe(base) + "".join(_limits(m, whole=base is int) for m in limits)
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(declared) if a is not type(None)]
        if any(
            get_origin(a) is Literal for a in options
        ):  # `semantic: on` arrives as a bool
            options = [a for a in options if a is not bool]
        words = " or ".join(_describe(a) for a in options)
        return f"{words} or null" if type(None) in get_args(declared) else words
    if origin is Literal:
        return "one of: " + ", ".join(str(v) for v in get_args(declared))
    if origin in (list, tuple):
        return f"a list of {_plural(_describe(get_args(declared)[0]))}"
    if origin is dict:
        return f"a mapping of names to {_plural(_describe(get_args(declared)[1]))}"
    if _is_struct(declared):
        return "a mapping of settings"
    return {
        bool: "true or false",
        int: "an integer",
        float: "a number",
        str: "text",
    }.get(declared, str(declared))


def _limits(meta: msgspec.Meta, whole: bool) -> str:
    if whole and (gt := meta.gt) is not None:  # "an integer > 0" reads better as "≥ 1"
        if meta.lt is not None:
            meta = msgspec.Meta(ge=gt + 1, lt=meta.lt)
        else:
            meta = msgspec.Meta(ge=gt + 1, le=meta.le)
    low = (
        f" ≥ {meta.ge:g}"
        if meta.ge is not None
        else f" > {meta.gt:g}"
        if meta.gt is not None
        else ""
    )
    high = (
        f" ≤ {meta.le:g}"
        if meta.le is not None
        else f" < {meta.lt:g}"
        if meta.lt is not None
        else ""
    )
    if meta.ge is not None and meta.le is not None:
        return f" from {meta.ge:g} to {meta.le:g}"
    return f"{low} and{high}" if low and high else low or high


def _plural(words: str) -> str:
    for single, many in (
        ("an integer", "integers"),
        ("a number", "numbers"),
        ("text", "text"),
        ("true or false", "true/false values"),
        ("a mapping of settings", "settings"),
    ):
        if words.startswith(single):
            return many + words[len(single) :]
    return words


def _quoted_number_hint(declared: Any, value: Any) -> str:
    """Types are strict (YAML already types values): a quoted number is text, say so."""
    wanted = _describe(declared)
    if isinstance(value, str) and wanted.startswith(("an integer", "a number")):
        try:
            float(value)
        except ValueError:
            return ""
        return "; remove the quotes"
    return ""


def _shown(value: Any) -> str:
    if value is _MISSING_VALUE:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _first_bad_key(mapping: Any) -> Any:
    return (
        next((k for k in mapping if not isinstance(k, str)), "?")
        if isinstance(mapping, dict)
        else "?"
    )


def _core(declared: Any) -> Any:
    """``declared`` without its limits and ``| None``: the struct, list or dict inside."""
    while True:
        origin = get_origin(declared)
        if origin is Annotated:
            declared = get_args(declared)[0]
        elif origin in (Union, types.UnionType):
            others = [a for a in get_args(declared) if a is not type(None)]
            if len(others) != 1:
                return declared
            declared = others[0]
        else:
            return declared


def _is_struct(declared: Any) -> bool:
    return isinstance(declared, type) and issubclass(declared, msgspec.Struct)


def _hints(struct: type) -> dict[str, Any]:
    """The declared type of each setting of a section (with its limits)."""
    if not _is_struct(struct):
        return {}
    hints = get_type_hints(struct, include_extras=True)
    fields: tuple[str, ...] = getattr(struct, "__struct_fields__", ())
    return {name: hints[name] for name in fields}


def _join(where: str | None, name: str) -> str:
    return f"{where}.{name}" if where else name
