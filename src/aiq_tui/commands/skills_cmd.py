"""``aiq-tui skills list|show|validate|new|enable|disable|rm|import|trust|doctor|tune|install|update|check|remove|sync``: the skills catalog, headless.

Every change goes through the workspace's :class:`~aiq_tui.skills.catalog.SkillCatalog` (the one
list of skills), the same object the engine and the TUI use."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiq_tui.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    EncodedRows,
    json_encoder,
    make_console,
    open_workspace,
    option,
    print_json,
    print_json_rows,
)

if TYPE_CHECKING:
    from rich.console import Console

    from aiq_tui.problems import Problem
    from aiq_tui.skills.model import SkillMeta


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    """``skills`` and its actions; given the ``action`` the command line names for certain, that
    action's parser alone (each parser argparse builds costs about a millisecond, and a
    ``skills list`` reads none of the others). An unknown word gets them all, so the "invalid
    choice" error lists them."""
    skills = subparsers.add_parser(
        "skills",
        parents=parents,
        help="list, show, validate, create, import, trust, enable/disable, remove, check (doctor) and tune skills; "
        "install, update, check and remove skills from repositories (skills-lock.json)",
        description="Inspect the skills aiq-tui discovers, check SKILL.md files, scaffold or import skills, "
        "confirm an imported skill's allowed-tools (trust), "
        "enable or disable them (status), delete them, check the whole collection (doctor) and "
        "tune a description against its trigger evals (tune); install skill collections from "
        "repositories into agents' folders and keep them locked and up to date (install, "
        "update, check, remove, sync).",
    )
    sub = skills.add_subparsers(dest="skills_command", metavar="ACTION")
    for name, add in _ACTIONS.items():  # in the order --help lists them
        if action not in _ACTIONS or action == name:
            add(sub, parents)
    skills.set_defaults(handler=lambda args: _usage(skills))


