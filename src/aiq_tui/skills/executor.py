"""Executing skill types, in one place (seed 002): plan composites, run scripts, render templates.

* composite → the numbered *plan* (step, tool, parameters); nothing runs here.
* script → refused before anything runs when it matches a dangerous pattern (a first filter:
  the real containment is the process launcher's sandbox); otherwise written to a temp file
  that is closed before execution, run with ``sh`` as the one launcher policy plans it
  (:mod:`aiq_tui.tools.launch_policy` — the same roots, hidden secrets, limits and network as
  ``execute_command``; the executor has no policy of its own), cwd = the project directory,
  and the temp folder is always removed.
* template → rendered by :func:`aiq_tui.skills.template_render.render_template`: jinja2's
  sandbox in a process of its own, with a deadline, an output cap and a memory bound; Go
  ``text/template`` actions are translated first, so both styles work.
* instruction → name, type and content; nothing runs.

Construction is infallible and touches no file system (seed 002, "Executor Initialization").
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from aiq_tui.config import ToolSettings
from aiq_tui.skills.validate import SKILL_TYPES


class SkillExecutionError(Exception):
    """A skill cannot be executed as asked; ``str()`` says why."""


class DangerousScriptError(SkillExecutionError):
    """A script matched a dangerous pattern; ``pattern`` names which one."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        super().__init__(
            f"script refused: it matches the dangerous pattern '{pattern}'"
        )


@dataclass(frozen=True)
class SkillProgram:
    """What the executor needs of a skill: its type, definition and declared parameters."""

    name: str
    type: str
    definition: Mapping[str, Any] = field(default_factory=dict)
    parameters: Any = None


# -- dangerous patterns ---------------------------------------------------------------------

_SHELLS = r"(?:sudo\s+)?(?:env\s+)?(?:/\S*/)?(?:ba|z|da|k|c|tc|fi|a)?sh\b"
_ROOT_DIRS = r"(bin|boot|etc|home|lib|lib64|usr|var|root|dev|sys|proc|opt|srv|sbin)"
_ROOTISH = re.compile(rf"^(/|/\*|/\.\*|~|~/|~/\*|/{_ROOT_DIRS}/?\*?)$")
_RM_COMMAND = re.compile(
    r"(?:^|[;&|(`\s{])(?:sudo\s+)?(?:/bin/|/usr/bin/)?rm\s+([^;&|\n`)]*)"
)
_ASSIGNMENT = re.compile(
    r"(?:^|[;&\s])(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)=(\"[^\"]*\"|'[^']*'|[^\s;&|]*)"
)
_VARIABLE = re.compile(r"\$\{([A-Za-z_]\w*)(:?[-=][^}]*)?\}|\$([A-Za-z_]\w*)")

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
        re.compile(rf"\b(curl|wget|fetch)\b[^\n;]*\|\s*{_SHELLS}"),
    ),
    (
        'download run by a shell (sh -c "$(curl …)")',
        re.compile(r"\b(ba|z|da|k)?sh\b[^\n;]*(\$\(|<\(|`)\s*(curl|wget)\b"),
    ),
    (
        "decoded payload piped to a shell (base64 -d | sh)",
        re.compile(
            rf"\b(base64|xxd|openssl|gunzip|zcat|uudecode|rev)\b[^\n;]*\|\s*{_SHELLS}"
        ),
    ),
    (
        'decoded payload run by a shell (eval/sh -c "$(… base64 -d)")',
        re.compile(
            r"\b(eval|(ba|z|da|k)?sh\s+-c)\b[^\n]*(\$\(|`)[^\n]*\b(base64|xxd|openssl)\b"
        ),
    ),
    (
        "interpreter one-liner running commands (python -c os.system)",
        re.compile(
            r"\b(python[\d.]*|perl|ruby|node|php)\b[^\n]*\s-(c|e|r)\s[^\n]*"
            r"(os\.system|os\.popen|subprocess|shutil\.rmtree|os\.remove|os\.unlink|pty\.spawn|"
            r"__import__|exec\(|eval\(|system\(|child_process|`)"
        ),
    ),
    (
        "recursive delete with find (find / -delete)",
        re.compile(
            r"\bfind\s+[\"']?(/+|~|\$HOME|\$\{HOME\})[\"']?\s[^\n;]*(-delete|-exec\s+(/\S*/)?rm\b)"
        ),
    ),
    (
        "recursive permission change of / (chmod -R … /)",
        re.compile(
            r"\bch(mod|own|grp)\s+(\S+\s+)*(-\w*R\w*|--recursive)\s+(\S+\s+)*[\"']?/+[\"']?(\s|$|;)"
        ),
    ),
    (
        "raw device write (> /dev/sd*)",
        re.compile(r">\s*/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|md)\w*"),
    ),
    (
        "raw device write (of=/dev/…)",
        re.compile(r"\bof=/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|md)\w*"),
    ),
    (
        "raw device wipe (shred /dev/…)",
        re.compile(r"\b(shred|wipefs|blkdiscard)\b[^\n;]*/dev/"),
    ),
    ("filesystem format (mkfs)", re.compile(r"\bmkfs(\.\w+)?\b")),
    ("raw disk copy (dd if=)", re.compile(r"\bdd\b[^\n;|&]*\bif=")),
)


