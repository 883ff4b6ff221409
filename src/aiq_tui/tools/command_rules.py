"""Argument rules for ``execute_command``: the policy layer in front of the OS sandbox.

These checks are a first filter (the sandbox in :mod:`aiq_tui.tools.launcher` is what
enforces); they refuse, with a reason, what would let an allowlisted program run other code,
write outside the project or read outside the readable roots:

* **Long options are matched the way getopt matches them**: ``--compress=sh`` is
  ``--compress-program=sh`` because getopt accepts any unambiguous prefix. A given name is
  refused when it is a prefix of a banned option (a superset of getopt's unique prefixes:
  an ambiguous prefix that getopt would reject is refused too).
* **Short options are read as clusters**: ``-uo FILE`` holds ``-o``; an option that takes a
  value ends the cluster (``-k1,1o`` is ``-k`` with the value ``1,1o``).
* **Path arguments** (operands and path-valued options) must resolve — symlinks followed —
  inside the readable roots (the project, the config home, the system's program and library
  directories, ``/etc`` minus secrets) and never into ``/proc``, ``/sys`` or ``/dev``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from aiq_tui.tools.sandbox_exec import ETC_SECRETS, SSL_SECRETS, SYSTEM_EXEC


class CommandRefused(Exception):
    """A command the policy does not run; ``str()`` says why and what is allowed."""


INTERPRETERS: frozenset[str] = frozenset(
    {
        "python",
        "python2",
        "python3",
        "pypy",
        "pypy3",
        "node",
        "nodejs",
        "deno",
        "bun",
        "perl",
        "ruby",
        "php",
        "lua",
        "luajit",
        "tclsh",
        "wish",
        "R",
        "Rscript",
        "julia",
        "java",
        "sh",
        "bash",
        "dash",
        "zsh",
        "ksh",
        "mksh",
        "fish",
        "csh",
        "tcsh",
        "busybox",
        "env",
        "xargs",
        "nohup",
        "nice",
        "timeout",
        "stdbuf",
        "setsid",
        "sudo",
        "doas",
        "su",
        "chroot",
        "unshare",
        "nsenter",
        "strace",
        "ltrace",
        "gdb",
        "awk",
        "gawk",
        "mawk",
        "nawk",
        "sed",
        "less",
        "more",
        "man",
        "vi",
        "vim",
        "nvim",
        "nano",
        "emacs",
        "ed",
        "make",
        "watch",
        "script",
        "expect",
        "ssh",
        "socat",
        "nc",
        "ncat",
        "telnet",
    }
)
"""Programs that run code through their arguments: never on the default allowlist, and
:func:`check_arguments` gives them no argument rule (added by a user, they run sandboxed)."""

NEVER_READ = ("/proc", "/sys", "/dev")


@dataclass(frozen=True)
class ProgramRules:
    """What one program may be given. Option names are without dashes."""

    banned_long: tuple[str, ...] = ()
    banned_short: str = ""
    short_with_value: str = (
        ""  # these short options take a value (rest of cluster or next arg)
    )
    long_with_value: tuple[
        str, ...
    ] = ()  # these long options take a separate value when no '='
    path_long: tuple[str, ...] = ()  # long options whose value is a path (checked)
    path_short: str = ""  # short options whose value is a path (checked)
    operands_are_paths: bool = True
    pattern_first: bool = (
        False  # grep: the first operand is a pattern unless -e/-f is given
    )
    max_operands: int | None = None
    why: str = "it runs programs or writes files"


RULES: Mapping[str, ProgramRules] = {
    "sort": ProgramRules(
        banned_long=(
            "compress-program",
            "output",
            "temporary-directory",
            "files0-from",
            "random-source",
        ),
        banned_short="oT",
        short_with_value="kStTo",
        long_with_value=(
            "key",
            "buffer-size",
            "field-separator",
            "parallel",
            "batch-size",
            "sort",
        ),
        why="it runs a compressor program or writes files",
    ),
    "uniq": ProgramRules(
        short_with_value="fsw",
        long_with_value=(
            "skip-fields",
            "skip-chars",
            "check-chars",
            "group",
            "all-repeated",
        ),
        max_operands=1,
        why="an OUTPUT operand writes a file",
    ),
    "date": ProgramRules(
        banned_long=("set",),
        banned_short="s",
        short_with_value="dfrI",
        long_with_value=("date", "file", "reference"),
        path_long=("file", "reference"),
        path_short="fr",
        operands_are_paths=False,
        why="it changes the system clock",
    ),
    "file": ProgramRules(
        banned_long=("compile", "files-from"),
        banned_short="Cf",
        short_with_value="mFeP",
        long_with_value=("magic-file", "separator", "exclude", "parameter"),
        path_long=("magic-file",),
        path_short="m",
        why="it writes a compiled magic file or reads names from a file",
    ),
    "wc": ProgramRules(
        banned_long=("files0-from",), why="it reads file names from a file"
    ),
    "du": ProgramRules(
        banned_long=("files0-from", "exclude-from"),
        banned_short="X",
        short_with_value="BdtX",
        long_with_value=(
            "block-size",
            "max-depth",
            "threshold",
            "exclude",
            "time-style",
            "time",
        ),
        why="it reads file names from a file",
    ),
    "df": ProgramRules(
        short_with_value="BtxF",
        long_with_value=("block-size", "type", "exclude-type", "output"),
    ),
    "grep": ProgramRules(
        short_with_value="efmABCDd",
        path_short="f",
        long_with_value=(
            "regexp",
            "file",
            "max-count",
            "after-context",
            "before-context",
            "context",
            "devices",
            "directories",
            "include",
            "exclude",
            "exclude-dir",
            "label",
            "exclude-from",
        ),
        path_long=("file", "exclude-from"),
        pattern_first=True,
    ),
    "cut": ProgramRules(
        short_with_value="bcdf",
        long_with_value=(
            "bytes",
            "characters",
            "delimiter",
            "fields",
            "output-delimiter",
        ),
    ),
    "head": ProgramRules(short_with_value="cn", long_with_value=("bytes", "lines")),
    "tail": ProgramRules(
        short_with_value="cnsF",
        long_with_value=(
            "bytes",
            "lines",
            "sleep-interval",
            "pid",
            "max-unchanged-stats",
        ),
    ),
    "ls": ProgramRules(
        short_with_value="ITw",
        long_with_value=(
            "ignore",
            "hide",
            "tabsize",
            "width",
            "format",
            "sort",
            "time",
            "time-style",
            "block-size",
            "color",
            "indicator-style",
            "quoting-style",
        ),
    ),
    "stat": ProgramRules(
        short_with_value="c", long_with_value=("format", "printf", "cached")
    ),
    "cat": ProgramRules(),
    "echo": ProgramRules(operands_are_paths=False),
    "pwd": ProgramRules(operands_are_paths=False),
    "whoami": ProgramRules(operands_are_paths=False),
    "uname": ProgramRules(operands_are_paths=False),
    "tar": ProgramRules(
        banned_long=(
            "to-command",
            "use-compress-program",
            "checkpoint-action",
            "info-script",
            "new-volume-script",
            "rsh-command",
            "rmt-command",
            "index-file",
            "files-from",
            "extract",
            "get",
            "create",
            "append",
            "update",
            "delete",
            "file",
        ),
        banned_short="IxcruFfT",
        why="it runs programs or writes files",
    ),
    "git": ProgramRules(
        banned_long=(
            "config-env",
            "exec-path",
            "upload-pack",
            "receive-pack",
            "output",
            "ext-diff",
            "textconv",
            "git-dir",
            "work-tree",
            "namespace",
            "super-prefix",
            "open-files-in-pager",
            "paginate",
        ),
        banned_short="cCOp",
        why="it runs configured programs or writes files",
    ),
}

_FIND_BANNED = frozenset(
    {
        "-exec",
        "-execdir",
        "-ok",
        "-okdir",
        "-delete",
        "-fprint",
        "-fprint0",
        "-fprintf",
        "-fls",
        "-files0-from",
    }
)
_GENERIC = ProgramRules()


def _prefix_of_banned(name: str, banned: Sequence[str]) -> str | None:
    """The banned option ``name`` may stand for (getopt accepts unique prefixes), if any."""
    if not name:
        return None
    for option in banned:
        if option.startswith(name):
            return option
    return None


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def readable_roots(project_roots: Sequence[Path]) -> tuple[str, ...]:
    """Where path arguments may point: the project roots and the system's read-only trees."""
    roots = [os.path.realpath(root) for root in project_roots]
    roots += [os.path.realpath(path) for path in SYSTEM_EXEC if os.path.exists(path)]
    return tuple(dict.fromkeys(roots))


