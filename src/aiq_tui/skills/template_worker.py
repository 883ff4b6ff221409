"""Renders one template skill in a process of its own (``python -I template_worker.py``).

A template is data from a skill file, rendered inside the agent's turn. jinja2's sandbox keeps
it away from Python's internals, but not from work: nested loops over a list run for ever and
``namespace`` doubling builds gigabytes. So the renderer is a child process the parent can
stop (:mod:`aiq_tui.skills.template_render`): it restricts itself before it renders — an
address-space limit (``RLIMIT_AS``: its start-up size plus the allowance) and a CPU-time limit
in case the parent is gone — and stops producing output past the character cap.

Protocol: one JSON request on stdin (``template``, ``values``, ``max_chars``, ``memory_bytes``,
``cpu_seconds``), one JSON reply on stdout: ``{"output": …}`` or ``{"error": kind, "detail": …}``
with kind ``missing`` (an undefined name), ``template`` (a jinja2 error), ``too_long`` or
``memory``. Run as a file, it imports nothing of aiq_tui: only the standard library and jinja2.
"""

from __future__ import annotations

import json
import re
import resource
import sys
from typing import Any


def _limit_self(memory_bytes: int, cpu_seconds: int) -> None:
    with open("/proc/self/statm", encoding="ascii") as statm:
        size = int(statm.read().split()[0]) * resource.getpagesize()
    limit = size + memory_bytes
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))


def render(template: str, values: dict[str, Any], max_chars: int) -> dict[str, Any]:
    """The reply for one request (imports done, limits set)."""
    from jinja2 import StrictUndefined, TemplateError, UndefinedError
    from jinja2.sandbox import SandboxedEnvironment

    environment = SandboxedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True
    )
    pieces: list[str] = []
    size = 0
    try:
        compiled = environment.from_string(template)
        for piece in compiled.generate(**values, __params=dict(values)):
            size += len(piece)
            if size > max_chars:
                return {"error": "too_long", "detail": max_chars}
            pieces.append(piece)
    except UndefinedError as exc:
        match = re.search(r"'([^']+)' is undefined", str(exc))
        return {"error": "missing", "detail": match.group(1) if match else str(exc)}
    except TemplateError as exc:
        return {"error": "template", "detail": f"{type(exc).__name__}: {exc}"}
    except (MemoryError, OverflowError):
        return {"error": "memory", "detail": ""}
    return {"output": "".join(pieces)}


def main() -> int:
    request = json.loads(sys.stdin.buffer.read())
    import jinja2.sandbox  # noqa: F401 - imported before the limits: start-up is not the template's cost

    _limit_self(int(request["memory_bytes"]), int(request["cpu_seconds"]))
    try:
        reply = render(
            request["template"], request["values"], int(request["max_chars"])
        )
        text = json.dumps(reply)
    except MemoryError:
        text = json.dumps({"error": "memory", "detail": ""})
    sys.stdout.write(text)  # ASCII: lone surrogates travel as \u escapes
    return 0


if __name__ == "__main__":
    sys.exit(main())
