"""``${VAR}`` and ``${VAR:-default}`` in settings, filled in from the environment: one rule for
every file that names a secret by its variable (``.mcp.json``, ``telemetry.headers``), so a key
never has to be written to disk. As in a shell, ``:-default`` stands in for an unset or empty
variable; a variable with neither a value nor a default is reported as missing."""

from __future__ import annotations

import re
from collections.abc import Mapping

VARIABLE = re.compile(
    r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>[^}]*))?\}"
)


def fill(text: str, environ: Mapping[str, str], missing: list[str]) -> str:
    """``text`` with every variable replaced; the names without value or default are appended
    to ``missing`` (and replaced by nothing)."""

    def replace(match: re.Match[str]) -> str:
        name, default = match.group("name"), match.group("default")
        value = environ.get(name)
        if value is not None and value != "":
            return value
        if default is not None:
            return default
        missing.append(name)
        return ""

    return VARIABLE.sub(replace, text)


__all__ = ["VARIABLE", "fill"]