def check_path(
    arg: str, cwd: Path, project_roots: Sequence[Path], *, program: str
) -> None:
    """Refuse a path argument outside the readable roots, in /proc, /sys, /dev or /etc's secrets."""
    resolved = os.path.realpath(os.path.join(cwd, arg))
    for never in NEVER_READ:
        if _inside(resolved, never) and resolved != "/dev/null":
            raise CommandRefused(
                f"{program} {arg!r}: {never} is never readable by commands"
            )
    if _inside(resolved, "/etc"):
        parts = resolved.split(os.sep)
        secret = len(parts) > 2 and (
            parts[2] in ETC_SECRETS
            or (parts[2] == "ssl" and len(parts) > 3 and parts[3] in SSL_SECRETS)
        )
        if secret:
            raise CommandRefused(
                f"{program} {arg!r}: that part of /etc holds secrets and is never readable"
            )
        return
    roots = readable_roots(project_roots)
    if not any(_inside(resolved, root) for root in roots):
        raise CommandRefused(
            f"{program} {arg!r} resolves to {resolved}, outside the readable roots "
            f"({', '.join(os.path.realpath(r) for r in project_roots)}, system directories, /etc)"
        )


def _check_value(
    value: str, cwd: Path, roots: Sequence[Path], program: str, *, is_path: bool
) -> None:
    # Separators, patterns and formats are values too ("-t /"): only declared paths are checked.
    if is_path:
        check_path(value, cwd, roots, program=program)


