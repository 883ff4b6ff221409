"""What every subcommand shares: global options, exit codes, a console that honours NO_COLOR."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from rich.console import Console

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
    no_color = bool(option(args, "no_color", False)) or "NO_COLOR" in os.environ
    return Console(stderr=stderr, no_color=no_color, highlight=False, soft_wrap=False)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def print_json_line(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()
