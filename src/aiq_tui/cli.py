"""Entry point ``aiq-tui``: no subcommand opens the TUI; subcommands run headless.

Thin by design: parse arguments, hand over to a command module, return its exit code.
Command modules import their heavy dependencies inside their handlers so that ``--help``
and the TUI start fast.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import NoReturn

from aiq_tui import __version__
from aiq_tui.commands.common import (
    EXIT_OK,
    EXIT_USAGE,
    add_global_options,
    global_path_problem,
    option,
    stdout_to_devnull,
)

# Each module exposes ``register(subparsers, parents, action)``, ``action`` being the word after
# the command when it is certain (:func:`action_named`): a module with actions may register that
# one alone. The order is the order in --help.
COMMAND_MODULES = (
    "skills",
    "match",
    "prompt",
    "ask",
    "demo",
    "run",
    "sessions",
    "replay",
    "models",
    "sources",
    "mcp",
    "trust",
)


_VALUE_OPTIONS = frozenset({"--home", "--skills-dir", "--cwd", "--provider", "--model"})
_FLAG_OPTIONS = frozenset({"--create", "--no-color"})


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given ``argv``, only the command modules that parse can use are imported
    and registered (:func:`commands_needed`), so a headless command pays for no other
    command's imports and the TUI start for none."""
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
    for name in commands_needed(argv) if argv is not None else COMMAND_MODULES:
        module = importlib.import_module(f"aiq_tui.commands.{name}_cmd")
        module.register(
            subparsers, [common], action_named(argv, name) if argv is not None else None
        )
    return parser


def commands_needed(argv: Sequence[str]) -> tuple[str, ...]:
    """The command modules parsing ``argv`` can use: the one it names, none when it names none
    (the TUI start), and every one when in doubt.

    The other commands' parsers only feed the top-level ``--help`` and the "invalid choice"
    error, so they can be left out once the command is certain: that is, when nothing but
    exact global options comes before it. ``-h``, ``--version``, an abbreviated option or
    ``--`` there, or an unknown word, and every module is registered, so help and errors
    read exactly as always.
    """
    word = _next_word(iter(argv))
    if word is None:
        return ()
    return (word,) if word in COMMAND_MODULES else COMMAND_MODULES


def action_named(argv: Sequence[str], command: str) -> str | None:
    """The word after ``command`` when it is as certain as the command (nothing but exact
    global options in between), else None: ``skills list`` → ``list``; ``skills -h`` and
    ``skills --ho x list`` → None."""
    tokens = iter(argv)
    if _next_word(tokens) != command:
        return None
    word = _next_word(tokens)
    return word if word is not None and not word.startswith("-") else None


def _next_word(tokens: Iterator[str]) -> str | None:
    """The next token that is not an exact global option or its value (None at the end)."""
    for token in tokens:
        if token in _VALUE_OPTIONS:
            next(
                tokens, None
            )  # argparse takes the next token as the value, whatever it is
        elif token in _FLAG_OPTIONS or (
            "=" in token and token.split("=", 1)[0] in _VALUE_OPTIONS
        ):
            continue
        else:
            return token
    return None


def run() -> NoReturn:
    """The ``aiq-tui`` console script and ``python -m aiq_tui``: :func:`main`, then the exit."""
    end_process(main())


def end_process(code: int) -> NoReturn:
    """Exit with ``code``. When the interpreter's shutdown has nothing left to do — no other
    thread, no atexit handler (logging, a temporary directory's cleanup, … all register one)
    — the process ends at once, stdout and stderr flushed: tearing down some 150 modules and
    what a 10,000-skill listing left behind was 15–30 ms of a 0.25 s ``skills list``, to
    free memory the OS takes back anyway. Otherwise the interpreter exits as usual."""
    # First of all: a cycle collection started by the imports below would walk every object
    # the command made (5–8 ms after a listing that paused the collector) to free none of them.
    gc.disable()
    import atexit
    import threading

    pending = getattr(
        atexit, "_ncallbacks", None
    )  # CPython's count; elsewhere, exit as usual
    if pending is None or pending() or threading.active_count() != 1:
        sys.exit(code)
    try:
        sys.stdout.flush()
    except (
        BrokenPipeError
    ):  # the reader went away before the last piece: what it read stands
        stdout_to_devnull()
    except (
        OSError,
        ValueError,
    ):  # stdout closed or failing: let the interpreter report it
        sys.exit(code)
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (``| head -1``): what it wanted was printed. Point stdout at
        # /dev/null so the interpreter's final flush does not fail again, and exit quietly.
        stdout_to_devnull()
        return EXIT_OK


def _main(argv: Sequence[str] | None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
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
        from aiq_tui.commands.tui_cmd import run_tui

        return run_tui(args)
    from aiq_tui.commands.terminal_output import sanitised_streams

    try:
        with (
            sanitised_streams()
        ):  # what a model, tool, skill or session wrote is shown, not obeyed
            return int(handler(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
