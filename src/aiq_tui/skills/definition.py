"""What an executable skill runs: its definition, from the frontmatter or a fenced block.

lango (seed 002) writes the definition of a ``composite`` / ``script`` / ``template`` skill in
two ways, and both load the same:

* frontmatter fields — ``steps:`` (a list), ``script:`` (text), ``template:`` (text);
* a fenced block in the body — ```` ```json ```` holding the steps (a list, or an object
  with ``steps``), ```` ```sh ```` / ```` ```bash ```` holding the script, ```` ```template ````
  holding the template.

The frontmatter wins when both are present. Instruction skills have no definition: their
body is the content.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

DEFINITION_FIELD = {"composite": "steps", "script": "script", "template": "template"}
"""The definition field each executable type needs."""

_FENCE_LANGS = {
    "composite": ("json",),
    "script": ("sh", "bash", "shell"),
    "template": ("template", "tmpl", "gotmpl", "jinja", "jinja2"),
}
_FENCE = re.compile(
    r"^(?P<fence>```|~~~)[ \t]*(?P<lang>[\w+-]*)[^\n]*\n(?P<code>.*?)^(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)


class DefinitionError(ValueError):
    """A fenced definition block exists but cannot be used (e.g. invalid JSON)."""


def fenced_block(body: str, languages: tuple[str, ...]) -> str | None:
    """The code of the first fenced block of one of ``languages`` in ``body``, or None."""
    for match in _FENCE.finditer(body or ""):
        if match.group("lang").lower() in languages:
            return match.group("code").rstrip("\n")
    return None


def definition_from_body(kind: str, body: str) -> dict[str, Any]:
    """The definition lango's fenced-block form holds for ``kind`` (``{}`` when none)."""
    languages = _FENCE_LANGS.get(kind)
    if not languages:
        return {}
    code = fenced_block(body, languages)
    if code is None:
        return {}
    if kind == "composite":
        try:
            data = json.loads(code)
        except (ValueError, RecursionError) as exc:
            raise DefinitionError(
                f"the ```json block of this composite skill is not valid JSON: {exc}"
            ) from exc
        steps = data.get("steps") if isinstance(data, Mapping) else data
        return {"steps": steps}
    return {DEFINITION_FIELD[kind]: code + "\n" if kind == "script" else code}


def definition_of(
    kind: str, fields: Mapping[str, Any], body: str | None
) -> dict[str, Any]:
    """The definition of a skill: frontmatter field first, else the fenced block of ``body``."""
    key = DEFINITION_FIELD.get(kind)
    if key is None:
        return {}
    if key in fields:
        return {key: fields[key]}
    return definition_from_body(kind, body or "")