def check_find(args: Sequence[str], cwd: Path, roots: Sequence[Path]) -> None:
    """``find``: start points are paths; actions that run, delete or write are refused."""
    expression = False
    for arg in args:
        if arg in _FIND_BANNED:
            raise CommandRefused(
                f"find {arg} is not allowed: it runs programs or changes files"
            )
        if arg.startswith("-") or arg in ("(", ")", "!", ","):
            expression = True
        elif not expression:
            check_path(arg, cwd, roots, program="find")


def check_arguments(
    name: str, args: Sequence[str], cwd: Path, roots: Sequence[Path]
) -> None:
    """Refuse ``args`` for program ``name`` per its rules (module docstring)."""
    if name == "find":
        check_find(args, cwd, roots)
        return
    if name in INTERPRETERS:
        return  # only reachable when the user allowlisted it knowingly; the sandbox confines it
    rules = RULES.get(name, _GENERIC)
    operands: list[str] = []
    pattern_given = False
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            operands.extend(args[index:])
            break
        if arg.startswith("--"):
            name_part, has_value, value = arg[2:].partition("=")
            banned = _prefix_of_banned(name_part, rules.banned_long)
            if banned is not None:
                raise CommandRefused(
                    f"{name} {arg} is not allowed (getopt reads it as --{banned}): {rules.why}"
                )
            full = _prefix_of_banned(name_part, rules.long_with_value)
            if full in ("regexp", "file"):
                pattern_given = True
            if full is not None and not has_value and index < len(args):
                value, has_value = args[index], "="
                index += 1
            if has_value:
                is_path = _prefix_of_banned(name_part, rules.path_long) is not None
                _check_value(value, cwd, roots, name, is_path=is_path)
            continue
        if (
            arg.startswith("-")
            and len(arg) > 1
            and not (name == "date" and arg.startswith("+"))
        ):
            cluster = arg[1:]
            for position, flag in enumerate(cluster):
                if flag in rules.banned_short:
                    raise CommandRefused(
                        f"{name} {arg} is not allowed (-{flag}): {rules.why}"
                    )
                if flag in rules.short_with_value:
                    if flag in "ef" and name == "grep":
                        pattern_given = True
                    value = cluster[position + 1 :]
                    if not value and index < len(args):
                        value = args[index]
                        index += 1
                    _check_value(
                        value, cwd, roots, name, is_path=flag in rules.path_short
                    )
                    break
            continue
        operands.append(arg)
    if rules.max_operands is not None and len(operands) > rules.max_operands:
        raise CommandRefused(
            f"{name} with more than {rules.max_operands} operand(s) is not allowed: {rules.why}"
        )
    if rules.pattern_first and not pattern_given and operands:
        operands = operands[1:]
    if not rules.operands_are_paths:
        return
    for operand in operands:
        check_path(operand, cwd, roots, program=name)