def _normalise_target(token: str) -> str:
    """``//``, ``/./`` and quotes folded away: ``"//"`` → ``/``, ``/./*`` → ``/*``."""
    token = token.strip("\"'")
    if not token:
        return token
    folded = re.sub(r"(/\.)+(?=/|$)", "", re.sub(r"/+", "/", token))
    return folded or "/"


def _rm_is_dangerous(arguments: str, variables: Mapping[str, str]) -> bool:
    tokens = [token.replace("\x01", " ") for token in arguments.split()]
    recursive = any(
        token in ("--recursive", "-r", "-R")
        or (
            token.startswith("-")
            and not token.startswith("--")
            and ("r" in token or "R" in token)
        )
        for token in tokens
    )
    if not recursive:
        return False
    return any(
        _ROOTISH.match(
            _normalise_target(
                _expand(token.replace('"', "").replace("'", ""), variables)
            )
        )
        for token in tokens
        if not token.startswith("-") or token == "-"
    )


def _expand(token: str, variables: Mapping[str, str]) -> str:
    """``token`` with ``$VAR`` / ``${VAR}`` / ``${VAR:-default}`` replaced by what the script
    assigned (or the default); a variable it never set is empty — so ``$UNSET/`` is ``/``."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(3)
        if name in variables:
            return variables[name]
        if name == "HOME":
            return "~"
        default = (match.group(2) or "").lstrip(":")
        return default[1:] if default[:1] in ("-", "=") else ""

    return _VARIABLE.sub(replace, token)


def find_dangerous(script: str) -> str | None:
    """The name of the first dangerous pattern ``script`` matches, or None.

    The script is read as ``sh`` would read it (:mod:`aiq_tui.skills.shell_scan`: quotes
    removed, variables and ``echo``/``printf`` substitutions expanded, text piped into a shell
    read as the script it is), so the classes of evasion the reviews used are caught; a script
    the scanner cannot read falls back to the line patterns. Either way a first filter: the
    sandbox and the process limits contain what it misses."""
    return _find_dangerous(script, 0)


def _find_dangerous(script: str, depth: int) -> str | None:
    from aiq_tui.skills import shell_scan

    try:
        found = _structural(shell_scan.scan(script), depth)
    except shell_scan.ShellSyntaxError:
        found = _rm_by_pattern(script)
    if found:
        return found
    for (name, pattern), needs in zip(_PATTERNS, _PATTERN_NEEDS):
        if not any(literal in script for literal in needs):
            continue  # a word every match contains is absent: the pattern cannot match
        if pattern is _PATTERNS[1][1] and not _FORK_SHAPE.search(script):
            continue  # no `NAME | NAME &` at all: the (slow) fork-bomb pattern cannot match
        if pattern.search(script):
            return name
    return None


# For each of _PATTERNS (same order), text every match of it contains, one of them at least:
# searching a long instruction body with ~15 patterns cost more than reading it as shell.
_PATTERN_NEEDS: tuple[tuple[str, ...], ...] = (
    ("--no-preserve-root",),
    ("|",),
    ("while",),
    ("curl", "wget", "fetch"),
    ("curl", "wget"),
    ("base64", "xxd", "openssl", "gunzip", "zcat", "uudecode", "rev"),
    ("base64", "xxd", "openssl"),
    ("python", "perl", "ruby", "node", "php"),
    ("find",),
    ("chmod", "chown", "chgrp"),
    ("/dev/",),
    ("of=/dev/",),
    ("/dev/",),
    ("mkfs",),
    ("if=",),
)
assert len(_PATTERN_NEEDS) == len(_PATTERNS)


# What every match of the fork-bomb function pattern contains: `X|X&` (with spaces, `|&`). The
# pattern itself starts with an identifier, tried at every position; this one starts with `|`.
_FORK_SHAPE = re.compile(r"\|\s*&?\s*[A-Za-z_:.][\w:.]*\s*&")


def _rm_by_pattern(script: str) -> str | None:
    """The line-pattern check for ``rm -rf /`` (for text the scanner cannot read)."""
    variables = {
        name: value.strip("\"'") for name, value in _ASSIGNMENT.findall(script)
    }
    for match in _RM_COMMAND.finditer(script):
        if _rm_is_dangerous(match.group(1), variables):
            return RM_ROOT
    return None


RM_ROOT = "recursive delete of / or ~ (rm -rf /)"
FORK_BOMB = "fork bomb"
_SHELL_NAMES = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"})
_CODE_FLAGS = {"perl": "-e", "ruby": "-e", "node": "-e", "nodejs": "-e", "php": "-r"}
# Programs that run the rest of their arguments as a command.
_WRAPPERS = frozenset(
    {
        "sudo",
        "doas",
        "command",
        "builtin",
        "exec",
        "env",
        "nice",
        "nohup",
        "time",
        "timeout",
        "stdbuf",
        "setsid",
        "ionice",
        "chrt",
        "taskset",
        "unbuffer",
        "busybox",
        "xargs",
    }
)
_WRAPPER_VALUE_OPTIONS = {
    "nice": {"-n"},
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"},
    "xargs": {"-n", "-L", "-P", "-s", "-I", "-d", "-E", "-a"},
    "ionice": {"-c", "-n"},
    "chrt": {"-p"},
    "taskset": {"-p", "-c"},
    "env": {"-u", "-C", "-S"},
    "stdbuf": {"-i", "-o", "-e"},
}


def _unwrap(argv: list[str]) -> tuple[list[str], bool]:
    """``argv`` without wrappers in front (``sudo``, ``env X=1``, ``nice -n 5``, ``xargs -r``…)
    and whether ``xargs`` was one of them (then stdin supplies more arguments)."""
    via_xargs = False
    words = list(argv)
    for _ in range(8):
        if not words:
            break
        name = words[0].rsplit("/", 1)[-1]
        if name not in _WRAPPERS or (
            name == "busybox" and len(words) > 1 and words[1] in _SHELL_NAMES
        ):
            break
        via_xargs = via_xargs or name == "xargs"
        words = words[1:]
        takes_value = _WRAPPER_VALUE_OPTIONS.get(name, set())
        while words and (
            words[0].startswith("-")
            or (name == "env" and "=" in words[0])
            or (name == "timeout" and words[0][:1].isdigit())
        ):
            option = words.pop(0)
            if option in takes_value and words:
                words.pop(0)
            if option == "--":
                break
    return words, via_xargs


def _structural(script: Any, depth: int) -> str | None:
    from aiq_tui.skills import shell_scan

    for command in script.commands:
        argv, via_xargs = _unwrap(command.argv)
        if not argv:
            continue
        name = argv[0].rsplit("/", 1)[-1]
        arguments = argv[1:]
        if via_xargs and command.stdin is not None:
            arguments = [*arguments, *command.stdin.split()]
        if name == "rm" and _rm_is_dangerous(" ".join(_quoted(arguments)), {}):
            return RM_ROOT
        nested = _nested_script(name, arguments, command)
        if nested is not None:
            if depth < 4:
                found = _find_dangerous(nested, depth + 1)
                if found:
                    return found
        if (
            name in _SHELL_NAMES
            and shell_scan.SELF in arguments[:1]
            and (command.background or command.in_pipeline)
        ):
            return f"{FORK_BOMB} (the script starts itself in the background)"
        code = _code_argument(name, arguments)
        if code is not None and re.search(r"\bfork\b", code):
            return f"{FORK_BOMB} (an interpreter forking in a loop)"
    return _recursive_function(script) or _endless_background_loop(script)


def _quoted(words: list[str]) -> list[str]:
    """Words as one argument string for :func:`_rm_is_dangerous` (a space inside stays inside)."""
    return [word.replace(" ", "\x01") for word in words]


def _nested_script(name: str, arguments: list[str], command: Any) -> str | None:
    """The text a command runs as shell code: ``eval …``, ``sh -c …``, or what a shell reads
    from a pipe, a here-string or a here-document."""
    if name == "eval":
        return " ".join(arguments)
    if name in ("source", "."):
        return command.stdin
    if name not in _SHELL_NAMES:
        return None
    words = arguments[1:] if name == "busybox" else arguments
    for index, word in enumerate(words):
        if word == "-c" or (
            word.startswith("-") and not word.startswith("--") and "c" in word[1:]
        ):
            return words[index + 1] if index + 1 < len(words) else None
        if not word.startswith("-"):
            return None  # a script file: the sandbox contains it
    return command.stdin


def _code_argument(name: str, arguments: list[str]) -> str | None:
    """The code of an interpreter one-liner (``perl -e CODE``, ``python3 -c CODE``)."""
    flag = "-c" if re.fullmatch(r"python[\d.]*|pypy3?", name) else _CODE_FLAGS.get(name)
    if flag is None:
        return None
    for index, word in enumerate(arguments):
        if word == flag and index + 1 < len(arguments):
            return arguments[index + 1]
    return None


def _recursive_function(script: Any) -> str | None:
    """A function that starts itself in the background or in a pipeline (``b(){ b & b & }``)."""
    from aiq_tui.skills import shell_scan

    for name, body in shell_scan.functions(script).items():
        previous_op = ""
        for words, operator in shell_scan.command_words(body):
            called, _ = _unwrap(words)
            if (
                called
                and called[0] == name
                and (operator in ("&", "|", "|&") or previous_op in ("|", "|&"))
            ):
                return f"{FORK_BOMB} (a function that starts itself in the background: {name})"
            previous_op = operator
    return None


_ALWAYS_TRUE = frozenset({"true", ":", "[ 1 ]", "[[ 1 ]]", "test 1", "((1))"})


def _endless_background_loop(script: Any) -> str | None:
    """``while true; do … & done``, ``until false``, ``for ((;;))``: an endless loop that
    starts a background job every time round."""
    tokens = script.tokens
    for index, (kind, value) in enumerate(tokens):
        if kind != "word" or value not in ("while", "until", "for"):
            continue
        rest = tokens[index + 1 :]
        if value == "for":
            endless = "".join(token for _, token in rest[:6]).startswith("((;;))")
        else:
            condition = []
            for inner_kind, inner in rest:
                if inner_kind == "op" and inner in (";", "\n"):
                    break
                condition.append(inner)
            text = " ".join(condition)
            endless = text in _ALWAYS_TRUE if value == "while" else text == "false"
        if not endless:
            continue
        depth = 0
        for inner_kind, inner in rest:
            if inner_kind == "word" and inner == "do":
                depth += 1
            elif inner_kind == "word" and inner == "done":
                depth -= 1
                if depth <= 0:
                    break
            elif depth and (inner_kind, inner) == ("op", "&"):
                return f"{FORK_BOMB} (an endless loop starting background jobs)"
    return None


def check_script(script: str) -> None:
    """Raise :class:`DangerousScriptError` when the script matches a dangerous pattern."""
    pattern = find_dangerous(script)
    if pattern:
        raise DangerousScriptError(pattern)


# -- composites -----------------------------------------------------------------------------


def plan_steps(steps: Any) -> list[dict[str, Any]]:
    """The execution plan of a composite: ``[{"step": 1, "tool": …, "params": {…}}, …]``."""
    if not isinstance(steps, Sequence) or isinstance(steps, (str, bytes)) or not steps:
        raise SkillExecutionError(
            "a composite skill needs a non-empty 'steps' array in its definition"
        )
    plan: list[dict[str, Any]] = []
    for number, step in enumerate(steps, start=1):
        if not isinstance(step, Mapping) or not isinstance(step.get("tool"), str):
            raise SkillExecutionError(
                f"step {number} must be an object with a 'tool' name"
            )
        params = step.get("params", step.get("parameters", {})) or {}
        plan.append({"step": number, "tool": step["tool"], "params": dict(params)})
    return plan


class DefinitionProblem(NamedTuple):
    """Why a definition cannot run, and what to do about it."""

    message: str
    hint: str
    dangerous: bool = (
        False  # a script matching a dangerous pattern (blocked, not merely incomplete)
    )


_DEFINITION_KEYS = {
    "composite": ("steps", "json"),
    "script": ("script", "sh"),
    "template": ("template", "template"),
}


def definition_problems(
    kind: str, definition: Mapping[str, Any], fenced: bool = False
) -> list[DefinitionProblem]:
    """Why ``definition`` cannot run as a ``kind`` skill (empty when it can). ``fenced``: the
    definition came from a fenced block of the body (the hints then point there)."""
    if kind not in SKILL_TYPES:
        return [
            DefinitionProblem(
                f"unknown skill type {kind!r}; valid types: {', '.join(SKILL_TYPES)}",
                "use one of the valid types, or remove `type` for an instruction skill",
            )
        ]
    if kind not in _DEFINITION_KEYS:
        return []
    key, language = _DEFINITION_KEYS[kind]
    where = f"its ```{language} block" if fenced else f"its `{key}:` field"
    add = f"add the {key}: a `{key}:` field in the frontmatter, or a ```{language} block in the body"
    if kind == "composite":
        steps = definition.get("steps")
        try:
            plan_steps(steps)
        except SkillExecutionError as exc:
            missing = steps is None or (
                isinstance(steps, Sequence)
                and not isinstance(steps, (str, bytes))
                and not steps
            )
            return [
                DefinitionProblem(
                    str(exc),
                    add
                    if missing
                    else f"fix {where}: a list of steps, each with a `tool` name and optional `params`",
                )
            ]
    elif kind == "script":
        script = definition.get("script")
        if not isinstance(script, str) or not script.strip():
            return [
                DefinitionProblem(
                    "a script skill needs a 'script' (frontmatter field or ```sh block)",
                    add,
                )
            ]
        danger = find_dangerous(script)
        if danger:
            return [
                DefinitionProblem(
                    f"script matches the dangerous pattern '{danger}'; it will never run",
                    f"remove the dangerous command from {where}",
                    dangerous=True,
                )
            ]
    elif kind == "template":
        if not isinstance(definition.get("template"), str):
            return [
                DefinitionProblem(
                    "a template skill needs a 'template' (frontmatter field or ```template block)",
                    add,
                )
            ]
    return []


# -- the executor ---------------------------------------------------------------------------


class SkillExecutor:
    """Runs a :class:`SkillProgram` by type. ``cwd`` is the project directory scripts run in;
    ``launch`` the launcher policy they run under (the engine shares its own with
    ``execute_command``; without one, the policy for ``cwd`` and the default config home)."""

    def __init__(
        self,
        settings: ToolSettings | None = None,
        cwd: Path | None = None,
        launch: Any = None,
    ) -> None:
        # Nothing here may touch the file system: construction must not fail.
        self._settings = settings or ToolSettings()
        self._cwd = cwd
        self._launch = launch

    @property
    def launch(self) -> Any:
        """The :class:`~aiq_tui.tools.launch_policy.LaunchPolicy` scripts run under."""
        if self._launch is None:
            from aiq_tui.locations import resolve_home
            from aiq_tui.tools.launch_policy import LaunchPolicy

            self._launch = LaunchPolicy(
                self._settings, home=resolve_home(), project=(self._cwd or Path.cwd())
            )
        return self._launch

    async def execute(
        self,
        program: Any,
        params: Mapping[str, Any] | None = None,
        ask_more: Any = None,
    ) -> dict[str, Any]:
        """Run ``program`` and return a JSON-ready dict; :class:`SkillExecutionError` otherwise.
        ``ask_more(key, detail)`` asks the user when a script needs more than its approval (the
        sandbox cannot hide a secret here); without it such a script is refused."""
        params = dict(params or {})
        definition: Mapping[str, Any] = program.definition or {}
        kind = program.type
        if kind == "composite":
            return {
                "name": program.name,
                "type": "composite",
                "plan": plan_steps(definition.get("steps")),
            }
        if kind == "script":
            script = definition.get("script")
            if not isinstance(script, str) or not script.strip():
                raise SkillExecutionError(
                    f"script skill {program.name!r} has no script"
                )
            return {
                "name": program.name,
                "type": "script",
                **await self.run_script(script, params, ask_more),
            }
        if kind == "template":
            template = definition.get("template")
            if not isinstance(template, str):
                raise SkillExecutionError(
                    f"template skill {program.name!r} has no template"
                )
            from aiq_tui.skills.template_render import render_template

            output = await render_template(
                template, params, program.parameters, self._settings
            )
            return {"name": program.name, "type": "template", "output": output}
        if kind == "instruction":
            return {
                "name": program.name,
                "type": "instruction",
                "content": str(definition.get("content", "")),
            }
        raise SkillExecutionError(
            f"skill {program.name!r} has unknown type {kind!r}; "
            f"valid types: {', '.join(SKILL_TYPES)}"
        )

    async def run_script(
        self, script: str, params: Mapping[str, Any] | None = None, ask_more: Any = None
    ) -> dict[str, Any]:
        """Run ``script`` with ``sh`` from a closed temp file (always removed) in the sandbox.

        Parameters reach the script as shell variables ``SKILL_<NAME>``, assigned (shell-quoted,
        so a value is never code) in lines put before the checked script text.
        """
        import tempfile  # here, not at the top: the scan imports this module for find_dangerous

        from aiq_tui.tools import launcher

        check_script(script)
        cwd = (self._cwd or Path.cwd()).resolve()
        folder = Path(tempfile.mkdtemp(prefix="aiq-skill-"))
        started = time.perf_counter()
        try:
            plan = self.launch.plan(cwd, extra_read=(folder,))
            if plan.exposed:
                note = plan.exposure_note().replace("this command", "this script")
                if ask_more is None or not await ask_more("file_read_secret", note):
                    raise SkillExecutionError(f"not run: {note}")
            path = folder / "script.sh"
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(_parameter_lines(params or {}) + script)
            # closed here: the file is complete before sh reads it
            env = launcher.child_environment(os.environ)
            result = await launcher.launch(
                ["sh", str(path)],
                plan,
                timeout=self._settings.script_timeout_seconds,
                output_cap=self._settings.command_output_bytes,
                env=env,
            )
        finally:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)
        outcome: dict[str, object] = {
            "exit_code": result.exit_code,
            "stdout": result.stdout,
            "stderr": result.stderr,
            "truncated": result.truncated,
            "timed_out": result.timed_out,
            "duration_s": round(time.perf_counter() - started, 4),
            "sandbox": result.sandbox,
        }
        if (
            result.removed
        ):  # run-outside files it created (a .git, a hooks folder): taken away
            from aiq_tui.tools.run_outside import REMOVED_WHY

            outcome["removed"] = list(result.removed)
            outcome["removed_why"] = REMOVED_WHY.replace("the command", "the script")
        return outcome


def _parameter_lines(params: Mapping[str, Any]) -> str:
    """``SKILL_NAME='value'`` lines (values shell-quoted, lists/objects as JSON)."""
    import json
    import shlex

    lines = []
    for name, value in params.items():
        key = "SKILL_" + re.sub(r"\W", "_", str(name)).upper()
        text = (
            value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        )
        lines.append(f"{key}={shlex.quote(text)}\n")
    return "".join(lines)


def format_plan(result: Any) -> str | None:
    """A composite skill's plan as numbered lines (``1. execute_sql {"sql": …}``), or None when
    ``result`` is not a plan. ``aiq-tui run`` prints it and the TUI shows it as a notice."""
    import json

    if not isinstance(result, Mapping) or result.get("type") != "composite":
        return None
    return "\n".join(
        f"{step['step']}. {step['tool']} {json.dumps(step['params'], ensure_ascii=False)}"
        for step in result.get("plan", ())
    )