def _add_list(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    list_parser = sub.add_parser(
        "list",
        parents=parents,
        help="list discovered skills with type and status",
        description="List every discovered skill (metadata only) with its type and status "
        "(inactive and draft skills are listed, never loaded) and discovery "
        "warnings.",
    )
    list_parser.add_argument(
        "--json", action="store_true", help="machine-readable output"
    )
    list_parser.set_defaults(handler=_list)


def _add_show(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    show = sub.add_parser(
        "show",
        parents=parents,
        help="show one skill: frontmatter, body, resources",
        description="Show a skill's frontmatter, instructions and resources.",
    )
    show.add_argument("name", metavar="NAME", help="skill name")
    show.add_argument("--json", action="store_true", help="machine-readable output")
    show.set_defaults(handler=_show)


def _add_validate(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    from aiq_tui.skills.harnesses import names

    check = sub.add_parser(
        "validate",
        parents=parents,
        help="check SKILL.md files (exit 1 if any is invalid)",
        description="Validate skills. PATHs may be skill folders, SKILL.md files or folders of "
        "skills in any layout collections use (skills/, hidden sub-collections, plugin "
        "manifests, category folders); without PATH every skill directory is checked. Exit 0 "
        "only if all are valid. Lenient (the default) passes what aiq-tui loads, with a warning "
        "for each rule of the Agent Skills specification it breaks (name format, name = "
        "folder, lengths, fields outside the specification); --strict fails them, as the "
        "reference validator (skills-ref) does. --target judges each skill by a harness: the "
        "fields it documents are the skill's to use (Claude Code's disable-model-invocation, "
        "argument-hint, …), a field it does not document fails --strict; 'auto' infers the "
        "harness from where each skill lives (.claude/skills → claude-code, .github/skills → "
        "copilot, a .claude-plugin manifest → claude-code). aiq-tui's own limits (resource "
        "sizes) are notes, never failures.",
    )
    check.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="skill folder, SKILL.md, or folder of skills",
    )
    check.add_argument(
        "--strict",
        action="store_true",
        help="fail every rule broken: the Agent Skills specification (agentskills.io), or "
        "the --target harness's fields",
    )
    check.add_argument(
        "--target",
        metavar="HARNESS",
        choices=("auto", *names()),
        help="judge for this harness: auto, " + ", ".join(names()) + " (default: auto "
        "when lenient; with --strict, agentskills — the reference's verdict)",
    )
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.set_defaults(handler=_validate)


def _add_new(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    new = sub.add_parser(
        "new",
        parents=parents,
        help="scaffold a new skill (an instruction skill passes --strict)",
        description="Create NAME/SKILL.md with a valid frontmatter and a body template.",
    )
    new.add_argument(
        "name",
        metavar="NAME",
        help="lowercase letters, digits and hyphens, e.g. pdf-tools",
    )
    new.add_argument(
        "--dir",
        metavar="DIR",
        help="parent folder (default: the first writable skills directory: "
        "--skills-dir, skills.dirs, then the home's skills/)",
    )
    new.add_argument(
        "--description",
        metavar="TEXT",
        help="what the skill does and when to use it (required)",
    )
    new.add_argument(
        "--type",
        choices=("instruction", "script", "template", "composite"),
        default="instruction",
        help="skill type (default instruction, which passes --strict; the others are lango's "
        "executable types: a starter script / template / plan to edit)",
    )
    new.set_defaults(handler=_new)


def _add_status(
    action: str, status: str, text: str
) -> Callable[[Any, list[argparse.ArgumentParser]], None]:
    def add(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
        toggle = sub.add_parser(
            action,
            parents=parents,
            help=text,
            description=f"{text[0].upper()}{text[1:]}. Rewrites only the status line "
            "of SKILL.md, atomically."
            + (
                " A folder disabled as NAME.disabled is renamed back."
                if action == "enable"
                else ""
            ),
        )
        toggle.add_argument("name", metavar="NAME", help="skill name")
        toggle.add_argument(
            "--json", action="store_true", help="machine-readable output"
        )
        toggle.set_defaults(handler=_set_status, status=status)

    return add


def _add_rm(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    remove = sub.add_parser(
        "rm",
        parents=parents,
        help="delete a skill's folder",
        description="Delete the skill's whole folder. Asks first unless --yes.",
    )
    remove.add_argument("name", metavar="NAME", help="skill name")
    remove.add_argument("--yes", "-y", action="store_true", help="do not ask")
    remove.set_defaults(handler=_remove)


def _add_import(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    imp = sub.add_parser(
        "import",
        parents=parents,
        help="import a skill from a folder, SKILL.md, .zip or URL",
        description="Copy a skill into the first writable skills directory (or --dir). SOURCE may be a "
        "skill folder, a SKILL.md file, a .zip holding one or more skills, or an http(s) URL "
        "of a SKILL.md or .zip (fetched with the http tool's timeout and size limits). The "
        "skill is validated and safety-scanned first (an error — prompt injection, hidden "
        "instructions, exfiltration, a dangerous command — refuses the import, naming file:line; "
        "--allow-unsafe accepts it) and the home's skills-lock.json records where it came from "
        "(the SKILL.md is copied as it is). For a repository use `skills install`. An imported "
        "skill's allowed-tools are printed and pre-approve nothing until you confirm them "
        "with `aiq-tui skills trust NAME`.",
    )
    imp.add_argument("source", metavar="SOURCE", help="folder, SKILL.md, .zip or URL")
    imp.add_argument("--dir", metavar="DIR", help="skills directory to import into")
    imp.add_argument(
        "--force", action="store_true", help="replace a skill of the same name"
    )
    imp.add_argument(
        "--allow-unsafe",
        action="store_true",
        help="import even when the safety scan reports errors; each is still printed, as a "
        "warning. Without it nothing is imported and the command exits 1",
    )
    imp.add_argument("--json", action="store_true", help="machine-readable output")
    imp.set_defaults(handler=_import)


def _add_trust(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    trust = sub.add_parser(
        "trust",
        parents=parents,
        help="confirm an imported skill's allowed-tools",
        description="An imported skill (skills import) was written by someone else: its allowed-tools "
        "pre-approve nothing until you confirm them here. The confirmation holds for the list "
        "shown; a re-import or an edit that changes it needs confirming again. A bare `*` is "
        "never honoured.",
    )
    trust.add_argument("name", metavar="NAME", help="skill name")
    trust.add_argument(
        "--forget", action="store_true", help="withdraw the confirmation"
    )
    trust.add_argument("--json", action="store_true", help="machine-readable output")
    trust.set_defaults(handler=_trust)


def _add_doctor(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    from aiq_tui.commands import doctor_cmd  # `skills doctor` lives in its own module

    doctor_cmd.register(sub, parents)


def _add_tune(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    from aiq_tui.commands import tune_cmd  # `skills tune` lives in its own module

    tune_cmd.register(sub, parents)


def _add_package_action(
    action: str,
) -> Callable[[Any, list[argparse.ArgumentParser]], None]:
    """``install | update | check | remove | sync`` live in commands/install_cmd.py."""

    def add(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
        from aiq_tui.commands import install_cmd

        install_cmd.register(action, sub, parents)

    return add


_ACTIONS: dict[str, Callable[[Any, list[argparse.ArgumentParser]], None]] = {
    "list": _add_list,
    "show": _add_show,
    "validate": _add_validate,
    "new": _add_new,
    "enable": _add_status(
        "enable",
        "active",
        "load the skill again (removes the status aiq wrote; a lango status: field is set to active)",
    ),
    "disable": _add_status(
        "disable",
        "inactive",
        "listed, never loaded (metadata.status: inactive, or a lango status: field set in place)",
    ),
    "rm": _add_rm,
    "import": _add_import,
    "trust": _add_trust,
    "doctor": _add_doctor,
    "tune": _add_tune,
    **{
        action: _add_package_action(action)
        for action in ("install", "update", "check", "remove", "sync")
    },
}


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _problem_text(problem: Problem) -> str:
    return str(problem)


def _print_problems(
    console: Console, problems: tuple[Problem, ...] | list[Problem]
) -> None:
    from rich.text import Text

    for problem in problems:
        style = SEVERITY_STYLES[problem.severity.value]
        console.print(
            Text(f"{problem.severity.value}: ", style=style)
            + Text(_problem_text(problem)),
            soft_wrap=True,
        )


# -- list ---------------------------------------------------------------------------------------


def _list(args: argparse.Namespace) -> int:
    import gc

    # A listing of 10,000 skills builds some 200,000 objects and no reference cycles: the
    # cycle collector's passes over them cost about 30 ms and would free nothing.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _list_unpaused(args)
    finally:
        if was_enabled:
            gc.enable()


def _list_unpaused(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    catalog = workspace.catalog
    listing = catalog.listing()
    installed = _installed(workspace, listing)
    if option(args, "json"):
        print_json_rows(
            {
                "skills": _with_installed(_listing_rows(listing), listing, installed),
                "directories": [
                    {"path": str(d.path), "origin": d.origin}
                    for d in workspace.skill_dirs
                ],
                "problems": [p.to_json() for p in workspace.problems],
                "semantic": embedding_summary(workspace),
            }
        )
        return EXIT_OK
    from aiq_tui.commands.box_table import Column, box_table

    console = make_console(args)
    dormant = len(listing) - len(catalog)
    title = f"{len(listing)} skill(s)" + (
        f": {len(catalog)} active, {dormant} not loaded (inactive/draft)"
        if dormant
        else ""
    )
    origins = {str(d.path): d.origin for d in workspace.skill_dirs}
    columns = (
        Column("name", style="bold", max_width=40),
        Column("type"),
        Column("status"),
        Column("from"),
        Column("description"),
    )
    # Names and descriptions are the authors' text: a Text's plain text, never rich markup
    # ("[/b]" in a description prints as written instead of failing the listing).
    rows = [
        (
            meta.name,
            meta.type,
            (meta.status, "" if meta.status == "active" else "yellow"),
            origins.get(str(meta.source_dir), "")
            + (_installed_text(installed[meta.name]) if meta.name in installed else ""),
            _one_line(meta.description, 200),
        )
        for meta in listing
    ]
    console.print(box_table(title, columns, rows, console.width), soft_wrap=True)
    semantic = embedding_summary(workspace)
    if (
        semantic["enabled"] or workspace.config.matching.semantic == "on"
    ):  # silent for users without it
        console.print(f"semantic matching: {semantic['text']}")
    if workspace.migration.moved:
        console.print(f"migration: {workspace.migration.summary()}")
    _print_problems(console, workspace.problems)
    return EXIT_OK


def _installed(workspace: Any, listing: Any) -> dict[str, dict[str, Any]]:
    """Skills ``skills install`` / ``import`` put there: source, commit, edited here."""
    from aiq_tui.skills.install.provenance import installed_rows

    return installed_rows(workspace.home, workspace.cwd, listing)


def _installed_text(row: dict[str, Any]) -> str:
    commit = f" {row['commit'][:7]}" if row["commit"] else ""
    return f" · {row['source']}{commit}" + (
        " (edited)" if row["locally_modified"] else ""
    )


def _with_installed(
    rows: EncodedRows, listing: Any, installed: dict[str, dict[str, Any]]
) -> EncodedRows:
    if installed:
        encode = json_encoder().encode
        for at, meta in enumerate(listing):
            if meta.name in installed:
                rows[at] = (
                    f'{rows[at][:-1]}, "installed": {encode(installed[meta.name])}}}'
                )
    return rows


def embedding_summary(workspace: Any) -> dict[str, Any]:
    """How many skills have a cached vector (issue 16); reads the cache only when enabled."""
    from aiq_tui.models import open_semantic, semantic_status

    status = semantic_status(workspace.home, workspace.config)
    if not status.enabled:
        return {
            "enabled": False,
            "reason": status.reason,
            "text": f"off — {status.reason}",
        }
    model = open_semantic(workspace.home, workspace.config, workspace.catalog)
    progress = model.progress if model is not None else None
    done, total = (
        (progress.done, progress.total) if progress else (0, len(workspace.catalog))
    )
    name = status.model.name if status.model is not None else "?"
    text = f"on ({name}), {done}/{total} skills embedded"
    if done < total:
        text += " — the rest are embedded in the background when the TUI starts (or by `aiq-tui match`)"
    return {
        "enabled": True,
        "model": name,
        "embedded": done,
        "total": total,
        "text": text,
    }


def _meta_json(meta: Any) -> dict[str, Any]:
    """One skill in ``skills list --json`` and ``skills show --json``."""
    allowed_tools = meta.allowed_tools
    return {
        "name": meta.name,
        "description": meta.description,
        "type": meta.type,
        "status": meta.status,
        "source": meta.source,
        "path": meta.file,
        "source_dir": str(meta.source_dir),
        "tags": list(meta.tags),
        "triggers": list(meta.triggers),
        "allowed_tools": list(allowed_tools) if allowed_tools is not None else None,
        "extras": dict(meta.extras),
        "size": meta.size,
    }


def _listing_rows(listing: list[SkillMeta]) -> EncodedRows:
    """``[_meta_json(meta) for meta in listing]``, already encoded: exactly the text json's
    encoder writes for those dicts (a property test holds the two equal), five times faster —
    building 10,000 dicts and encoding them took 95 ms of a 0.4 s listing."""
    from json.encoder import (
        encode_basestring as text,
    )  # what the encoder uses without ensure_ascii

    from aiq_tui.skills.model import SkillMeta

    encode = json_encoder().encode
    source_dirs: dict[Path, str] = {}  # each skills directory encoded once

    def strings(items: tuple[str, ...]) -> str:
        return f"[{', '.join(map(text, items))}]" if items else "[]"

    def derived(meta: SkillMeta) -> tuple[str, str]:
        """The fields read from extras: what goes before ``path`` and after ``source_dir``."""
        allowed_tools, extras = meta.allowed_tools, meta.extras
        return (
            f'"type": {text(meta.type)}, "status": {text(meta.status)}, "source": {text(meta.source)}, ',
            f'"tags": {strings(meta.tags)}, "triggers": {strings(meta.triggers)}, '
            f'"allowed_tools": {"null" if allowed_tools is None else strings(allowed_tools)}, '
            f'"extras": {encode(dict(extras)) if extras else "{}"}, ',
        )

    # A skill with no frontmatter beyond name and description (the spec's minimal form) has
    # every field derived from extras at its default: computed once, not six lookups a skill.
    plain = derived(SkillMeta("-", "-", Path("-"), Path("-")))
    rows = EncodedRows()
    append = rows.append
    for meta in listing:
        source_dir = source_dirs.get(meta.source_dir)
        if source_dir is None:
            source_dir = source_dirs[meta.source_dir] = text(str(meta.source_dir))
        size = meta.size
        middle, tail = derived(meta) if meta.extras else plain
        append(
            f'{{"name": {text(meta.name)}, "description": {text(meta.description)}, {middle}'
            f'"path": {text(meta.file)}, "source_dir": {source_dir}, {tail}'
            f'"size": {size if type(size) is int else encode(size)}}}'
        )
    return rows


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# -- show ---------------------------------------------------------------------------------------


def _show(args: argparse.Namespace) -> int:
    from aiq_tui.skills.catalog import SkillLoadError, UnknownSkillError

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    catalog = workspace.catalog
    try:
        skill = catalog.load(
            args.name
        )  # dormant (inactive/draft) skills can be shown too
    except UnknownSkillError as exc:
        print(f"aiq-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SkillLoadError as exc:
        print(f"aiq-tui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    resources = catalog.resources(args.name)
    from aiq_tui.skills.invocation import claude_code_notes

    notes = claude_code_notes(skill.meta.extras)
    if option(args, "json"):
        data = _meta_json(skill.meta)
        data["claude_code"] = [
            {"field": field, "claude_code": claude, "aiq_tui": here}
            for field, claude, here in notes
        ]
        data["body"] = skill.body
        data["resources"] = [
            {
                "path": r.relpath,
                "kind": r.kind.value,
                "size": r.size,
                "rejected": r.rejected,
            }
            for r in resources
        ]
        data["resources_stopped"] = getattr(resources, "stopped", None)
        print_json(data)
        return EXIT_OK
    from rich.markdown import Markdown
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    console = make_console(args)
    front = Table(show_header=False, box=None, padding=(0, 1))
    front.add_column(style="bold cyan", no_wrap=True)
    front.add_column(overflow="fold")
    front.add_row("name", skill.meta.name)
    front.add_row("description", skill.meta.description)
    for key, value in skill.meta.extras.items():
        front.add_row(key, str(value))
    front.add_row("path", str(skill.meta.path))
    # A Panel parses a str title as markup itself (not through the console): Text keeps the
    # skill's name literal.
    console.print(Panel(front, title=Text(f"skill {skill.name}"), title_align="left"))
    if notes:
        harness = Table(title="as Claude Code reads it", title_justify="left")
        for column in ("field", "Claude Code", "aiq-tui"):
            harness.add_column(column, overflow="fold")
        for row in notes:  # values come from the skill's file: text, never markup
            harness.add_row(*(Text(cell) for cell in row))
        console.print(harness)
    # hyperlinks=False: a link reads "text (target)", so a link cannot show one address
    # and open another.
    console.print(
        Markdown(skill.body, hyperlinks=False)
        if skill.body.strip()
        else "(no instructions)"
    )
    if resources:
        table = Table(title="resources", title_justify="left")
        table.add_column("path")
        table.add_column("kind")
        table.add_column("bytes", justify="right")
        table.add_column("note")
        for resource in resources:
            table.add_row(
                resource.relpath,
                resource.kind.value,
                str(resource.size),
                resource.rejected or "",
            )
        console.print(table)
    else:
        console.print("resources: none")
    stopped = getattr(resources, "stopped", None)
    if stopped:  # a bounded walk: the folder holds files the table does not show
        console.print(
            f"resources not all listed: {stopped}", style="yellow", markup=False
        )
    return EXIT_OK


# -- validate -----------------------------------------------------------------------------------


def _validate(args: argparse.Namespace) -> int:
    from aiq_tui.skills.check import SkillReport, check_paths

    raw = list(option(args, "paths") or [])
    strict = bool(option(args, "strict"))
    target = option(args, "target") or (None if strict else "auto")
    reports: list[SkillReport]
    if raw:
        from aiq_tui.config import ConfigError, load_config
        from aiq_tui.locations import resolve_home

        try:
            settings = load_config(resolve_home(option(args, "home"))).skills
        except ConfigError as exc:
            print(f"aiq-tui: {exc}", file=sys.stderr)
            return EXIT_USAGE
        missing = [p for p in raw if not Path(p).expanduser().exists()]
        if missing:
            print(
                f"aiq-tui skills validate: no such file or directory: {', '.join(missing)}",
                file=sys.stderr,
            )
            return EXIT_USAGE
        reports = check_paths(
            [Path(p) for p in raw],
            settings,
            strict=strict,
            target=target,
            search_layouts=settings.search_layouts,
        )
    else:
        workspace = open_workspace(args)
        if workspace is None:
            return EXIT_USAGE
        reports = validate_workspace(workspace, strict, target)
    ok = all(report.valid for report in reports)
    if option(args, "json"):
        print_json(
            {
                "valid": ok,
                "strict": strict,
                "target": target or "agentskills",
                "skills": [report.to_json() for report in reports],
            }
        )
        return EXIT_OK if ok else EXIT_FAILED
    from rich.text import Text

    console = make_console(args)
    for report in reports:
        mark = (
            Text("✓ ", style="green") if report.valid else Text("✗ ", style="bold red")
        )
        judged = Text(f"  [{report.target}]", style="dim") if target else Text("")
        console.print(
            mark
            + Text(report.name or "?", style="bold")
            + Text(f"  {report.path}")
            + judged,
            soft_wrap=True,
        )
        for problem in report.problems:
            console.print(
                Text(
                    f"    {problem.severity.value}: ",
                    style=SEVERITY_STYLES[problem.severity.value],
                )
                + Text(_problem_text(problem)),
                soft_wrap=True,
            )
    invalid = sum(1 for report in reports if not report.valid)
    judged_by = (
        "each for the harness it lives in"
        if target == "auto"
        else f"for {target}"
        if target not in (None, "agentskills")
        else "the Agent Skills specification"
    )
    level = f"{'strict' if strict else 'lenient'}, {judged_by}"
    if not reports:
        console.print("no skills found")
    console.print(f"{len(reports) - invalid} valid, {invalid} invalid — {level}")
    return EXIT_OK if ok else EXIT_FAILED


SEVERITY_STYLES = {"error": "red", "warning": "yellow", "info": "cyan"}


def validate_workspace(workspace: Any, strict: bool, target: str | None) -> list[Any]:
    """Every discovered skill directory checked: the folders the user named searched in the
    layouts collections use (as discovery searches them), harness folders one level deep."""
    from aiq_tui.skills.check import check_paths

    settings = workspace.config.skills
    reports = []
    for directory in workspace.skill_dirs:
        if not directory.path.is_dir():
            continue
        reports += check_paths(
            [directory.path],
            settings,
            strict=strict,
            containers=True,
            target=target,
            search_layouts=directory.explicit and settings.search_layouts,
        )
    import os

    seen: set[str] = set()
    unique = []
    for report in reports:  # a file reached twice (a link, an ancestor) reports once
        key = os.path.realpath(report.path)
        if key not in seen:
            seen.add(key)
            unique.append(report)
    return unique


# -- new ----------------------------------------------------------------------------------------


def _new(args: argparse.Namespace) -> int:
    from aiq_tui.file_io import atomic_write
    from aiq_tui.skills.validate import DESCRIPTION_MAX, name_problem

    name: str = args.name
    why = name_problem(name)
    if why:
        print(
            f"aiq-tui: invalid skill name {name!r}: {why}. Use lowercase letters, digits and single "
            "hyphens, e.g. pdf-tools.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    description = " ".join((option(args, "description") or "").split())
    if not description:
        # Matching reads only the description: a placeholder would make the skill unfindable.
        print(
            f"aiq-tui skills new: --description is required: say what {name} does and when to use it, "
            f'with the words users type, e.g. --description "Extract text from PDF files. Use when …"',
            file=sys.stderr,
        )
        return EXIT_USAGE
    if len(description) > DESCRIPTION_MAX:
        print(
            f"aiq-tui: description is {len(description)} characters; the limit is {DESCRIPTION_MAX}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if option(args, "dir"):
        parent = Path(args.dir).expanduser()
    else:
        from aiq_tui.skills.store import StoreError

        workspace = open_workspace(args)
        if workspace is None:
            return EXIT_USAGE
        try:
            parent = workspace.catalog.writable_dir()
        except StoreError as exc:
            print(f"aiq-tui: {exc}", file=sys.stderr)
            return EXIT_FAILED
    folder = parent / name
    if folder.exists():
        print(
            f"aiq-tui: {folder} already exists; choose another name or edit that skill",
            file=sys.stderr,
        )
        return EXIT_FAILED
    kind = option(args, "type") or "instruction"
    if kind == "instruction":
        atomic_write(folder / "SKILL.md", scaffold(name, description))
    else:
        from aiq_tui.skills.store import write_skill

        write_skill(parent, executable_scaffold(name, description, kind))
    console = make_console(args)
    console.print(f"created {folder / 'SKILL.md'}", soft_wrap=True)
    strict = " --strict" if kind == "instruction" else ""
    console.print(
        f"next: edit it, then run  aiq-tui skills validate {folder}{strict}",
        soft_wrap=True,
    )
    return EXIT_OK


def executable_scaffold(name: str, description: str, kind: str) -> Any:
    """A starter script / template / composite skill (lango types) for ``skills new --type``."""
    from aiq_tui.skills.builder import build_from_steps, build_script
    from aiq_tui.skills.store import SkillEntry

    if kind == "script":
        return build_script(
            name, description, 'echo "hello from ' + name + ' in $(pwd)"\n'
        )
    if kind == "composite":
        return build_from_steps(
            name,
            description,
            [
                {
                    "tool": "file_operations",
                    "params": {"operation": "list", "path": "."},
                },
                {
                    "tool": "execute_sql",
                    "params": {
                        "sql": "SELECT name FROM sqlite_master WHERE type = 'table'"
                    },
                },
            ],
        )
    return SkillEntry(
        name,
        description,
        "template",
        "active",
        {"template": "Hello {{.who}}!\n"},
        parameters={"who": {"type": "string", "description": "who to greet"}},
    )


def scaffold(name: str, description: str) -> str:
    """The text of a new SKILL.md that passes strict validation."""
    from aiq_tui.skills.store import dump_yaml  # the same YAML style as the store

    head = dump_yaml(
        {"name": name, "description": description},
        sort_keys=False,
        allow_unicode=True,
        width=100,
    )
    title = name.replace("-", " ").capitalize()
    return (
        f"---\n{head}---\n\n# {title}\n\n"
        "## When to use\n\n- The situations and requests this skill is for.\n\n"
        "## Steps\n\n1. The first thing to do, and which tool to call.\n2. The next step.\n\n"
        "## Rules\n\n- What to avoid, limits, and how to check the result.\n"
    )


# -- enable / disable / rm / import ---------------------------------------------------------------


def _set_status(args: argparse.Namespace) -> int:
    from aiq_tui.skills.catalog import UnknownSkillError
    from aiq_tui.skills.store import StoreError

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    try:
        meta = workspace.catalog.set_status(args.name, args.status)
    except UnknownSkillError as exc:
        print(f"aiq-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (StoreError, OSError) as exc:
        print(f"aiq-tui: cannot change {args.name}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if option(args, "json"):
        print_json({"name": meta.name, "status": meta.status, "path": str(meta.path)})
    else:
        make_console(args).print(
            f"{meta.name}: status {meta.status} ({meta.path})",
            soft_wrap=True,
            markup=False,
        )
    return EXIT_OK


def _remove(args: argparse.Namespace) -> int:
    from aiq_tui.skills.catalog import UnknownSkillError
    from aiq_tui.skills.store import StoreError

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    meta = workspace.catalog.find(args.name)
    if meta is None:
        try:
            workspace.catalog.require(args.name)
        except UnknownSkillError as exc:
            print(f"aiq-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not option(args, "yes"):
        if not sys.stdin.isatty():
            print(
                f"aiq-tui: not deleting {meta.folder} without confirmation; add --yes",
                file=sys.stderr,
            )
            return EXIT_USAGE
        answer = input(f"delete {meta.folder} and everything in it? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing deleted", file=sys.stderr)
            return EXIT_FAILED
    try:
        folder = workspace.catalog.delete(args.name)
    except (StoreError, OSError) as exc:
        print(f"aiq-tui: cannot delete {args.name}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    make_console(args).print(f"deleted {folder}", soft_wrap=True, markup=False)
    return EXIT_OK


def _import(args: argparse.Namespace) -> int:
    from aiq_tui.skills.importer import ImportError_, import_skills

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    try:
        target = (
            Path(args.dir).expanduser()
            if option(args, "dir")
            else workspace.catalog.writable_dir()
        )
        from functools import partial

        from aiq_tui.commands.install_cmd import SAFETY, UNSAFE_HINT, doctor_risks

        warnings: list[str] = []
        skipped: list[str] = []
        imported = import_skills(
            args.source,
            target,
            workspace.config,
            force=bool(option(args, "force")),
            home=workspace.home,  # where it came from goes to the home's skills-lock.json
            skipped=skipped,
            risk_checks=(
                partial(doctor_risks, allow_unsafe=bool(option(args, "allow_unsafe"))),
            ),
            warnings=warnings,
        )
    except ImportError_ as exc:
        from aiq_tui.terminal_text import printable

        print(f"aiq-tui: import failed: {printable(str(exc))}", file=sys.stderr)
        if f"{SAFETY} (" in str(exc):
            print(f"aiq-tui: {UNSAFE_HINT}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:
        print(f"aiq-tui: import failed: {exc}", file=sys.stderr)
        return EXIT_FAILED
    workspace.catalog.rescan()
    _withdraw_confirmations(workspace, [name for name, _ in imported])
    for refusal in skipped:  # files another program would run: left out, on stderr
        print(f"aiq-tui: left out: {refusal}", file=sys.stderr)
    if option(args, "json"):
        print_json(
            {
                "imported": [
                    {
                        "name": name,
                        "path": str(path),
                        "allowed_tools": list(_imported_tools(workspace, name)[0]),
                        "allowed_tools_confirmed": not _imported_tools(workspace, name)[
                            0
                        ],
                    }
                    for name, path in imported
                ],
                "source": args.source,
                "warnings": warnings,
            }
        )
        return EXIT_OK
    console = make_console(args)
    for name, path in imported:
        console.print(f"imported {name} → {path}", soft_wrap=True, markup=False)
        for line in _import_notes(workspace, name):
            console.print(line, soft_wrap=True, markup=False)
    for line in warnings:
        if line.startswith(SAFETY):
            console.print(
                f"  warning: {line}", soft_wrap=True, markup=False, style="yellow"
            )
    return EXIT_OK


def _withdraw_confirmations(workspace: Any, names: list[str]) -> None:
    """A skill imported again is new input: an earlier `skills trust` does not carry over."""
    from aiq_tui.skills.imported import confirm, is_confirmed

    for name in names:
        meta = (
            workspace.catalog.find(name) if hasattr(workspace.catalog, "find") else None
        )
        if (
            meta is not None
            and meta.allowed_tools
            and is_confirmed(workspace.home, meta)
        ):
            try:
                confirm(workspace.home, meta, forget=True)
            except OSError:
                pass  # nothing recorded to withdraw, or the home is read-only: nothing confirmed either


def _imported_tools(
    workspace: Any, name: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(allowed-tools, refused entries) of the imported skill ``name`` as the catalog reads it."""
    from aiq_tui.skills.imported import refused_entries

    meta = (
        workspace.catalog.find(name)
        if hasattr(workspace.catalog, "find")
        else workspace.catalog.get(name)
    )
    tools = tuple(meta.allowed_tools or ()) if meta is not None else ()
    return tools, refused_entries(tools)


def _import_notes(workspace: Any, name: str) -> list[str]:
    """What an import says about the skill's allowed-tools (they wait for the user's yes) and
    its script (asked before every run)."""
    from aiq_tui.terminal_text import printable

    meta = workspace.catalog.find(name) if hasattr(workspace.catalog, "find") else None
    lines = []
    if meta is not None and meta.type == "script":
        lines.append(
            "  its script asks before every run, even with execute_skill_script: allow"
        )
    tools, refused = _imported_tools(workspace, name)
    if not tools:
        return lines
    lines += [
        f"  allowed-tools: {printable(' '.join(tools), one_line=True)}",
        f"  they pre-approve nothing until you confirm them: aiq-tui skills trust {name}",
    ]
    if refused:
        lines.append(
            "  warning: `*` would pre-approve every tool; it is refused and matches nothing"
        )
    return lines


def _trust(args: argparse.Namespace) -> int:
    from aiq_tui.skills.imported import confirm, is_imported, refused_entries
    from aiq_tui.terminal_text import printable

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    meta = (
        workspace.catalog.find(args.name)
        if hasattr(workspace.catalog, "find")
        else None
    )
    if meta is None:
        print(f"aiq-tui skills trust: no skill named {args.name!r}", file=sys.stderr)
        return EXIT_USAGE
    tools = tuple(meta.allowed_tools or ())
    forget = bool(option(args, "forget"))
    if not is_imported(meta, workspace.home) and not forget:
        print(
            f"aiq-tui skills trust: {meta.name} was not imported; its allowed-tools apply as they are "
            f"(nothing to confirm)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        confirm(workspace.home, meta, forget=forget)
    except OSError as exc:
        print(f"aiq-tui skills trust: cannot record it: {exc}", file=sys.stderr)
        return EXIT_FAILED
    refused = refused_entries(tools)
    if option(args, "json"):
        print_json(
            {
                "name": meta.name,
                "confirmed": not forget,
                "allowed_tools": list(tools),
                "refused": list(refused),
            }
        )
        return EXIT_OK
    shown = printable(" ".join(tools), one_line=True) or "(none)"
    text = (
        f"{meta.name}: confirmation withdrawn; its allowed-tools ({shown}) pre-approve nothing"
        if forget
        else f"{meta.name}: its allowed-tools ({shown}) now pre-approve those calls while the skill is in use"
    )
    make_console(args).print(text, soft_wrap=True, markup=False)
    if refused and not forget:
        make_console(args).print(
            "warning: `*` is refused and matches nothing", soft_wrap=True, markup=False
        )
    return EXIT_OK
