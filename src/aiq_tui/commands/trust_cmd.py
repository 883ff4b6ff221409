"""``aiq-tui trust [PATH]``: trust a project folder, say it is untrusted, forget it, or list.

What trust changes is in docs/security.md: in an untrusted project, project skills
still match and instruct, but their ``allowed-tools`` grant nothing, their scripts always
ask, and the project's MCP servers do not start without approval.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from aiq_tui.commands.common import EXIT_OK, EXIT_USAGE, option, print_json


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    trust = subparsers.add_parser(
        "trust",
        parents=parents,
        help="trust a project folder (its skills, .mcp.json), or list decisions",
        description=(
            "Trust the files of a project folder (default: the current directory) and every folder "
            "below it (a decision about ~ or / covers that folder only). Until then its skills (.agents/skills, .aiq/skills, .claude/skills) still match and instruct, "
            "but their allowed-tools pre-approve nothing, their scripts always ask, and its .mcp.json "
            "servers need approval. Decisions are kept in the config home (config/trusted-projects.json)."
        ),
    )
    trust.add_argument(
        "path",
        metavar="PATH",
        nargs="?",
        default=".",
        help="project folder (default: .)",
    )
    what = trust.add_mutually_exclusive_group()
    what.add_argument(
        "--untrust",
        action="store_true",
        help="record the folder as untrusted (the TUI stops asking about it)",
    )
    what.add_argument(
        "--forget",
        action="store_true",
        help="forget the folder's own decision (the TUI asks again on the next start)",
    )
    what.add_argument(
        "--list", action="store_true", help="list every recorded decision"
    )
    what.add_argument(
        "--status", action="store_true", help="show the decision that applies to PATH"
    )
    trust.add_argument("--json", action="store_true", help="machine-readable output")
    trust.set_defaults(handler=_trust)


def _trust(args: argparse.Namespace) -> int:
    from pathlib import Path

    from aiq_tui.locations import resolve_home
    from aiq_tui.trust import (
        TrustFileError,
        TrustLevel,
        decision_for,
        load_decisions,
        record,
    )

    home = resolve_home(option(args, "home"))
    home.ensure()
    try:
        decisions = load_decisions(home)
    except TrustFileError as exc:
        print(f"aiq-tui trust: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if option(args, "list"):
        rows = [
            {"path": str(path), "level": level.value}
            for path, level in sorted(decisions.items())
        ]
        if option(args, "json"):
            print_json({"projects": rows})
        elif not rows:
            print("no project decisions recorded; `aiq-tui trust PATH` trusts one")
        else:
            for row in rows:
                print(f"{row['level']:<10} {row['path']}")
        return EXIT_OK
    path = Path(args.path).expanduser()
    if not path.is_dir():
        print(
            f"aiq-tui trust: {args.path} is not a folder; give the project folder to decide on",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if not option(args, "status"):
        level = (
            None
            if option(args, "forget")
            else TrustLevel.UNTRUSTED
            if option(args, "untrust")
            else TrustLevel.TRUSTED
        )
        record(home, path, level)
        decisions = load_decisions(home)
    decision = decision_for(decisions, path)
    data = {
        "path": str(decision.project),
        "level": decision.level.value if decision.level else "undecided",
        "decided_at": str(decision.decided_at) if decision.decided_at else None,
    }
    if option(args, "json"):
        print_json(data)
    else:
        where = (
            ""
            if decision.decided_at in (None, decision.project)
            else f" (from {decision.decided_at})"
        )
        print(f"{data['level']}: {decision.project}{where}")
    return EXIT_OK
