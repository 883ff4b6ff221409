"""``aiq-tui sessions list|show|rm|rename|export``: the saved conversations in the config home."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from aiq_tui.commands.common import (
    EXIT_OK,
    EXIT_USAGE,
    make_console,
    option,
    print_json,
    session_exit_code,
)


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    parser = subparsers.add_parser(
        "sessions",
        parents=parents,
        help="list, show, rename, delete or export saved sessions",
        description="Saved conversations (sessions/session_<id>.json in the config home). "
        "IDs may be shortened to any unique prefix. A file that cannot be read (not JSON, "
        "not a regular file, over sessions.max_file_bytes or sessions.max_json_depth in "
        "config.yaml) is a warning in `list` and exit 1 in show, rename and export, "
        "which leave it untouched (rm still deletes it).",
    )
    actions = parser.add_subparsers(dest="sessions_action", metavar="ACTION")

    listing = actions.add_parser(
        "list", parents=parents, help="saved sessions, newest first"
    )
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=_list)

    show = actions.add_parser(
        "show", parents=parents, help="one session's messages and figures"
    )
    show.add_argument("id", metavar="ID")
    show.add_argument(
        "--json", action="store_true", help="print the whole session as JSON"
    )
    show.set_defaults(handler=_show)

    remove = actions.add_parser("rm", parents=parents, help="delete a session")
    remove.add_argument("id", metavar="ID")
    remove.set_defaults(handler=_remove)

    rename = actions.add_parser("rename", parents=parents, help="set a session's title")
    rename.add_argument("id", metavar="ID")
    rename.add_argument("title", metavar="TITLE")
    rename.set_defaults(handler=_rename)

    export = actions.add_parser("export", parents=parents, help="a session as markdown")
    export.add_argument("id", metavar="ID")
    export.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE instead of stdout"
    )
    export.set_defaults(handler=_export)

    parser.set_defaults(handler=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _store(args: argparse.Namespace) -> Any:
    """The home's session store, reading with config.yaml's ``sessions`` limits; None (said
    on stderr) when config.yaml cannot be used."""
    from aiq_tui.agent.sessions import SessionStore
    from aiq_tui.config import ConfigError, load_config
    from aiq_tui.locations import resolve_home

    home = resolve_home(option(args, "home"))
    home.ensure()
    try:
        limits = load_config(home).sessions
    except ConfigError as exc:
        print(f"aiq-tui: {exc}", file=sys.stderr)
        return None
    return SessionStore(home.sessions_dir, limits=limits)


def _fail(args: argparse.Namespace, exc: Exception) -> int:
    make_console(args, stderr=True).print(f"error: {exc}", markup=False)
    return session_exit_code(exc)


def _list(args: argparse.Namespace) -> int:
    store = _store(args)
    if store is None:
        return EXIT_USAGE
    listing = store.scan()
    if option(args, "json"):
        print_json(
            {
                "sessions": [s.to_json() for s in listing.sessions],
                "problems": [p.to_json() for p in listing.problems],
            }
        )
        return EXIT_OK
    from rich.table import Table

    console = make_console(args)
    if not listing.sessions:
        console.print(f"No saved sessions in {store.directory}.", markup=False)
    else:
        table = Table(box=None, header_style="bold")
        # An id is what `replay ID` is typed from and a time reads as one: never wrapped (at
        # 80 columns the title and the model wrap instead).
        whole = ("ID", "Updated", "Messages")
        for column in ("ID", "Title", "Updated", "Messages", "Model"):
            table.add_column(
                column,
                justify="right" if column == "Messages" else "left",
                overflow="fold",
                no_wrap=column in whole,
            )
        for s in listing.sessions:
            table.add_row(
                s.id,
                s.title,
                s.updated_at[:19].replace("T", " "),
                str(s.messages),
                f"{s.model} ({s.provider})" if s.provider else s.model,
            )
        console.print(table)
    errors = make_console(args, stderr=True)
    for problem in listing.problems:
        errors.print(f"warning: {problem}", markup=False)
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    from aiq_tui.agent.sessions import SessionError, session_markdown

    store = _store(args)
    if store is None:
        return EXIT_USAGE
    try:
        session = store.load(args.id)
    except SessionError as exc:
        return _fail(args, exc)
    if option(args, "json"):
        print_json(session.to_json())
    else:
        sys.stdout.write(session_markdown(session))
    return EXIT_OK


def _remove(args: argparse.Namespace) -> int:
    from aiq_tui.agent.sessions import SessionError

    store = _store(args)
    if store is None:
        return EXIT_USAGE
    try:
        path = store.delete(args.id)
    except SessionError as exc:
        return _fail(args, exc)
    make_console(args).print(f"deleted {path}", markup=False)
    return EXIT_OK


def _rename(args: argparse.Namespace) -> int:
    from aiq_tui.agent.sessions import SessionError

    store = _store(args)
    if store is None:
        return EXIT_USAGE
    try:
        session = store.rename(args.id, args.title)
    except SessionError as exc:
        return _fail(args, exc)
    make_console(args).print(f"renamed {session.id} to {session.title!r}", markup=False)
    return EXIT_OK


def _export(args: argparse.Namespace) -> int:
    from aiq_tui.agent.sessions import SessionError

    store = _store(args)
    if store is None:
        return EXIT_USAGE
    try:
        text = store.export_markdown(args.id)
    except SessionError as exc:
        return _fail(args, exc)
    output = option(args, "output")
    if output:
        Path(output).write_text(text, encoding="utf-8")
        make_console(args, stderr=True).print(f"wrote {output}", markup=False)
    else:
        sys.stdout.write(text)
    return EXIT_OK
