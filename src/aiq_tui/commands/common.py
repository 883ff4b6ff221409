"""What every subcommand shares: global options, exit codes, a console that honours NO_COLOR."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from aiq_tui.agent.engine import Engine
    from aiq_tui.workspace import Workspace

EXIT_OK = 0
EXIT_FAILED = 1  # a check failed (invalid skill, refused prompt, model error)
EXIT_USAGE = 2  # bad arguments, unknown names, unusable config


def add_global_options(parser: argparse.ArgumentParser) -> None:
    """Options accepted both before and after the subcommand name."""
    parser.add_argument(
        "--home", metavar="DIR", default=argparse.SUPPRESS,
        help="config home (default: $AIQ_HOME or ~/.aiqconfig)",
    )
    parser.add_argument(
        "--skills-dir", metavar="DIR", action="append", default=argparse.SUPPRESS,
        help="extra skills directory, highest precedence (repeatable)",
    )
    parser.add_argument(
        "--no-color", action="store_true", default=argparse.SUPPRESS,
        help="plain output without colour (also: NO_COLOR=1)",
    )


def option(args: argparse.Namespace, name: str, default: Any = None) -> Any:
    return getattr(args, name, default)


def make_console(args: argparse.Namespace, *, stderr: bool = False) -> Console:
    from rich.console import Console  # not on the path of --json output (start-up cost)

    no_color = bool(option(args, "no_color", False)) or "NO_COLOR" in os.environ
    return Console(stderr=stderr, no_color=no_color, highlight=False, soft_wrap=False)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def print_json_line(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def open_workspace(args: argparse.Namespace) -> "Workspace | None":
    """The workspace the global options name; on an unusable config, say why and return None
    (the caller exits with :data:`EXIT_USAGE`)."""
    from aiq_tui.config import ConfigError
    from aiq_tui.workspace import Workspace

    try:
        return Workspace.open(home_flag=option(args, "home"), skills_dirs=tuple(option(args, "skills_dir") or ()))
    except ConfigError as exc:
        print(f"aiq-tui: {exc}", file=sys.stderr)
        return None


def open_engine(args: argparse.Namespace, **engine_options: Any) -> "Engine | None":
    """An engine on the workspace and ``--provider`` the options name; on an unusable config
    or an unknown provider, say why and return None (the caller exits with :data:`EXIT_USAGE`)."""
    workspace = open_workspace(args)
    if workspace is None:
        return None
    from aiq_tui.agent.engine import Engine

    try:
        return Engine.create(workspace, option(args, "provider"), **engine_options)
    except ValueError as exc:  # an unknown --provider name; the message lists the known ones
        print(f"aiq-tui: {exc}", file=sys.stderr)
        return None
