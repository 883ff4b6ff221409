"""``aiq-tui skills install | update | check | remove | sync``: skill collections from repositories.

Thin: parse the options, build an :class:`~aiq_tui.skills.install.installer.InstallContext`
(progress on stderr after a second, the trust question in a terminal), call
:mod:`aiq_tui.skills.install`, print what happened (``--json`` for CI). Exit 0 done, 1 a check
failed or something was refused, 2 usage. ``skills_cmd`` registers these actions through
:func:`register`.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from aiq_tui.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    make_console,
    open_workspace,
    option,
    print_json,
)

if TYPE_CHECKING:
    from rich.console import Console

    from aiq_tui.skills.install.installer import InstallContext
    from aiq_tui.skills.install.preflight import Preflight

ACTIONS = ("install", "update", "check", "remove", "sync")


def register(action: str, sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the parser of ``action`` (one of :data:`ACTIONS`) to ``skills``' subparsers."""
    {
        "install": _add_install,
        "update": _add_update,
        "check": _add_check,
        "remove": _add_remove,
        "sync": _add_sync,
    }[action](sub, parents)


def _scope_option(parser: argparse.ArgumentParser, default_text: str) -> None:
    parser.add_argument(
        "--scope",
        choices=("user", "project"),
        help=f"user: the agents' folders in your home, locked in the config home's skills-lock.json; "
        f"project: the project's folders, locked in its skills-lock.json ({default_text})",
    )


def _unsafe_option(parser: argparse.ArgumentParser, verb: str) -> None:
    parser.add_argument(
        "--allow-unsafe",
        action="store_true",
        help=f"{verb} even when the safety scan reports errors (prompt injection, hidden "
        "instructions, exfiltration, dangerous commands); each is still printed, as a warning. "
        "Without it a skill with such an error is not written and the command exits 1",
    )


def _add_install(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    from aiq_tui.skills.install.targets import agent_names

    parser = sub.add_parser(
        "install",
        parents=parents,
        help="install skills from a repository or folder into agents' folders (skills-lock.json)",
        description="Install every skill a SOURCE holds (or those named with --skill): a git URL "
        "(https, ssh, file://, git@host:path), owner/repo (GitHub; --ref for a branch, tag or commit), "
        "https://github.com/OWNER/REPO/tree/REF/PATH, or a local folder or git work tree. Skills are "
        "found in every layout collections use (skills/, hidden sub-collections, plugin folders). "
        "Git fetches one commit, sparsely, into a cache under the config home, bounded by install.max_bytes, "
        "install.max_files and install.timeout_seconds. Before anything is written each skill is "
        "validated and checked by the doctor, and what it may run (scripts, allowed-tools) is shown "
        "and must be confirmed (--yes when not in a terminal); installed skills are imported skills: "
        "their allowed-tools pre-approve nothing until `aiq-tui skills trust NAME`. The first agent's "
        "folder gets the copy, the others a link (--copy: a copy each). skills-lock.json records "
        "source, ref, commit and the skills CLI's computedHash. Without SOURCE: restore exactly what "
        "skills-lock.json names, verifying every hash.",
    )
    parser.add_argument(
        "source",
        nargs="?",
        metavar="SOURCE",
        help="repository, owner/repo or folder (none: restore from skills-lock.json)",
    )
    parser.add_argument("--ref", metavar="REF", help="branch, tag or full commit id")
    parser.add_argument(
        "--skill",
        action="append",
        default=[],
        metavar="NAME",
        help="install only this skill (repeatable)",
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help="list the skills SOURCE holds; install nothing",
    )
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME",
        help=f"install for this agent (a harness profile: {', '.join(agent_names())}; repeatable; "
        "default: aiq, this workbench's own folder)",
    )
    _scope_option(
        parser, "default user; without SOURCE: project when ./skills-lock.json exists"
    )
    parser.add_argument(
        "--copy",
        action="store_true",
        help="copy into every agent's folder instead of linking",
    )
    parser.add_argument(
        "--dir",
        metavar="DIR",
        help="install into this skills folder instead of agents' folders",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace a folder of the same name that skills install did not write",
    )
    _unsafe_option(parser, "install")
    parser.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help="do not ask (what may run is still printed)",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=_install)


