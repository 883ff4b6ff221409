"""Entry point ``aiq-tui``: no subcommand opens the TUI; subcommands run headless.

Thin by design: parse arguments, hand over to a command module, return its exit code.
Command modules import their heavy dependencies inside their handlers so that ``--help``
and the TUI start fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from aiq_tui import __version__
from aiq_tui.commands.common import (
    EXIT_OK,
    EXIT_USAGE,
    add_global_options,
    global_path_problem,
    option,
    stdout_to_devnull,
)

# Each module exposes ``register(subparsers, parents)``; order is the order in --help.
COMMAND_MODULES = ("skills", "match", "prompt", "ask", "run", "sessions", "replay", "models")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    add_global_options(common)
    parser = argparse.ArgumentParser(
        prog="aiq-tui",
        description=(
            "A terminal workbench for AI agent skills. With no command, opens the full-screen "
            "app; the commands below run the same core headless, for scripts and CI."
        ),
        parents=[common],
        epilog="Exit codes: 0 ok, 1 a check failed, 2 usage error. NO_COLOR is honoured.",
    )
    parser.add_argument("--version", action="version", version=f"aiq-tui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"aiq_tui.commands.{name}_cmd")
        module.register(subparsers, [common])
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (``| head -1``): what it wanted was printed. Point stdout at
        # /dev/null so the interpreter's final flush does not fail again, and exit quietly.
        stdout_to_devnull()
        return EXIT_OK


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    problem = global_path_problem(args)
    if problem:
        print(f"aiq-tui: {problem}", file=sys.stderr)
        return EXIT_USAGE
    handler = option(args, "handler")
    if handler is None:
        if option(args, "command"):
            parser.parse_args([args.command, "--help"])
            return EXIT_USAGE
        from aiq_tui.ui.run import run_tui

        return run_tui(args)
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
