"""``aiq-tui`` with no command: build the engine from flags and config, run the app.

Config errors are printed on stderr with exit code 2 (no traceback). Quitting — Ctrl+Q,
or Ctrl+C which first cancels a running turn — never loses the session: the engine saves
after every turn and the app lets a cancelled turn finish saving before it exits.
An unhandled error exits 1 and names the crash report written under the config home.
"""

from __future__ import annotations

import argparse
from typing import Any

from aiq_tui.commands.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, open_engine


def exit_code(app: Any, result: object) -> int:
    """1 after a crash (Textual's run() returns None then), else what the app exited with."""
    if getattr(app, "crash", None) is not None or (app.return_code or 0) != 0:
        return int(app.return_code or EXIT_FAILED)
    return int(result) if isinstance(result, int) else EXIT_OK


def run_tui(args: argparse.Namespace) -> int:
    engine = open_engine(args)
    if engine is None:
        return EXIT_USAGE

    from aiq_tui.ui.app import AiqApp
    from aiq_tui.ui.crash import print_crash_note

    app = AiqApp(engine)
    result = app.run()
    if app.crash is not None:
        print_crash_note(*app.crash)
    return exit_code(app, result)
