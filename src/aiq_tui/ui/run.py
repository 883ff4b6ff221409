"""``aiq-tui`` with no command: build the engine from flags and config, run the app.

Config errors are printed on stderr with exit code 2 (no traceback). Quitting — Ctrl+Q,
or Ctrl+C which first cancels a running turn — never loses the session: the engine saves
after every turn and the app lets a cancelled turn finish saving before it exits.
"""

from __future__ import annotations

import argparse

from aiq_tui.commands.common import EXIT_OK, EXIT_USAGE, open_engine


def run_tui(args: argparse.Namespace) -> int:
    engine = open_engine(args)
    if engine is None:
        return EXIT_USAGE

    from aiq_tui.ui.app import AiqApp

    app = AiqApp(engine)
    result = app.run()
    return int(result) if isinstance(result, int) else EXIT_OK
