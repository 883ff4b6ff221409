"""lango's skill executor (seed 002): plan composites, run scripts safely, render templates.

* composite → the *plan* (step numbers, tool names, parameters); never executed here.
* script → refused when it matches a dangerous pattern (defence in depth, not a sandbox);
  otherwise written to a temp file in the OS temp directory, run with ``sh`` in its own
  process group under a timeout (the group is killed on timeout), the file always removed.
* template → ``{{name}}`` / ``{{ .name }}`` placeholders filled from the parameters (or a
  parameter's ``default``); a missing one is an error naming it.
* instruction → name, type and content, nothing run.

Construction is infallible and touches no file system (seed 002, "Executor Initialization").
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import tempfile
import time
from typing import Any, Mapping, Sequence

from aiq_tui.config import ToolSettings


class SkillExecutionError(Exception):
    """A skill cannot be executed as asked; ``str()`` says why."""


class DangerousScriptError(SkillExecutionError):
    """A script matched a dangerous pattern; ``pattern`` names which one."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        super().__init__(f"script refused: it matches the dangerous pattern '{pattern}'")


# -- dangerous patterns ---------------------------------------------------------------------

_ROOTISH_TARGETS = re.compile(
    r"""^["']?(/|/\*|/\.\*|~|~/|~/\*|\$HOME/?|\$\{HOME\}/?|\$HOME/\*|\$\{HOME\}/\*|/(bin|boot|etc|home|lib|usr|var|root|dev|sys|proc)/?\*?)["']?$"""
)
_RM_COMMAND = re.compile(r"(?:^|[;&|(`\s])(?:sudo\s+)?(?:/bin/|/usr/bin/)?rm\s+([^;&|\n`)]*)")

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("rm --no-preserve-root", re.compile(r"--no-preserve-root")),
    (
        "fork bomb",
        re.compile(
            r"(?:function\s+)?([A-Za-z_:.][\w:.]*)\s*(?:\(\s*\))?\s*\{[^}]*?"
            r"(?<![\w:.])\1\s*\|\s*&?\s*\1\s*&"
        ),
    ),
    ("fork bomb", re.compile(r"\bwhile\s+(true|:)\s*;\s*do\s+[^;]*&\s*done")),
    (
        "download piped to a shell (curl|sh)",
        re.compile(
            r"\b(curl|wget|fetch)\b[^\n;]*\|\s*(sudo\s+)?(env\s+)?(/\S*/)?(ba|z|da|k|c|tc|fi)?sh\b"
        ),
    ),
    (
        "download run by a shell (sh -c \"$(curl …)\")",
        re.compile(r"\b(ba|z|da|k)?sh\b[^\n;]*(\$\(|<\(|`)\s*(curl|wget)\b"),
    ),
    ("raw device write (> /dev/sd*)", re.compile(r">\s*/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|md)\w*")),
    ("raw device write (of=/dev/…)", re.compile(r"\bof=/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|md)\w*")),
    ("filesystem format (mkfs)", re.compile(r"\bmkfs(\.\w+)?\b")),
    ("raw disk copy (dd if=)", re.compile(r"\bdd\b[^\n;|&]*\bif=")),
)


def _rm_is_dangerous(arguments: str) -> bool:
    tokens = arguments.split()
    recursive = any(
        token in ("--recursive", "-r", "-R")
        or (token.startswith("-") and not token.startswith("--") and ("r" in token or "R" in token))
        for token in tokens
    )
    return recursive and any(_ROOTISH_TARGETS.match(token) for token in tokens if not token.startswith("-") or token == "-")


def find_dangerous(script: str) -> str | None:
    """The name of the first dangerous pattern ``script`` matches, or None."""
    for match in _RM_COMMAND.finditer(script):
        if _rm_is_dangerous(match.group(1)):
            return "recursive delete of / or ~ (rm -rf /)"
    for name, pattern in _PATTERNS:
        if pattern.search(script):
            return name
    return None


def check_script(script: str) -> None:
    """Raise :class:`DangerousScriptError` when the script matches a dangerous pattern."""
    pattern = find_dangerous(script)
    if pattern:
        raise DangerousScriptError(pattern)


# -- templates ------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\{\{\s*\.?([A-Za-z_][\w-]*)\s*\}\}")


