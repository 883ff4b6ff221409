"""``aiq-tui mcp list|add|rm|approve`` (``resources`` and ``prompts``: :mod:`.mcp_catalog_cmd`): the MCP servers whose tools the agent may call.

``list`` starts each server the way a turn would (same fleet, same trust rules) and shows its
state and tools; ``add`` / ``rm`` edit ``mcp.servers`` in config.yaml atomically, keeping the
rest of the file; ``approve`` records the user's one-time approval of a project's ``.mcp.json``
server (by name and a hash of its definition: a changed command asks again).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, Literal

from aiq_tui.commands.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, option, print_json

if TYPE_CHECKING:
    from pathlib import Path

    from aiq_tui.tools.mcp.fleet import McpFleet, ServerStatus


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    mcp = subparsers.add_parser(
        "mcp",
        parents=parents,
        help="list, add and remove MCP servers (their tools: mcp__SERVER__TOOL)",
        description=(
            "MCP servers give the agent more tools, named mcp__SERVER__TOOL; each call asks first unless "
            "tools.permissions says otherwise (mcp__SERVER or mcp__SERVER__TOOL: allow | ask | deny). "
            "Servers come from config.yaml (mcp.servers) and from the project's .mcp.json, whose servers "
            "start only in a trusted project (aiq-tui trust) or once approved."
        ),
    )
    actions = mcp.add_subparsers(dest="mcp_action", metavar="ACTION", required=True)

    listing = actions.add_parser(
        "list",
        parents=parents,
        help="each server, its state and its tools",
        description="Start every server as a turn would and show its state and tools "
        "(exit 1 when one failed to start).",
    )
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.add_argument(
        "--no-start",
        action="store_true",
        help="list the configured servers without starting them",
    )
    listing.set_defaults(handler=_list)

    add = actions.add_parser(
        "add",
        parents=parents,
        help="add a server to config.yaml (or the project's .mcp.json)",
        description="Add a stdio server (aiq-tui mcp add time -- mcp-server-time) or an HTTP one "
        "(aiq-tui mcp add --transport http docs https://host/mcp) — `claude mcp add`'s syntax; "
        "options go before or after NAME. --scope user (default) writes mcp.servers in config.yaml; "
        "--scope project writes the project's .mcp.json in Claude Code's format (shared with the "
        "project) and approves that definition for you. A NAME with other characters than letters, "
        "digits, - and single _ is stored with - in their place, and the command says so.",
        usage="aiq-tui mcp add [-s user|project] [-e KEY=VALUE]... [--server-cwd DIR] NAME -- COMMAND [ARG...]\n"
        "       aiq-tui mcp add [-s user|project] -t http|sse NAME URL [-H 'NAME: VALUE']...\n"
        "       aiq-tui mcp add NAME --url URL [--header 'NAME: VALUE']... [--transport sse]",
    )
    add.add_argument(
        "name", metavar="NAME", help="the server's name (letters, digits, -, _)"
    )
    # Everything after NAME, options included, as written: argparse cannot mix options with a
    # command line that has options of its own; _split_add() reads it.
    add.add_argument(
        "argv",
        metavar="COMMAND [ARG...] | URL",
        nargs=argparse.REMAINDER,
        help="the program and its arguments (after --), or the URL with --transport http|sse",
    )
    _add_options(add)
    add.set_defaults(handler=_add)

    remove = actions.add_parser(
        "rm", parents=parents, help="remove a server from config.yaml (or .mcp.json)"
    )
    remove.add_argument("name", metavar="NAME")
    remove.add_argument(
        "-s",
        "--scope",
        choices=("user", "project"),
        default="user",
        help="user: config.yaml (default); project: the project's .mcp.json",
    )
    remove.set_defaults(handler=_remove)

    approve = actions.add_parser(
        "approve",
        parents=parents,
        help="approve a server of this project's .mcp.json once",
        description="Approve (or --reject, or --forget) a server of the current project's .mcp.json. "
        "The answer holds for this definition: a changed command, environment or URL asks again.",
    )
    approve.add_argument("name", metavar="NAME")
    answer = approve.add_mutually_exclusive_group()
    answer.add_argument(
        "--reject", action="store_true", help="never start it (the TUI stops asking)"
    )
    answer.add_argument(
        "--forget", action="store_true", help="forget the answer (ask again)"
    )
    approve.set_defaults(handler=_approve)

    from aiq_tui.commands.mcp_catalog_cmd import register as register_catalog

    register_catalog(actions, parents)  # mcp resources, mcp prompts


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--url", help="the server's streamable-HTTP endpoint instead of a command"
    )
    parser.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header (repeatable); ${VAR} takes an environment variable",
    )
    parser.add_argument(
        "-t",
        "--transport",
        choices=("stdio", "http", "sse"),
        help="stdio (a command; the default), http (streamable HTTP) or sse (older HTTP+SSE servers)",
    )
    parser.add_argument(
        "-e",
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an environment variable for the server (repeatable); ${VAR} takes one of yours",
    )
    parser.add_argument(
        "-s",
        "--scope",
        choices=("user", "project"),
        help="user: config.yaml (default); project: the project's .mcp.json, shared with it",
    )
    parser.add_argument(
        "--server-cwd",
        metavar="DIR",
        dest="server_cwd",
        help="working directory of the server (default: the project directory)",
    )


def _split_add(args: argparse.Namespace) -> list[str]:
    """The command line of ``mcp add``; options written after NAME are parsed into ``args``."""
    rest = list(option(args, "argv") or [])
    command: list[str] | None
    if "--" in rest:
        head, command = rest[: rest.index("--")], rest[rest.index("--") + 1 :]
    elif rest and (
        rest[0].startswith(("-", "http://", "https://"))
        or option(args, "transport") in ("http", "sse")
    ):
        head, command = (
            rest,
            None,
        )  # options and a URL, in any order (no command line to keep whole)
    else:
        head, command = [], rest
    if head:
        from aiq_tui.commands.common import add_global_options

        parser = argparse.ArgumentParser(prog="aiq-tui mcp add NAME", add_help=False)
        _add_options(parser)
        add_global_options(parser)  # --home after NAME still names the home
        if command is None:
            later, command = parser.parse_known_args(head)
        else:
            later = parser.parse_args(head)
        for key, value in vars(later).items():
            if isinstance(value, list):
                setattr(args, key, [*(option(args, key) or []), *value])
            elif value is not None:
                setattr(args, key, value)
    return command or []


# -- list -------------------------------------------------------------------------------------
def _fleet(args: argparse.Namespace) -> McpFleet | None:
    from aiq_tui.commands.common import prepare_workspace
    from aiq_tui.tools.mcp.fleet import McpFleet
    from aiq_tui.tools.registry import ToolRegistry

    start = prepare_workspace(args)
    if start is None:
        return None
    return McpFleet(
        start.home,
        start.config,
        _project(args, start.config, start.home),
        ToolRegistry([]),
        lambda event: None,
    )


def _project(args: argparse.Namespace, config: Any = None, home: Any = None) -> Path:
    """The project directory whose .mcp.json counts: --cwd, else config tools.cwd, else here."""
    from aiq_tui.workspace import project_directory

    if config is None:
        from aiq_tui.commands.common import prepare_workspace

        start = prepare_workspace(args)
        if start is None:
            raise SystemExit(EXIT_USAGE)
        config, home = start.config, start.home
    return project_directory(option(args, "cwd"), config, home)


def _list(args: argparse.Namespace) -> int:
    import asyncio

    fleet = _fleet(args)
    if fleet is None:
        return EXIT_USAGE

    async def run() -> list[ServerStatus]:
        if not option(args, "no_start"):
            try:
                await fleet.start()
                return fleet.statuses()
            finally:
                await fleet.aclose()
        return fleet.statuses()

    if (
        fleet.definitions()
        and not option(args, "no_start")
        and not option(args, "json")
    ):
        print(f"starting {len(fleet.definitions())} server(s)…", file=sys.stderr)
    statuses = asyncio.run(run())
    problems = [
        p for p in fleet.problems() if "MCP server" not in p.message
    ]  # broken .mcp.json entries
    rows = [_row(status) for status in statuses]
    if option(args, "json"):
        print_json({"servers": rows, "problems": [p.to_json() for p in problems]})
    else:
        _print_rows(rows)
        for problem in problems:
            print(f"warning: {problem}", file=sys.stderr)
    return EXIT_FAILED if any(row["state"] == "failed" for row in rows) else EXIT_OK


def _row(status: ServerStatus) -> dict[str, Any]:
    server = status.definition
    return {
        "name": server.name,
        "source": server.source,
        "origin": str(server.origin),
        "transport": server.transport,
        "target": server.target,
        "state": status.state,
        "message": status.message,
        "tools": [
            {"name": name, "description": description}
            for name, description in zip(status.tools, status.descriptions)
        ],
    }


def _print_rows(rows: list[dict[str, Any]]) -> None:
    if not rows:
        print("no MCP servers; add one with: aiq-tui mcp add NAME -- COMMAND [ARG...]")
        return
    for row in rows:
        tools = f", {len(row['tools'])} tools" if row["state"] == "ready" else ""
        print(
            f"{row['name']}  [{row['state']}{tools}]  {row['transport']}: {row['target']}  ({row['source']})"
        )
        # A ready server's message says more than its tool count when some tool cannot be offered.
        if row["message"] and (
            row["state"] != "ready" or row["message"] != f"{len(row['tools'])} tools"
        ):
            for line in row["message"].splitlines():
                print(f"    {line}")
        for tool in row["tools"]:
            description = " ".join(tool["description"].split())
            if len(description) > 80:
                description = description[:79] + "…"
            print(f"    {tool['name']}  {description}")


# -- add / rm -----------------------------------------------------------------------------------
def _pairs(items: list[str], separator: str, what: str) -> dict[str, str] | str:
    pairs: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(separator)
        if not found or not key.strip():
            return f"{what} {item!r} must look like {'KEY=VALUE' if separator == '=' else 'NAME: VALUE'}"
        pairs[key.strip()] = value.strip() if separator == ":" else value
    return pairs


def _add(args: argparse.Namespace) -> int:
    from aiq_tui.tools.mcp.servers import renamed, server_name

    argv = _split_add(args)
    url, transport = option(args, "url"), option(args, "transport")
    if not url and argv and transport in ("http", "sse"):
        url, argv = argv[0], argv[1:]  # `claude mcp add --transport http NAME URL`
        if argv:
            return _usage(
                f"an {transport} server takes one URL; unexpected: {' '.join(argv)}"
            )
    elif (
        not url
        and transport is None
        and len(argv) == 1
        and argv[0].startswith(("http://", "https://"))
    ):
        url, argv = argv[0], []
        print(
            f"note: {url} is a URL, so this is an HTTP server (--transport http; --transport sse for an "
            "older HTTP+SSE server)",
            file=sys.stderr,
        )
    if transport == "stdio" and (
        url or (argv[:1] and argv[0].startswith(("http://", "https://")))
    ):
        return _usage(
            "--transport stdio runs a command: give -- COMMAND [ARG...], not a URL"
        )
    if bool(url) == bool(argv):
        return _usage(
            "give either -- COMMAND [ARG...] or a URL (--transport http NAME URL, or --url URL)"
        )
    env = _pairs(option(args, "env") or [], "=", "--env")
    headers = _pairs(option(args, "header") or [], ":", "--header")
    for parsed in (env, headers):
        if isinstance(parsed, str):
            return _usage(parsed)
    if (url and (env or option(args, "server_cwd"))) or (argv and headers):
        return _usage("--env and --server-cwd go with a command, --header with a URL")
    name = server_name(args.name)
    if not name:
        return _usage(
            f"{args.name!r} cannot name a server: use letters, digits, - and _"
        )
    if (
        name != args.name
    ):  # the same rule as a project's .mcp.json: used changed, and said so
        print(f"warning: {renamed(args.name, name)}", file=sys.stderr)
    if option(args, "scope") == "project":
        return _add_to_project(args, name, argv, url, transport, env, headers)  # type: ignore[arg-type]
    entry: dict[str, Any] = {"url": url} if url else {"command": argv[0]}
    if argv[1:]:
        entry["args"] = argv[1:]
    for key, value in (
        ("env", env),
        ("headers", headers),
        ("cwd", option(args, "server_cwd")),
        ("transport", transport if url else None),
    ):
        if value:
            entry[key] = value
    return _add_to_config(args, name, entry, argv, url)


def _usage(message: str) -> int:
    print(f"aiq-tui mcp add: {message}", file=sys.stderr)
    return EXIT_USAGE


def _add_to_config(
    args: argparse.Namespace,
    name: str,
    entry: dict[str, Any],
    argv: list[str],
    url: str | None,
) -> int:
    from aiq_tui.config import ConfigError
    from aiq_tui.config_edit import edit_section
    from aiq_tui.locations import resolve_home

    home = resolve_home(option(args, "home"))
    home.ensure()

    def change(data: dict[str, Any]) -> None:
        mcp = (
            data.setdefault("mcp", {})
            if isinstance(data.get("mcp", {}), dict)
            else data["mcp"]
        )
        servers = mcp.setdefault("servers", {}) if isinstance(mcp, dict) else None
        if isinstance(servers, dict):
            if any(str(existing).lower() == name.lower() for existing in servers):
                raise _Exists()  # names compare ignoring case, as permissions and allowed-tools do
            servers[name] = entry

    try:
        edit_section(home.config_file, "mcp", change)
    except _Exists:
        print(
            f"aiq-tui mcp add: a server named {name!r} is already in {home.config_file}; "
            f"remove it first (aiq-tui mcp rm {name})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except ConfigError as exc:
        print(f"aiq-tui mcp add: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(
        f"added MCP server {name} to {home.config_file}: {' '.join(argv) if argv else url}"
    )
    if argv:
        _warn_if_missing(argv[0])
    print(
        f"its tools: mcp__{name}__TOOL (each call asks first; `aiq-tui mcp list` starts it and shows them)"
    )
    return EXIT_OK


def _add_to_project(
    args: argparse.Namespace,
    name: str,
    argv: list[str],
    url: str | None,
    transport: str | None,
    env: dict[str, str],
    headers: dict[str, str],
) -> int:
    """``--scope project``: the project's ``.mcp.json`` in Claude Code's format, and the user's
    approval of exactly this definition (they typed it; a later change asks again)."""
    from aiq_tui.locations import resolve_home
    from aiq_tui.tools.mcp.approvals import record
    from aiq_tui.tools.mcp.servers import add_project_server

    entry: dict[str, Any] = (
        {"type": transport or "http", "url": url}
        if url
        else {"type": "stdio", "command": argv[0], "args": argv[1:]}
    )
    for key, value in (
        ("env", env),
        ("headers", headers),
        ("cwd", option(args, "server_cwd")),
    ):
        if value:
            entry[key] = value
    project = _project(args)
    try:
        server = add_project_server(project, name, entry)
    except ValueError as exc:
        return _usage(str(exc))
    home = resolve_home(option(args, "home"))
    home.ensure()
    record(home, project, server, "approved")
    print(f"added MCP server {name} to {server.origin}: {server.target}")
    if argv:
        _warn_if_missing(argv[0])
    print(
        f"approved for you in this project (others who open it are asked first); its tools: mcp__{name}__TOOL "
        "(each call asks first; `aiq-tui mcp list` starts it and shows them)"
    )
    return EXIT_OK


class _Exists(Exception):
    pass


def _warn_if_missing(program: str) -> None:
    from aiq_tui.tools.mcp.connection import resolve_program, stdio_environment

    if (
        "${" not in program
        and resolve_program(program, stdio_environment({}).get("PATH", "")) is None
    ):
        print(
            f"warning: {program} is not on PATH (nor beside this Python); install it before the server is "
            "used, or give its full path",
            file=sys.stderr,
        )


def _remove(args: argparse.Namespace) -> int:
    from aiq_tui.config import ConfigError
    from aiq_tui.config_edit import edit_section
    from aiq_tui.locations import resolve_home
    from aiq_tui.tools.mcp.servers import server_name

    home = resolve_home(option(args, "home"))
    name = server_name(args.name) or args.name  # as `mcp add` stored it
    removed: list[bool] = []
    if option(args, "scope") == "project":
        from aiq_tui.tools.mcp.servers import remove_project_server

        project = _project(args)
        try:
            key = remove_project_server(project, name)
        except ValueError as exc:
            print(f"aiq-tui mcp rm: {exc}", file=sys.stderr)
            return EXIT_USAGE
        if key is None:
            print(
                f"aiq-tui mcp rm: no server named {name!r} in {project / '.mcp.json'}",
                file=sys.stderr,
            )
            return EXIT_USAGE
        print(f"removed MCP server {key} from {project / '.mcp.json'}")
        return EXIT_OK

    def change(data: dict[str, Any]) -> None:
        servers = (
            (data.get("mcp") or {}).get("servers")
            if isinstance(data.get("mcp"), dict)
            else None
        )
        if isinstance(servers, dict) and name in servers:
            del servers[name]
            removed.append(True)
            if not servers:
                del data["mcp"]["servers"]
            if not data["mcp"]:
                del data["mcp"]

    try:
        edit_section(home.config_file, "mcp", change)
    except ConfigError as exc:
        print(f"aiq-tui mcp rm: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not removed:
        from aiq_tui.tools.mcp.servers import project_servers

        in_project = any(
            server.name == name for server in project_servers(_project(args))[0]
        )
        where = (
            " It comes from this project's .mcp.json: `aiq-tui mcp rm --scope project NAME`."
            if in_project
            else ""
        )
        print(
            f"aiq-tui mcp rm: no server named {name!r} in {home.config_file}.{where}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    print(f"removed MCP server {name} from {home.config_file}")
    return EXIT_OK


# -- approve ------------------------------------------------------------------------------------
def _approve(args: argparse.Namespace) -> int:
    from aiq_tui.locations import resolve_home
    from aiq_tui.tools.mcp.approvals import record
    from aiq_tui.tools.mcp.servers import project_servers, server_name, variables

    home = resolve_home(option(args, "home"))
    home.ensure()
    project = _project(args)
    servers, _ = project_servers(project)
    wanted = (
        server_name(args.name) or args.name
    )  # `my.server` as the file spells it: used as my-server
    server = next((s for s in servers if s.name == wanted), None) or next(
        (s for s in servers if s.name.lower() == wanted.lower()), None
    )
    if server is None:
        known = ", ".join(s.name for s in servers) or "none"
        print(
            f"aiq-tui mcp approve: no server named {args.name!r} in {project / '.mcp.json'} "
            f"(its servers: {known})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    answer: Literal["approved", "rejected"] | None = (
        None
        if option(args, "forget")
        else "rejected"
        if option(args, "reject")
        else "approved"
    )
    record(home, project, server, answer)
    reads = variables(server)
    what = {
        "approved": "approved",
        "rejected": "rejected",
        None: "forgot the answer for",
    }[answer]
    print(
        f"{what} {server.name}: {server.target}"
        + (f" (reads your environment variables {', '.join(reads)})" if reads else "")
    )
    return EXIT_OK
