"""``aiq-tui sources list|check``: the SQL sources of ``config/sources.yaml`` (and the sample).

``list`` also says which project skill folders (``skills.project_dirs``) the project has and
whether their skills are trusted — where the model's instructions come from besides the user's.
``list --harness NAME`` says instead what another agent (Claude Code, Codex, Copilot, …) would
load from this machine and project (:mod:`aiq_tui.skills.harness_view`).

``check`` opens each source and runs a trivial read; for a read-only PostgreSQL source it also
warns when the source's role is a superuser or may run programs on, or read or write files of,
the database server (``pg_execute_server_program``, ``pg_read_server_files``,
``pg_write_server_files``): a READ ONLY transaction does not stop those, so only the parser's
refusal would stand between the model and the server. Exit 0 when every source checked can be
used (warnings included), 1 when one cannot, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from aiq_tui.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    make_console,
    open_workspace,
    option,
    print_json,
)


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    parser = subparsers.add_parser(
        "sources",
        parents=parents,
        help="list or check the SQL sources execute_sql can query",
        description="The SQL sources in config/sources.yaml (plus the bundled sample database).",
    )
    actions = parser.add_subparsers(dest="sources_action", metavar="ACTION")
    listing = actions.add_parser(
        "list",
        parents=parents,
        help="every source: engine, read-only, where; the project's skill folders",
        description=(
            "The SQL sources, then the project skill folders found in the project directory "
            "(skills.project_dirs: .agents/skills, .aiq/skills, .claude/skills) and whether "
            "the project is trusted (aiq-tui trust)."
        ),
    )
    from aiq_tui.skills.harnesses import names

    listing.add_argument(
        "--harness",
        metavar="NAME",
        choices=(*names(), "all"),
        help="instead: what that agent would load from this machine and project — its skill "
        "folders, the skills in its order of precedence, shadows, its listing's cost against "
        "its budget (" + ", ".join(names()) + ", or all)",
    )
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=_list)
    check = actions.add_parser(
        "check",
        parents=parents,
        help="connect to each source; warn about risky read-only roles",
        description=(
            "Open each source (or NAME) and run SELECT 1. A read-only PostgreSQL source whose role is "
            "a superuser or a member of pg_execute_server_program, pg_read_server_files or "
            "pg_write_server_files gets a warning: give it a role that can only SELECT. "
            "Exit 0 all usable, 1 a source cannot be used, 2 usage."
        ),
    )
    check.add_argument("name", nargs="?", metavar="NAME", help="only this source")
    check.add_argument("--json", action="store_true", help="print JSON")
    check.set_defaults(handler=_check)
    parser.set_defaults(handler=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _where(settings: Any) -> str:
    """The file, or the DSN with any password hidden."""
    from urllib.parse import urlsplit, urlunsplit

    if settings.engine == "sqlite":
        return settings.path or ""
    dsn = settings.dsn or ""
    parts = urlsplit(dsn)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=netloc))
    return dsn


def _list(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    if option(args, "harness"):
        return _harnesses(args, workspace, option(args, "harness"))
    sources = workspace.sources
    rows = [
        {
            "name": name,
            "engine": s.engine,
            "read_only": s.read_only,
            "default": name == sources.default,
            "where": _where(s),
            "description": s.description,
        }
        for name, s in sorted(sources.sources.items())
    ]
    folders = project_folder_rows(workspace)
    from aiq_tui.tools.permission_rules import of_permissions

    warnings = of_permissions(
        workspace.problems
    )  # keys of tools.permissions that name nothing
    if option(args, "json"):
        print_json(
            {
                "sources": rows,
                "project": str(
                    workspace.trust.project if workspace.trust else workspace.cwd
                ),
                "project_trust": _trust_word(workspace.trust),
                "project_folders": folders,
                "warnings": [problem.to_json() for problem in warnings],
            }
        )
        return EXIT_OK
    console = make_console(args)
    for row in rows:
        flags = ", ".join(
            f
            for f in (
                "read-only" if row["read_only"] else "writable",
                "default" if row["default"] else "",
            )
            if f
        )
        console.print(
            f"{row['name']} ({row['engine']}, {flags}) {row['where']}"
            + (f" — {row['description']}" if row["description"] else ""),
            markup=False,
            soft_wrap=True,
        )
    _print_folders(console, workspace, folders)
    for problem in warnings:
        console.print(f"warning: {problem}", markup=False, soft_wrap=True)
    return EXIT_OK


def harness_views(workspace: Any, which: str) -> list[Any]:
    """What each harness ``which`` names (a profile, or ``all``) would load in the workspace."""
    from aiq_tui.skills.harness_view import views_for

    return views_for(which, workspace.cwd, workspace.skill_dirs)


def _harnesses(args: argparse.Namespace, workspace: Any, which: str) -> int:
    from aiq_tui.skills.harness_view import render_text

    views = harness_views(workspace, which)
    if option(args, "json"):
        print_json(
            {"project": str(workspace.cwd), "harnesses": [v.to_json() for v in views]}
        )
        return EXIT_OK
    console = make_console(args)
    for index, view in enumerate(views):
        if index:
            console.print("")
        for line in render_text(view, workspace.cwd):
            console.print(line, markup=False, soft_wrap=True, highlight=False)
    return EXIT_OK


def project_folder_rows(workspace: Any) -> list[dict[str, Any]]:
    """The configured project skill folders found in the project, each with its trust."""
    import os

    from aiq_tui.trust import project_folders

    by_path = {os.path.realpath(d.path): d for d in workspace.skill_dirs}
    rows = []
    for found in project_folders(workspace.cwd, workspace.config.skills.project_dirs):
        scanned = by_path.get(os.path.realpath(found.path))
        origin = scanned.origin if scanned is not None else "project"
        trusted = scanned.trusted if scanned is not None else workspace.trust.trusted
        rows.append(
            {
                "folder": found.folder,
                "path": str(found.path),
                "skills": found.skills,
                "trusted": trusted,
                "own": origin == "user",
            }
        )
    return rows


def _trust_word(trust: Any) -> str:
    return (
        "undecided" if trust.undecided else "trusted" if trust.trusted else "untrusted"
    )


def _print_folders(console: Any, workspace: Any, folders: list[dict[str, Any]]) -> None:
    trust = workspace.trust
    if not folders:
        console.print(
            f"project skill folders: none in {trust.project} "
            f"(looked for {', '.join(workspace.config.skills.project_dirs) or 'nothing'})",
            markup=False,
            soft_wrap=True,
        )
        return
    state = {
        "trusted": "trusted",
        "untrusted": "not trusted (you said so)",
        "undecided": "not trusted (you have not decided)",
    }[_trust_word(trust)]
    console.print(
        f"project skill folders in {trust.project} — the project is {state}:",
        markup=False,
        soft_wrap=True,
    )
    for row in folders:
        count = f"{row['skills']} skill{'s' if row['skills'] != 1 else ''}"
        verdict = (
            "trusted (your own skills folder)"
            if row["own"]
            else "trusted"
            if row["trusted"]
            else "not trusted"
        )
        console.print(
            f"  {row['folder']}: found, {count}, {verdict}",
            markup=False,
            soft_wrap=True,
        )
    if not trust.trusted and any(not row["trusted"] for row in folders):
        console.print(
            f"  their skills match and instruct, but their allowed-tools pre-approve nothing and their "
            f"scripts always ask; `aiq-tui trust {trust.project}` trusts them",
            markup=False,
            soft_wrap=True,
        )


def _check(args: argparse.Namespace) -> int:
    from aiq_tui.tools.sql import SqlTool
    from aiq_tui.tools.sql_sources import SourceCheck, SqlError, SqlLimits, check_source

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    names = sorted(workspace.sources.sources)
    wanted = option(args, "name")
    if wanted:
        if wanted not in names:
            print(
                f"aiq-tui sources check: unknown source {wanted!r}; known: {', '.join(names)}",
                file=sys.stderr,
            )
            return EXIT_USAGE
        names = [wanted]
    settings = workspace.config.tools
    limits = SqlLimits(
        row_cap=settings.sql_row_cap,
        cell_bytes=settings.sql_cell_bytes,
        timeout_s=settings.sql_timeout_seconds,
        value_limit_bytes=settings.sql_value_limit_bytes,
    )
    tool = SqlTool(settings, home=workspace.home, sources=workspace.sources)
    checks: list[SourceCheck] = []
    try:
        for name in names:
            configured = workspace.sources.sources[name]
            try:
                checks.append(check_source(name, tool.source(name), limits))
            except SqlError as exc:  # the driver is missing, the file is not there, …
                checks.append(
                    SourceCheck(
                        name, configured.engine, configured.read_only, False, str(exc)
                    )
                )
    finally:
        tool.close()
    if option(args, "json"):
        print_json({"sources": [check.to_json() for check in checks]})
    else:
        _print(make_console(args), checks)
    return EXIT_OK if all(check.ok for check in checks) else EXIT_FAILED


def _print(console: Any, checks: list[Any]) -> None:
    from rich.text import Text

    for check in checks:
        mode = "read-only" if check.read_only else "writable"
        mark, style = (
            ("✓", "green")
            if check.ok and not check.warnings
            else ("!", "yellow")
            if check.ok
            else ("✗", "red")
        )
        console.print(
            Text(f"{mark} ", style=style)
            + Text(f"{check.name} ({check.engine}, {mode})"),
            soft_wrap=True,
        )
        if check.problem:
            console.print(f"    {check.problem}", markup=False, soft_wrap=True)
        for warning in check.warnings:
            console.print(
                Text("    warning: ", style="yellow") + Text(warning), soft_wrap=True
            )
