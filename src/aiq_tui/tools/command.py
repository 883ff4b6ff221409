"""``execute_command``: run one allowlisted program with an argv list, never through a shell.

The safety model, in the order it is applied (each step refuses with a clear message):

1. The command is an argv list. A string is split with :func:`shlex.split` and still runs
   without a shell, so ``;``, ``&&``, ``|``, ``$()``, backticks and redirections are plain
   arguments, never syntax.
2. The program's basename must be in ``tools.command_allowlist`` (or ``tools.shell_programs``,
   below). A path (``/tmp/x/ls``) is accepted only when it resolves to the same executable as
   ``shutil.which(basename)``; the resolved executable is what runs.
3. Per-program argument rules (:mod:`aiq_tui.tools.command_rules`) refuse the options that
   turn a read-only program into one that runs or writes things, matching long options the
   way getopt does (``--compress=sh`` is ``--compress-program``); path arguments must resolve
   inside the readable roots and never into ``/proc``, ``/sys``, ``/dev`` or /etc's secrets.
   Interpreters are not on the default allowlist; ``python3``, when a user adds it, only runs
   a ``.py`` file inside the roots (no ``-c``, ``-m``, ``-``).
4. A shell (a program in ``tools.shell_programs``) may run a command string, and only with
   the user's approval every time: its permission key is ``execute_shell`` (always asked).
5. ``cwd`` must resolve inside the allowed roots; stdin is empty. A path argument into the
   config home (outside its ``skills/``) is refused: the model never reads sessions or config.
6. Everything then runs as the one launcher policy plans it
   (:mod:`aiq_tui.tools.launch_policy`, the same for script skills): the OS sandbox (Landlock:
   read the project, the config home's skills and the system; write only the project unless it
   is ``~``, ``/`` or holds the config home; no network, no UNIX sockets), secret files under
   the readable roots and the rest of the config home hidden, bounded processes and memory, an
   environment built from an allowlist, a process group that the timeout and the end of the call
   kill, output capped per stream. When the sandbox cannot hide a secret here, the call asks
   (``file_read_secret``). The result says which enforcement was active (``sandbox: landlock``
   / ``policy only``).
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from aiq_tui.config import ToolSettings
from aiq_tui.conversation import ToolSpec
from aiq_tui.locations import Home
from aiq_tui.tools.base import ToolResult
from aiq_tui.tools.command_rules import CommandRefused, check_arguments
from aiq_tui.tools.launch_policy import LaunchPolicy
from aiq_tui.tools.launcher import child_environment, launch
from aiq_tui.tools.policy import looks_secret
from aiq_tui.tools.run_outside import REMOVED_WHY

SPEC = ToolSpec(
    name="execute_command",
    description=(
        "Run one allowlisted program with arguments (an argv list; no shell: pipes, ;, && "
        "and $() are not interpreted). Returns exit code, stdout, stderr and duration."
    ),
    parameters={
        "type": "object",
        "properties": {
            "command": {
                "type": ["array", "string"],
                "items": {"type": "string"},
                "description": 'argv list, e.g. ["ls", "-la"]; a string is split like a shell would, but never run by one.',
            },
            "cwd": {
                "type": "string",
                "description": "Working directory (inside the project or config home).",
            },
            "timeout": {
                "type": "number",
                "description": "Seconds; capped by the configured timeout.",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    },
)

_PYTHON_FLAGS = frozenset({"-B", "-u", "-I", "-E", "-s", "-S", "-q"})


def _rule_python(args: Sequence[str], roots: Sequence[Path], cwd: Path) -> None:
    if list(args) in (["--version"], ["-V"]):
        return
    for _index, arg in enumerate(args):
        if arg in _PYTHON_FLAGS:
            continue
        if arg.startswith("-"):
            raise CommandRefused(
                f"python3 {arg} is not allowed: python3 only runs a .py file inside the project "
                "or config home (or --version)"
            )
        script = Path(os.path.realpath(os.path.join(cwd, arg)))
        if script.suffix != ".py" or not script.is_file() or not _inside(script, roots):
            raise CommandRefused(
                f"python3 may only run an existing .py file inside {', '.join(map(str, roots))}; "
                f"{arg!r} is not one"
            )
        return  # everything after the script belongs to the script
    raise CommandRefused(
        "python3 needs a script file (interactive or stdin use is not allowed)"
    )


_RULES: Mapping[str, Callable[[Sequence[str], Sequence[Path], Path], None]] = {
    "python3": _rule_python,
    "python": _rule_python,
}


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    text = str(path)
    for root in roots:
        base = str(root)
        if text == base or text.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def _argv(command: Any) -> list[str]:
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise CommandRefused(f"cannot split the command string: {exc}") from exc
    elif isinstance(command, (list, tuple)) and all(
        isinstance(part, str) for part in command
    ):
        argv = list(command)
    else:
        raise CommandRefused("command must be an argv list of strings (or one string)")
    if not argv or not argv[0]:
        raise CommandRefused("command is empty")
    if any("\x00" in part for part in argv):
        raise CommandRefused("arguments must not contain NUL bytes")
    return argv


class CommandTool:
    """The ``execute_command`` tool for one working directory and config home."""

    def __init__(
        self,
        settings: ToolSettings,
        *,
        home: Home,
        cwd: Path,
        environ: Mapping[str, str] | None = None,
        launch: LaunchPolicy | None = None,
    ) -> None:
        self._settings = settings
        self._cwd = Path(os.path.realpath(cwd))
        self.launch = launch or LaunchPolicy(settings, home=home, project=self._cwd)
        self._roots = self.launch.roots
        self._environ = environ

    @property
    def spec(self) -> ToolSpec:
        return SPEC

    def _is_shell(self, arguments: dict[str, Any]) -> bool:
        try:
            argv = _argv(arguments.get("command"))
        except CommandRefused:
            return False
        return os.path.basename(argv[0]) in self._settings.shell_programs

    def permission_key(self, arguments: dict[str, Any]) -> str:
        if self._is_shell(arguments):
            return "execute_shell"
        try:
            argv = _argv(arguments.get("command"))
        except CommandRefused:
            return "execute_command"
        cwd = self._cwd
        for value in _path_like(argv[1:]):
            real = os.path.realpath(os.path.join(cwd, value))
            if looks_secret(real) and os.path.lexists(real):
                return "file_read_secret"  # `cat .env` asks every time, like file_operations
        return "execute_command"

    def describe(self, arguments: dict[str, Any]) -> str:
        try:
            return shlex.join(_argv(arguments.get("command")))
        except CommandRefused:
            return repr(arguments.get("command"))

    def check(self, arguments: dict[str, Any]) -> tuple[list[str], Path]:
        """The argv to execute (program resolved) and the cwd, or :class:`CommandRefused`."""
        argv = _argv(arguments.get("command"))
        program = argv[0]
        name = os.path.basename(program)
        is_shell = name in self._settings.shell_programs
        if name not in self._settings.command_allowlist and not is_shell:
            raise CommandRefused(
                f"{name!r} is not in tools.command_allowlist; allowed: "
                f"{', '.join(self._settings.command_allowlist)}"
            )
        environ = self._environ if self._environ is not None else os.environ
        found = shutil.which(
            name, path=child_environment(environ)["PATH"]
        )  # absolute entries only
        if found is None:
            raise CommandRefused(
                f"{name!r} is allowlisted but not installed (not found on PATH)"
            )
        cwd = self._cwd
        if arguments.get("cwd") is not None:
            raw = arguments["cwd"]
            if not isinstance(raw, str) or "\x00" in raw or raw.startswith("~"):
                raise CommandRefused(
                    "cwd must be a plain path inside the project or config home"
                )
            cwd = Path(os.path.realpath(self._cwd / raw))
        if not _inside(cwd, self._roots) or not cwd.is_dir():
            raise CommandRefused(
                f"cwd {str(cwd)!r} must be an existing directory inside {', '.join(map(str, self._roots))}"
            )
        # A path is resolved like the child would (against its cwd) and must be the very
        # executable the bare name finds; what runs is always that resolved executable.
        if program != name and os.path.realpath(
            os.path.join(cwd, program)
        ) != os.path.realpath(found):
            raise CommandRefused(
                f"{program!r} is not the allowlisted {name!r} ({found}); give the bare program name"
            )
        for value in _path_like(argv[1:]):
            reason = self.launch.guard.config_home_reason(
                os.path.realpath(os.path.join(cwd, value))
            )
            if reason is not None:
                raise CommandRefused(reason)
        if not is_shell:
            rule = _RULES.get(name)
            if rule is not None:
                rule(argv[1:], self._roots, cwd)
            else:
                check_arguments(name, argv[1:], cwd, self._roots)
        return [found, *argv[1:]], cwd

    def refusal(self, arguments: dict[str, Any]) -> str | None:
        """Why :meth:`check` refuses the call (asked before the approval), or None."""
        try:
            self.check(arguments)
        except CommandRefused as exc:
            return f"refused: {exc}"
        return None

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        """Run without anyone to ask: a command the sandbox cannot keep from a secret is refused."""
        return await self.run_with_approval(arguments, None)

    async def run_with_approval(
        self,
        arguments: dict[str, Any],
        ask_more: Callable[[str, str], Awaitable[bool]] | None,
    ) -> ToolResult:
        """Run under the launcher policy's plan; when the sandbox cannot hide secrets here, the
        call asks first (``file_read_secret``, through the registry's ``ask_more``)."""
        try:
            argv, cwd = self.check(arguments)
        except CommandRefused as exc:
            return ToolResult.failure(f"refused: {exc}")
        plan = self.launch.plan(cwd)
        if plan.exposed:
            note = plan.exposure_note()
            if ask_more is None or not await ask_more(
                "file_read_secret", f"{self.describe(arguments)}\n\n{note}"
            ):
                return ToolResult.failure(f"denied: {note}")
        limit = self._settings.command_timeout_seconds
        timeout = arguments.get("timeout")
        if (
            isinstance(timeout, (int, float))
            and not isinstance(timeout, bool)
            and timeout > 0
        ):
            limit = min(float(timeout), limit)
        environ = self._environ if self._environ is not None else os.environ
        done = await launch(
            argv,
            plan,
            timeout=limit,
            output_cap=self._settings.command_output_bytes,
            env=environ,
        )
        content: dict[str, object] = {
            "command": self.describe(arguments),
            "cwd": str(cwd),
            "exit_code": done.exit_code,
            "stdout": done.stdout,
            "stderr": done.stderr,
            "stdout_truncated": done.stdout_truncated,
            "stderr_truncated": done.stderr_truncated,
            "timed_out": done.timed_out,
            "duration_s": done.duration_s,
            "sandbox": done.sandbox,
            "network": done.network,
        }
        if done.removed:
            content["removed"] = list(done.removed)
            content["removed_why"] = REMOVED_WHY
        if done.exit_code is None:
            return ToolResult.failure(done.stderr or f"cannot start {argv[0]}", content)
        if done.timed_out:
            return ToolResult.failure(
                f"timed out after {limit:g} s; the process group was killed "
                "(tools.command_timeout_seconds)",
                content,
            )
        lines = done.stdout.count("\n")
        return ToolResult(
            ok=True,
            content=content,
            summary=f"exit {done.exit_code}, {lines} line{'' if lines == 1 else 's'} [sandbox: {done.sandbox}]",
        )


def _path_like(args: Sequence[str]) -> list[str]:
    """Arguments that may name a path: operands and ``--option=value`` values."""
    values = []
    for arg in args:
        value = arg.partition("=")[2] if arg.startswith("--") else arg
        if value and "\x00" not in value:
            values.append(value)
    return values
