"""``aiq-tui demo``: the TUI's ``/demo`` story played headless on the offline demo model, one
caption per step as it happens, then a summary of what happened and how to replay it.

The story (:mod:`aiq_tui.llm.demo_script`) and the captions (:mod:`aiq_tui.replay.captions`)
are the ones the workbench shows; the session is saved like any other, so
``aiq-tui replay ID --captions`` tells it again from the file.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from aiq_tui.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    make_console,
    open_engine,
    option,
    print_json_line,
    run_exported,
    survive_closed_stdout,
)


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    parser = subparsers.add_parser(
        "demo",
        parents=parents,
        help="play the /demo story headless, one caption per step",
        description=(
            "Play the /demo story on the offline demo model and its 8,192-token window: orders "
            "with the sql-explorer skill, a report of them saved with data-report (which climbs "
            "from brief to full), then a command; the rows fill the window so that compression "
            "runs at 80, 90 and 95 % within the second request, each stage in its own band. Each step prints one caption saying what happened and why (skills "
            "loaded, evicted or kept, the budget, each compression stage); a summary ends it, with "
            "how to replay the saved session. The write and the command ask for approval: refused "
            "unless --yes. Exit 1 when a turn failed. With OTEL_EXPORTER_OTLP_ENDPOINT set (or "
            "telemetry: in config.yaml) each turn is also exported as an OpenTelemetry trace."
        ),
    )
    approval = parser.add_mutually_exclusive_group()
    approval.add_argument(
        "--yes", action="store_true", help="approve the report's write and the command"
    )
    approval.add_argument(
        "--deny-all",
        action="store_true",
        help="refuse every tool call that asks (the default)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="one JSON line per step ({turn, event, type, caption}), then the summary",
    )
    parser.set_defaults(handler=_demo)


def _demo(args: argparse.Namespace) -> int:
    if option(args, "provider") not in (None, "demo"):
        print(
            "aiq-tui demo: the story is written for the offline demo model; drop --provider",
            file=sys.stderr,
        )
        return EXIT_USAGE
    args.provider = (
        "demo"  # whatever config.yaml makes the default: the story is the demo model's
    )
    engine = open_engine(args, demo_delay=0.0)
    if engine is None:
        return EXIT_USAGE
    # Exported like ask's turns when telemetry is configured (the story is a good first trace).
    return run_exported(engine, lambda: _play(args, engine))


async def _play(args: argparse.Namespace, engine: Any) -> int:
    from aiq_tui.events import ErrorRaised, Event
    from aiq_tui.llm.demo import DemoScript
    from aiq_tui.replay.captions import caption, demo_summary, record_of
    from aiq_tui.tools.registry import approve_all, deny_all

    as_json = bool(option(args, "json"))
    console = make_console(args)
    seen: list[Event] = []
    turn, index, failed = 0, 0, []
    last = [""]

    def sink(event: Event) -> None:
        nonlocal turn, index
        data = record_of(event)
        if data is None:
            return
        kind = data.get("type")
        if kind == "turn_started":
            turn, index = turn + 1, 0
        # Counted as a session records them (streamed fragments joined), so that a step here is
        # ``aiq-tui replay ID --turn N --event K`` there.
        if not (kind == "token_streamed" and last[0] == "token_streamed"):
            index += 1
        last[0] = str(kind)
        text = caption(event, seen)
        seen.append(event)
        if isinstance(event, ErrorRaised):
            failed.append(event.message)
        if text is None:
            return
        if as_json:
            print_json_line(
                {
                    "turn": turn,
                    "event": index,
                    "type": data.get("type"),
                    "caption": text,
                }
            )
        else:
            console.print(f"{turn:>3}.{index:<3} {text}", markup=False, soft_wrap=True)

    engine.approver = approve_all if option(args, "yes") else deny_all
    script = DemoScript.for_engine(engine)
    if script.window_note:
        if as_json:
            print_json_line({"type": "note", "text": script.window_note})
        else:
            console.print(script.window_note, markup=False, soft_wrap=True)
    engine.subscribe(survive_closed_stdout(sink))
    try:
        while (text := script.next_turn(engine.breakdown.fraction)) is not None:
            await engine.send(text)
    finally:
        script.close()
        await engine.aclose()
    summary = demo_summary(seen, engine.session.id)
    if as_json:
        print_json_line(
            {
                "type": "summary",
                "session": engine.session.id,
                "stages": script.fired,
                "text": summary,
            }
        )
    else:
        console.print("\n" + summary, markup=False, soft_wrap=True)
    return EXIT_FAILED if failed else EXIT_OK