def _add_update(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "update",
        parents=parents,
        help="update installed skills to their source's newest commit",
        description="Fetch each installed skill's source at its ref (or --ref), show what changed "
        "(the description first: it changes when the skill is matched; then the files), run validate "
        "and the doctor on the new version, ask about what it may run, and only then replace the old "
        "version atomically. A skill edited here is not replaced without --force; a failed update "
        "leaves the old version in place. Exit 1 when an update was refused.",
    )
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help="skills to update (default: all)"
    )
    parser.add_argument(
        "--ref", metavar="REF", help="move to this branch, tag or commit"
    )
    _scope_option(parser, "default: the lockfile that names the skill, project first")
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace a skill edited here (the edits are lost)",
    )
    _unsafe_option(parser, "update")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=_update)


def _add_check(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "check",
        parents=parents,
        help="which installed skills have updates, were edited here or moved (exit 1 if any)",
        description="Fetch each installed skill's source and compare: the new files' hash against the "
        "locked computedHash, the installed copy against it (edited here), and the locked commit against "
        "what its tag names now (a moved tag). Nothing is written. Exit 0 all up to date, 1 otherwise.",
    )
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help="skills to check (default: all)"
    )
    _scope_option(parser, "default: every lockfile, project and user")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=_check)


def _add_remove(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "remove",
        parents=parents,
        help="remove installed skills from every agent folder and the lockfile",
        description="Remove each skill from every agent folder it was installed into (its copy and "
        "the links to it) and from skills-lock.json. A skill not installed with `skills install` is "
        "deleted with `skills rm`. Asks first unless --yes.",
    )
    parser.add_argument("names", nargs="+", metavar="NAME", help="installed skill")
    _scope_option(parser, "default: the lockfile that names the skill, project first")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=_remove)


