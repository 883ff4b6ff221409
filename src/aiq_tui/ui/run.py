"""``aiq-tui`` with no command: build the engine from flags and config, run the app.

Config errors are printed on stderr with exit code 2 (no traceback). Quitting — Ctrl+Q,
or Ctrl+C which first cancels a running turn — never loses the session: the engine saves
after every turn and the app lets a cancelled turn finish saving before it exits.
"""

from __future__ import annotations

import argparse
import sys

from aiq_tui.commands.common import EXIT_OK, EXIT_USAGE, option


def run_tui(args: argparse.Namespace) -> int:
    from aiq_tui.config import ConfigError

    from aiq_tui.workspace import Workspace

    try:
        workspace = Workspace.open(home_flag=option(args, "home"), skills_dirs=tuple(option(args, "skills_dir") or ()))
        from aiq_tui.agent.engine import Engine

        engine = Engine.create(workspace, provider_name=option(args, "provider"))
    except (ConfigError, ValueError) as exc:  # ValueError: an unknown --provider name
        print(f"aiq-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE

    from aiq_tui.ui.app import AiqApp

    app = AiqApp(engine)
    result = app.run()
    return int(result) if isinstance(result, int) else EXIT_OK
