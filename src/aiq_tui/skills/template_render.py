"""Template skills, rendered where their work can be stopped.

A template is a skill file's text rendered inside the agent's turn, with parameters the model
chose. jinja2's :class:`~jinja2.sandbox.SandboxedEnvironment` keeps it from Python's internals,
but not from work: nested loops render for ever, ``namespace`` doubling builds gigabytes. So it
renders in a child process (:mod:`aiq_tui.skills.template_worker`) that limits its own memory
(``tools.template_memory_mb``) and output (``tools.template_output_chars``), and that this side
kills at the deadline (``tools.template_timeout_seconds``) or when the turn is cancelled. Each
limit fails with an error naming its setting. The child is started by the one launcher
(:mod:`aiq_tui.tools.launcher`) inside the OS sandbox: jinja2's sandbox is a Python-level
fence with a history of escapes, and a template comes from any skill file, a cloned
repository's included, and renders without approval. The child costs about 0.15 s a render
through the sandbox helper (146 ms measured here, against 73 ms for a bare child and 0.4 ms in
process — ``make bench``: ``tools.template_render``): small next to a model's turn, and the
price of a deadline and a sandbox that hold.

Go ``text/template`` actions (``{{.name}}``, ``{{if .x}}…{{else}}…{{end}}``,
``{{range .xs}}{{.}}{{end}}``) are translated to jinja2 first, so both styles work. A parameter
the template needs but nobody gave is an error naming it.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aiq_tui.config import ToolSettings
from aiq_tui.skills import template_worker
from aiq_tui.skills.executor import SkillExecutionError

_ACTION = re.compile(r"\{\{(-?)\s*(.*?)\s*(-?)\}\}", re.DOTALL)
_DOT_FIELD = re.compile(r"(?<![\w\])\"'])\.([A-Za-z_][\w]*)")
_LONE_DOT = re.compile(r"(?<![\w\])\"'.])\.(?![\w.])")


def go_to_jinja(template: str) -> str:
    """Translate Go ``text/template`` actions to jinja2; jinja syntax passes through unchanged."""
    stack: list[str] = []

    def expression(text: str) -> str:
        scope = "__it." if "range" in stack else ""
        text = _DOT_FIELD.sub(lambda m: scope + m.group(1), text)
        return _LONE_DOT.sub("__it" if "range" in stack else "__params", text)

    def translate(match: re.Match[str]) -> str:
        left, body, right = match.group(1), match.group(2), match.group(3)
        words = body.split(None, 1)
        head = words[0] if words else ""
        rest = words[1] if len(words) > 1 else ""
        if head == "if" and rest:
            stack.append("if")
            return f"{{%{left} if {expression(rest)} {right}%}}"
        if head == "range" and rest:
            source = expression(rest)  # evaluated in the enclosing scope
            stack.append("range")
            return f"{{%{left} for __it in {source} {right}%}}"
        if head == "else" and not rest:
            return f"{{%{left} else {right}%}}"
        if head == "else" and rest.startswith("if "):
            return f"{{%{left} elif {expression(rest[3:])} {right}%}}"
        if head == "end" and not rest and stack:
            closing = "endfor" if stack.pop() == "range" else "endif"
            return f"{{%{left} {closing} {right}%}}"
        if body.startswith(".") or "range" in stack:
            return f"{{{{{left} {expression(body)} {right}}}}}"
        return match.group(0)

    return _ACTION.sub(translate, template)


def _declared(parameters: Any) -> dict[str, Any]:
    if isinstance(parameters, Mapping):
        return {str(k): v for k, v in parameters.items()}
    if isinstance(parameters, list):
        return {
            str(p["name"]): p
            for p in parameters
            if isinstance(p, Mapping) and "name" in p
        }
    return {}


async def render_template(
    template: str,
    params: Mapping[str, Any],
    declared: Any = None,
    settings: ToolSettings | None = None,
) -> str:
    """Render ``template`` (jinja2 or Go style) with ``params`` in a stoppable sandbox.

    A declared parameter that is not given takes its ``default`` (or renders empty); a name the
    template uses that is neither given nor declared, a jinja2 error, and every limit are a
    :class:`~aiq_tui.skills.executor.SkillExecutionError` saying what to change.
    """
    settings = settings or ToolSettings()
    values: dict[str, Any] = {}
    for name, spec in _declared(declared).items():
        values[name] = spec.get("default", "") if isinstance(spec, Mapping) else ""
    values.update(params)
    timeout = settings.template_timeout_seconds
    request = json.dumps(
        {
            "template": go_to_jinja(template),
            "values": values,
            "max_chars": settings.template_output_chars,
            "memory_bytes": settings.template_memory_mb * 1024 * 1024,
            "cpu_seconds": math.ceil(timeout) + 1,
        },
        default=str,
    ).encode("utf-8", "surrogatepass")
    # The worker needs only the standard library and jinja2: run as a file, with -I (no
    # PYTHON* variables, no user site, not even its own folder on the path), and started by the
    # launcher like every process a skill brings: jinja2's sandbox is Python keeping Python out,
    # so the OS sandbox (no file but the interpreter's and jinja2's, no write, no network, no
    # UNIX socket) holds if a template ever finds a way past it.
    from aiq_tui.tools import launcher

    worker = Path(template_worker.__file__).resolve()
    result = await launcher.run_process(
        [sys.executable, "-I", str(worker)],
        cwd=Path("/"),
        timeout=timeout,
        output_cap=settings.template_output_chars * 12 + 65_536,
        read_roots=(worker, *_library_roots()),
        env={},
        stdin=request,
        limits=launcher.ProcessLimits(
            processes=4,
            memory_bytes=settings.template_memory_mb * 1024 * 1024 + 512 * MB,
            file_bytes=0,
        ),
    )
    if result.timed_out:
        raise SkillExecutionError(
            f"the template did not finish within {timeout:g} s "
            "(tools.template_timeout_seconds): nested loops over large lists, most "
            "likely"
        )
    return _output(
        result.stdout.encode("utf-8", "surrogateescape"),
        result.stderr.encode("utf-8", "replace"),
        result.exit_code,
        settings,
    )


MB = 1024 * 1024


def _library_roots() -> list[Path]:
    """Where jinja2 and markupsafe live (found without importing them), for the worker to read."""
    import importlib.util

    roots = []
    for name in ("jinja2", "markupsafe"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            roots += [
                Path(location).resolve() for location in spec.submodule_search_locations
            ]
    return roots


def _output(out: bytes, err: bytes, code: int | None, settings: ToolSettings) -> str:
    try:
        reply = json.loads(out)
    except ValueError:
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:]
        reply = {
            "error": "memory" if b"MemoryError" in err else "crash",
            "detail": last[0] if last else f"exit status {code}",
        }
    if "output" in reply:
        return str(reply["output"])
    kind, detail = reply.get("error"), reply.get("detail")
    if kind == "missing":
        raise SkillExecutionError(
            f"missing template parameter '{detail}': pass it as an argument"
        )
    if kind == "template":
        raise SkillExecutionError(f"template cannot be rendered: {detail}")
    if kind == "too_long":
        raise SkillExecutionError(
            f"the template rendered more than {settings.template_output_chars} characters "
            "(tools.template_output_chars)"
        )
    if kind == "memory":
        raise SkillExecutionError(
            f"the template built values larger than {settings.template_memory_mb} MB "
            "(tools.template_memory_mb)"
        )
    raise SkillExecutionError(f"the template renderer failed: {detail}")