def _add_sync(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "sync",
        parents=parents,
        help="write the <available_skills> block into AGENTS.md (openskills' format)",
        description="For agents without native skills: write the skills aiq-tui discovers (or those "
        "named with --skill) into FILE as openskills does — a <skills_system> element with an "
        "<available_skills> list between <!-- SKILLS_TABLE_START --> and <!-- SKILLS_TABLE_END -->. "
        "The rest of the file is kept; running it again with the same skills changes nothing.",
    )
    parser.add_argument(
        "file",
        nargs="?",
        default="AGENTS.md",
        metavar="FILE",
        help="markdown file (default AGENTS.md)",
    )
    parser.add_argument(
        "--skill",
        action="append",
        default=[],
        metavar="NAME",
        help="list only this skill (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=_sync)


# -- shared -------------------------------------------------------------------------------------


class _Progress:
    """git's progress on stderr, once an operation has taken a second: one line rewritten in a
    terminal, phase lines (no percentages) otherwise."""

    def __init__(self, quiet: bool) -> None:
        self.start = time.monotonic()
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.shown = False
        self.last = ""

    def __call__(self, text: str) -> None:
        from aiq_tui.terminal_text import printable

        if self.quiet:
            return
        line = printable(text, one_line=True)
        if time.monotonic() - self.start < 1.0:
            self.last = line
            return
        if self.tty:
            width = max(20, os.get_terminal_size(sys.stderr.fileno()).columns - 1)
            sys.stderr.write("\r\x1b[K" + line[:width])
            self.shown = True
        elif "%" not in line and line != self.last:
            sys.stderr.write(line + "\n")
        self.last = line
        sys.stderr.flush()

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False


def _context(
    args: argparse.Namespace, workspace: Any, console: Console
) -> tuple[InstallContext, _Progress]:
    from aiq_tui.skills.install.installer import InstallContext

    progress = _Progress(quiet=bool(option(args, "json")) and not sys.stderr.isatty())

    def confirm(checks: Sequence[Preflight]) -> bool:
        progress.done()
        return _confirm(args, checks, console)

    context = InstallContext(
        workspace.home,
        workspace.config,
        workspace.cwd,
        progress,
        confirm,
        risk_checks=(
            functools.partial(
                doctor_risks, allow_unsafe=bool(option(args, "allow_unsafe"))
            ),
        ),
    )
    return context, progress


def doctor_risks(
    meta: Any, body: str, resources: Any, allow_unsafe: bool = False
) -> list[tuple[bool, str]]:
    """The doctor's per-skill checks as a preflight check: the safety scan (doctor/safety/:
    dangerous commands, prompt injection, hidden text, exfiltration, tool grants) and the
    content checks. A safety error stops the install or update, naming the rule and
    file:line, unless ``allow_unsafe`` (``--allow-unsafe``): then it is a warning that says
    it was accepted."""
    from aiq_tui.doctor.content import skill_findings
    from aiq_tui.doctor.model import Level

    lines = []
    for finding in skill_findings(meta, resources):
        error = finding.level is Level.ERROR
        text = f"{finding.title} — {finding.why}"
        if not finding.rule:
            lines.append((error, f"doctor: {text}"))
        elif error and allow_unsafe:
            lines.append(
                (
                    False,
                    f"{SAFETY} ({finding.rule}, accepted with --allow-unsafe): {text}",
                )
            )
        else:
            lines.append((error, f"{SAFETY} ({finding.rule}): {text}"))
    return lines


SAFETY = "safety scan"
UNSAFE_HINT = "a skill the safety scan flags is not written; read the findings, and if you trust it anyway, run again with --allow-unsafe"


def _what_may_run(checks: Sequence[Preflight]) -> list[Any]:
    from rich.text import Text

    lines: list[Any] = []
    for check in checks:
        if not check.may_run:
            continue
        lines.append(Text.assemble((check.name, "bold"), f" ({check.skill_type})"))
        if check.scripts:
            lines.append(Text("  scripts: " + ", ".join(check.scripts)))
        if check.allowed_tools:
            lines.append(Text("  allowed-tools: " + " ".join(check.allowed_tools)))
        for warning in check.warnings:
            lines.append(Text("  warning: " + warning, style="yellow"))
    return lines


def _confirm(
    args: argparse.Namespace, checks: Sequence[Preflight], console: Console
) -> bool:
    """Show what the skills may run; a deliberate yes in a terminal, ``--yes`` elsewhere."""
    err = make_console(args, stderr=True)
    for line in _what_may_run(checks):
        err.print(line, soft_wrap=True)
    err.print(
        "their scripts ask before every run; their allowed-tools pre-approve nothing until "
        "`aiq-tui skills trust NAME`",
        markup=False,
        soft_wrap=True,
    )
    if option(args, "yes"):
        return True
    if not sys.stdin.isatty():
        err.print(
            "not written: confirm with --yes when not in a terminal", markup=False
        )
        return False
    _drop_typeahead()
    answer = input("write these skills? type yes to confirm: ")
    return answer.strip().lower() in ("y", "yes")


def _drop_typeahead() -> None:
    """Keys typed before the question was shown are no answer to it."""
    try:
        import termios

        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except (ImportError, OSError, ValueError):
        pass


def _fail(
    args: argparse.Namespace, message: str, code: int = EXIT_FAILED, **extra: Any
) -> int:
    hint = f"{SAFETY} (" in message and "accepted with" not in message
    if option(args, "json"):
        print_json({"ok": False, "error": message, **extra})
    else:
        from aiq_tui.terminal_text import printable

        print(f"aiq-tui: {printable(message)}", file=sys.stderr)
        if hint:
            print(f"aiq-tui: {UNSAFE_HINT}", file=sys.stderr)
    return code


def _errors() -> tuple[type[Exception], ...]:
    from aiq_tui.skills.install.installer import InstallError
    from aiq_tui.skills.install.lockfile import LockFileError
    from aiq_tui.skills.install.sources import SourceError
    from aiq_tui.skills.install.staging import StagingError
    from aiq_tui.skills.install.targets import TargetError

    return (
        InstallError,
        LockFileError,
        SourceError,
        StagingError,
        TargetError,
        OSError,
    )


def _usage_errors() -> tuple[type[Exception], ...]:
    from aiq_tui.skills.install.sources import SourceError
    from aiq_tui.skills.install.targets import TargetError

    return (SourceError, TargetError)


def _scopes(
    args: argparse.Namespace, workspace: Any, names: Sequence[str]
) -> tuple[list[tuple[str, tuple[str, ...]]], list[str]]:
    """The scopes to act on, each with the ``names`` its lockfile holds (``()``: all of its
    skills, when no names are given) — ``--scope``, else those whose lockfile exists
    (project first) — and the names no lockfile of those scopes holds. Each lockfile is read
    once here."""
    from aiq_tui.skills.install.lockfile import read_lock
    from aiq_tui.skills.install.targets import lock_path

    chosen = option(args, "scope")
    scopes: list[tuple[str, tuple[str, ...]]] = []
    for scope in [chosen] if chosen else ["project", "user"]:
        path = lock_path(scope, workspace.home, workspace.cwd)  # type: ignore[arg-type]
        if not chosen and not path.is_file():
            continue
        if not names:
            scopes.append((scope, ()))
            continue
        known = read_lock(path).skills
        here = tuple(name for name in names if name in known)
        if here:
            scopes.append((scope, here))
    held = {name for _scope, here in scopes for name in here}
    return scopes, [name for name in names if name not in held]


def _locked_scopes(
    args: argparse.Namespace, workspace: Any, names: Sequence[str], none: str
) -> list[tuple[str, tuple[str, ...]]] | int:
    """:func:`_scopes`, or the exit code of a usage error: a name no lockfile holds (it is
    never dropped, nor read as "every skill"), or ``none`` when no lockfile exists."""
    try:
        scopes, unknown = _scopes(args, workspace, names)
    except _errors() as exc:
        return _fail(args, str(exc))
    if unknown:
        where = (
            f" of the {option(args, 'scope')} scope" if option(args, "scope") else ""
        )
        return _fail(
            args,
            f"no skills-lock.json{where} names {', '.join(unknown)}; {none}",
            EXIT_USAGE,
        )
    if not scopes:
        return _fail(args, f"no skills-lock.json here; {none}", EXIT_USAGE)
    return scopes


def _after_write(workspace: Any, folders: Sequence[Path]) -> None:
    """A skill written again is new input: an earlier `skills trust` does not carry over."""
    from aiq_tui.skills.imported import _load, confirm
    from aiq_tui.skills.model import SkillMeta

    confirmed = _load(workspace.home)
    for folder in folders:
        skill_md = folder / "SKILL.md"
        if os.path.realpath(skill_md) in confirmed:
            try:
                confirm(
                    workspace.home,
                    SkillMeta(folder.name, "", skill_md, folder.parent),
                    forget=True,
                )
            except OSError:
                pass


# -- install ------------------------------------------------------------------------------------


def _install(args: argparse.Namespace) -> int:
    from aiq_tui.skills.install import installer
    from aiq_tui.skills.install.installer import Target

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    console = make_console(args)
    context, progress = _context(args, workspace, console)
    source = option(args, "source")
    try:
        if option(args, "list"):
            if not source:
                return _fail(args, "--list needs a SOURCE", EXIT_USAGE)
            opened, found = installer.list_source(context, source, option(args, "ref"))
            progress.done()
            return _print_listing(args, console, opened, found, context.notes)
        if not source:
            if option(args, "skill") or option(args, "agent") or option(args, "dir"):
                return _fail(
                    args,
                    "--skill, --agent and --dir need a SOURCE (a restore installs what the lockfile says)",
                    EXIT_USAGE,
                )
            scope: Literal["user", "project"] = option(args, "scope") or (
                "project" if (workspace.cwd / "skills-lock.json").is_file() else "user"
            )
            from aiq_tui.skills.install.lockfile import read_lock
            from aiq_tui.skills.install.targets import lock_path

            locked = lock_path(scope, workspace.home, workspace.cwd)
            if not read_lock(locked).skills:
                return _fail(
                    args,
                    f"{locked} names no skills: give a SOURCE to install from "
                    "(owner/repo, a git URL or a folder)",
                    EXIT_USAGE,
                )
            restored = installer.restore(context, scope)
            progress.done()
            _after_write(
                workspace, [f for item in restored.installed for f in item.folders]
            )
            return _print_restored(args, console, restored, context.notes)
        target = Target(
            option(args, "scope") or "user",
            tuple(option(args, "agent") or ()),
            bool(option(args, "copy")),
            Path(option(args, "dir")).expanduser().resolve()
            if option(args, "dir")
            else None,
        )
        done = installer.install(
            context, source, ref=option(args, "ref"), names=tuple(option(args, "skill") or ()),
            target=target, force=bool(option(args, "force")),
        )  # fmt: skip
    except _usage_errors() as exc:
        progress.done()
        return _fail(args, str(exc), EXIT_USAGE)
    except _errors() as exc:
        progress.done()
        return _fail(args, str(exc))
    progress.done()
    _after_write(workspace, [f for item in done for f in item.folders])
    if option(args, "json"):
        print_json(
            {
                "ok": True,
                "installed": [item.to_json() for item in done],
                "notes": context.notes,
            }
        )
        return EXIT_OK
    for item in done:
        _print_installed(console, item)
    for note in context.notes:
        console.print(f"note: {note}", markup=False, soft_wrap=True)
    return EXIT_OK


def _print_installed(console: Console, item: Any) -> None:
    from rich.text import Text

    commit = f" @ {item.entry.commit[:12]}" if item.entry.commit else ""
    console.print(
        Text.assemble(
            "installed ", (item.name, "bold"), f" from {item.entry.source}{commit}"
        ),
        soft_wrap=True,
    )
    for folder in item.folders:
        console.print(Text(f"  → {folder}"), soft_wrap=True)
    for warning in item.preflight.warnings:
        if warning.startswith(
            SAFETY
        ):  # the scan's warnings (and accepted errors) stay visible
            console.print(Text(f"  warning: {warning}", style="yellow"), soft_wrap=True)
    if item.preflight.allowed_tools:
        console.print(
            Text(
                f"  its allowed-tools pre-approve nothing until: aiq-tui skills trust {item.name}"
            ),
            soft_wrap=True,
        )


def _print_listing(
    args: argparse.Namespace,
    console: Console,
    opened: Any,
    found: Sequence[Any],
    notes: list[str],
) -> int:
    from rich.text import Text

    if option(args, "json"):
        print_json(
            {
                "ok": True,
                "source": opened.source.label(),
                "commit": opened.commit,
                "skills": [
                    {"name": s.name, "path": s.skill_path, "description": s.description}
                    for s in found
                ],
                "notes": notes,
            }
        )
        return EXIT_OK
    at = f" @ {opened.commit[:12]}" if opened.commit else ""
    console.print(
        Text(f"{len(found)} skill(s) in {opened.source.label()}{at}"), soft_wrap=True
    )
    for skill in found:
        console.print(
            Text.assemble(
                ("  " + skill.name, "bold"),
                f"  {skill.relative or '.'}  ",
                skill.description[:160],
            ),
            soft_wrap=True,
        )
    for note in notes:
        console.print(f"note: {note}", markup=False, soft_wrap=True)
    return EXIT_OK


def _print_restored(
    args: argparse.Namespace, console: Console, restored: Any, notes: list[str]
) -> int:
    code = EXIT_FAILED if restored.failed else EXIT_OK
    if option(args, "json"):
        print_json(
            {
                "ok": not restored.failed,
                "installed": [item.to_json() for item in restored.installed],
                "up_to_date": list(restored.up_to_date),
                "failed": list(restored.failed),
                "notes": notes,
            }
        )
        return code
    for item in restored.installed:
        _print_installed(console, item)
    if restored.up_to_date:
        console.print(
            f"already as locked: {', '.join(restored.up_to_date)}",
            markup=False,
            soft_wrap=True,
        )
    for failure in restored.failed:
        console.print(f"error: {failure}", markup=False, soft_wrap=True, style="red")
    return code


# -- update / check -----------------------------------------------------------------------------


def _update(args: argparse.Namespace) -> int:
    from aiq_tui.skills.install.updates import update

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    names = tuple(option(args, "names") or ())
    scopes = _locked_scopes(
        args, workspace, names, "install some with `aiq-tui skills install SOURCE`"
    )
    if isinstance(scopes, int):
        return scopes
    console = make_console(args)
    context, progress = _context(args, workspace, console)
    results = []
    try:
        for scope, here in scopes:
            result = update(
                context,
                scope,  # type: ignore[arg-type]
                here,
                option(args, "ref"),
                bool(option(args, "force")),
            )
            results.append((scope, result))
    except _errors() as exc:
        progress.done()
        return _fail(args, str(exc))
    progress.done()
    _after_write(
        workspace, [f for _s, r in results for item in r.updated for f in item.folders]
    )
    refused = [line for _s, r in results for line in r.refused]
    failed = [s for _s, r in results for s in r.statuses if s.state == "error"]
    code = EXIT_FAILED if refused or failed else EXIT_OK
    if option(args, "json"):
        print_json(
            {
                "ok": code == EXIT_OK,
                "updated": [item.to_json() for _s, r in results for item in r.updated],
                "skills": [
                    dict(s.to_json(), scope=scope)
                    for scope, r in results
                    for s in r.statuses
                ],
                "refused": refused,
            }
        )
        return code
    updated = {item.name for _s, r in results for item in r.updated}
    for scope, result in results:
        for status in result.statuses:
            _print_status(console, status, scope, updated=status.name in updated)
    for line in refused:
        console.print(f"not updated: {line}", markup=False, soft_wrap=True, style="red")
    if any(f"{SAFETY} (" in line for line in refused):
        console.print(UNSAFE_HINT, markup=False, soft_wrap=True)
    return code


def _check(args: argparse.Namespace) -> int:
    from aiq_tui.skills.install.updates import survey

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    names = tuple(option(args, "names") or ())
    scopes = _locked_scopes(args, workspace, names, "nothing to check")
    if isinstance(scopes, int):
        return scopes
    console = make_console(args)
    context, progress = _context(args, workspace, console)
    rows = []
    try:
        for scope, here in scopes:
            statuses, _opened = survey(context, scope, here)  # type: ignore[arg-type]
            rows += [(scope, status) for status in statuses]
    except _errors() as exc:
        progress.done()
        return _fail(args, str(exc))
    progress.done()
    attention = [
        s
        for _scope, s in rows
        if s.state != "up-to-date" or s.locally_modified or s.moved_ref or s.missing
    ]
    code = EXIT_FAILED if attention else EXIT_OK
    if option(args, "json"):
        print_json(
            {
                "ok": code == EXIT_OK,
                "skills": [dict(s.to_json(), scope=scope) for scope, s in rows],
            }
        )
        return code
    for scope, status in rows:
        _print_status(console, status, scope)
    console.print(
        f"{len(rows)} checked: {len(rows) - len(attention)} up to date, {len(attention)} to look at",
        markup=False,
    )
    return code


def _print_status(
    console: Console, status: Any, scope: str, updated: bool = False
) -> None:
    from rich.text import Text

    old = (status.entry.commit or "")[:12]
    new = (status.new_commit or "")[:12]
    state = "updated" if updated else status.state.replace("-", " ")
    style = {"up to date": "green", "updated": "green", "error": "red"}.get(
        state, "yellow"
    )
    head = Text.assemble((status.name, "bold"), f" ({scope}) ", (state, style))
    if new and old != new:
        head.append(f"  {old or '?'} → {new}")
    console.print(head, soft_wrap=True)
    if status.message:
        console.print(Text("  " + status.message), soft_wrap=True)
    if status.moved_ref:
        console.print(
            Text(
                f"  ref {status.entry.ref} moved: it named {old} when locked, {new} now",
                style="yellow",
            ),
            soft_wrap=True,
        )
    if status.locally_modified:
        console.print(
            Text(
                "  edited here: the installed files differ from the locked hash",
                style="yellow",
            ),
            soft_wrap=True,
        )
    if status.missing:
        console.print(
            Text(
                "  not installed on this machine (skills install restores it)",
                style="yellow",
            ),
            soft_wrap=True,
        )
    if status.changes is not None and status.state != "up-to-date":
        for line in status.changes.lines():
            console.print(Text("  " + line), soft_wrap=True)


# -- remove -------------------------------------------------------------------------------------


def _remove(args: argparse.Namespace) -> int:
    from aiq_tui.skills.install.removal import remove

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    names = tuple(args.names)
    scopes = _locked_scopes(
        args,
        workspace,
        names,
        "delete a skill of your own with `aiq-tui skills rm NAME`",
    )
    if isinstance(scopes, int):
        return scopes
    if not option(args, "yes"):
        if not sys.stdin.isatty():
            return _fail(
                args,
                f"not removing {', '.join(names)} without confirmation; add --yes",
                EXIT_USAGE,
            )
        _drop_typeahead()
        answer = input(
            f"remove {', '.join(names)} from every agent folder it was installed into? [y/N] "
        )
        if answer.strip().lower() not in ("y", "yes"):
            return _fail(args, "nothing removed")
    context, _progress = _context(args, workspace, make_console(args))
    done = []
    taken: set[str] = (
        set()
    )  # a name locked in both scopes goes from the first (project)
    try:
        for scope, here in scopes:
            mine = [name for name in here if name not in taken]
            if mine:
                done += remove(context, scope, mine)  # type: ignore[arg-type]
                taken.update(mine)
    except _errors() as exc:
        return _fail(args, str(exc))
    _after_write(workspace, [Path(p) for item in done for p in item.removed])
    if option(args, "json"):
        print_json(
            {
                "ok": True,
                "removed": [
                    {
                        "name": i.name,
                        "folders": [str(p) for p in i.removed],
                        "kept": list(i.kept),
                    }
                    for i in done
                ],
            }
        )
        return EXIT_OK
    console = make_console(args)
    for item in done:
        console.print(f"removed {item.name}", markup=False)
        for path in item.removed:
            console.print(f"  ✗ {path}", markup=False, soft_wrap=True)
        for note in item.kept:
            console.print(f"  note: {note}", markup=False, soft_wrap=True)
    return EXIT_OK


# -- sync ---------------------------------------------------------------------------------------


def _sync(args: argparse.Namespace) -> int:
    from aiq_tui.file_io import atomic_write
    from aiq_tui.skills.install.agents_md import (
        ListedSkill,
        block,
        listed_names,
        replace_block,
    )

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    path = Path(args.file).expanduser()
    if not path.is_absolute():
        path = workspace.cwd / path
    if path.suffix.lower() != ".md":
        return _fail(
            args, f"{path}: the file must be a markdown file (.md)", EXIT_USAGE
        )
    wanted = list(option(args, "skill") or ())
    metas = list(workspace.catalog)
    if wanted:
        known = {meta.name for meta in metas}
        missing = [n for n in wanted if n not in known]
        if missing:
            return _fail(args, f"no skill named {', '.join(missing)}", EXIT_USAGE)
        metas = [meta for meta in metas if meta.name in wanted]
    skills = [ListedSkill(meta.name, meta.description, meta.path) for meta in metas]
    try:
        before = (
            path.read_text(encoding="utf-8") if path.exists() else f"# {path.stem}\n"
        )
    except OSError as exc:
        return _fail(args, f"{path}: cannot read ({exc.strerror or exc})")
    after = replace_block(before, block(skills, path.parent))
    changed = after != before
    if changed:
        atomic_write(path, after)
    if option(args, "json"):
        print_json(
            {
                "ok": True,
                "file": str(path),
                "changed": changed,
                "skills": listed_names(after),
            }
        )
        return EXIT_OK
    make_console(args).print(
        f"{path}: {len(skills)} skill(s) listed" + ("" if changed else " (unchanged)"),
        markup=False,
        soft_wrap=True,
    )
    return EXIT_OK