def render_template(template: str, params: Mapping[str, Any], declared: Mapping[str, Any] | None = None) -> str:
    """Fill ``{{name}}`` placeholders; missing ones (without a declared default) are an error."""
    values = dict(params)
    for name, spec in (declared or {}).items():
        if name not in values and isinstance(spec, Mapping) and "default" in spec:
            values[name] = spec["default"]
    missing = sorted({name for name in _PLACEHOLDER.findall(template) if name not in values})
    if missing:
        raise SkillExecutionError(f"missing template parameter(s): {', '.join(missing)}")
    return _PLACEHOLDER.sub(lambda match: str(values[match.group(1)]), template)


# -- the executor ---------------------------------------------------------------------------


class SkillExecutor:
    """Executes store entries (:class:`~aiq_tui.skills.store.SkillEntry`) by type."""

    def __init__(self, settings: ToolSettings | None = None) -> None:
        # Nothing here may touch the file system: construction must not fail.
        self._settings = settings or ToolSettings()

    async def execute(self, entry: Any, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Run ``entry`` and return a JSON-ready dict; :class:`SkillExecutionError` otherwise."""
        params = dict(params or {})
        definition: Mapping[str, Any] = entry.definition or {}
        if entry.type == "composite":
            return {"name": entry.name, "type": "composite", "plan": plan_steps(definition.get("steps"))}
        if entry.type == "script":
            script = definition.get("script")
            if not isinstance(script, str) or not script.strip():
                raise SkillExecutionError(f"script skill {entry.name!r} has no script")
            check_script(script)
            return {"name": entry.name, "type": "script", **await self.run_script(script)}
        if entry.type == "template":
            template = definition.get("template")
            if not isinstance(template, str):
                raise SkillExecutionError(f"template skill {entry.name!r} has no template")
            return {
                "name": entry.name,
                "type": "template",
                "output": render_template(template, params, entry.parameters or {}),
            }
        if entry.type == "instruction":
            return {"name": entry.name, "type": "instruction", "content": str(definition.get("content", ""))}
        raise SkillExecutionError(
            f"skill {entry.name!r} has unknown type {entry.type!r}; valid types: composite, script, template, instruction"
        )

    async def run_script(self, script: str) -> dict[str, Any]:
        """Run ``script`` with ``sh`` from a temp file (always removed) under the timeout."""
        from aiq_tui.tools.command import scrub_environment

        check_script(script)
        limit = self._settings.script_timeout_seconds
        cap = self._settings.command_output_bytes
        fd, path = tempfile.mkstemp(prefix="aiq-skill-", suffix=".sh")
        started = time.perf_counter()
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(script)
            process = await asyncio.create_subprocess_exec(
                "sh", path,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=scrub_environment(os.environ),
                start_new_session=True,
            )
            timed_out = False
            try:
                stdout, stderr = await asyncio.wait_for(process.communicate(), limit)
            except asyncio.TimeoutError:
                timed_out = True
                _kill_group(process.pid)
                stdout, stderr = await process.communicate()
            _kill_group(process.pid)
        finally:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        return {
            "exit_code": process.returncode,
            "stdout": stdout[:cap].decode("utf-8", errors="replace"),
            "stderr": stderr[:cap].decode("utf-8", errors="replace"),
            "truncated": len(stdout) > cap or len(stderr) > cap,
            "timed_out": timed_out,
            "duration_s": round(time.perf_counter() - started, 4),
        }


def plan_steps(steps: Any) -> list[dict[str, Any]]:
    """The execution plan of a composite: ``[{"step": 1, "tool": …, "params": {…}}, …]``."""
    if not isinstance(steps, Sequence) or isinstance(steps, (str, bytes)):
        raise SkillExecutionError("composite skill needs a 'steps' array in its definition")
    plan: list[dict[str, Any]] = []
    for number, step in enumerate(steps, start=1):
        if not isinstance(step, Mapping) or not isinstance(step.get("tool"), str):
            raise SkillExecutionError(f"step {number} must be an object with a 'tool' name")
        params = step.get("params", step.get("parameters", {})) or {}
        plan.append({"step": number, "tool": step["tool"], "params": dict(params)})
    return plan


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
