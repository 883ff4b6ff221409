"""``aiq-tui replay SESSION``: what the workbench showed at each turn of a saved session.

SESSION is a session id (or a unique prefix, see ``aiq-tui sessions list``) or the path of a
session file. Text by default, ``--json`` for tests and CI, ``--svg DIR`` for one screenshot
per turn. Sessions saved before replay existed replay their conversation only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiq_tui.commands.common import (
    EXIT_OK,
    EXIT_USAGE,
    make_console,
    open_workspace,
    option,
    print_json,
    session_exit_code,
)
from aiq_tui.figures import percent

if TYPE_CHECKING:
    from aiq_tui.agent.sessions import Session

LEGACY_NOTE = "recorded before replay: conversation only"
SVG_SIZE = (120, 36)


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    parser = subparsers.add_parser(
        "replay",
        parents=parents,
        help="replay a saved session turn by turn",
        description=(
            "Show what the workbench showed at each turn of a saved session: the skills matched with "
            "scores, skill loads and unloads with reasons, the budget, compressions and tool calls. "
            "SESSION is an id, a unique id prefix, or a session file. Exit 1 when the session cannot "
            "be read, 2 on usage errors."
        ),
    )
    parser.add_argument(
        "session",
        metavar="SESSION",
        help="session id, unique prefix, or path to session_*.json",
    )
    parser.add_argument(
        "--turn", type=int, metavar="N", help="only the state after turn N (1-based)"
    )
    parser.add_argument(
        "--event",
        type=int,
        metavar="K",
        help="with --turn: the state after the K-th event of that turn (counted from 1)",
    )
    parser.add_argument(
        "--json", action="store_true", help="the state after each turn as JSON"
    )
    parser.add_argument(
        "--svg",
        metavar="DIR",
        help="write one screenshot per turn (turn-NN.svg) into DIR",
    )
    parser.add_argument(
        "--captions",
        action="store_true",
        help="one caption per step (what happened and why, as the step-through /demo shows it), "
        "then a summary of the session; with --turn, that turn's steps only",
    )
    parser.set_defaults(handler=_replay_or_captions)


def _replay_or_captions(args: argparse.Namespace) -> int:
    return _captions(args) if option(args, "captions") else _replay(args)


def _captions(args: argparse.Namespace) -> int:
    """``--captions``: each step of the session as ``turn.event  caption``, then the summary.
    Captions read the whole session before a step (a budget or a skill seen turns earlier)."""
    from aiq_tui.replay.captions import demo_summary, turn_captions

    session = load_session(args)
    if isinstance(session, int):
        return session
    turns, note = turns_of(session)
    only = option(args, "turn")
    if only is not None and not 1 <= only <= len(turns):
        print(
            f"aiq-tui replay: --turn {only} is out of range; session {session.id} has {len(turns)} turn(s)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    console = make_console(args)
    console.print(
        f"session {session.id} · {session.display_title} · {len(turns)} turn(s)"
        + (f" · {note}" if note else ""),
        markup=False,
        soft_wrap=True,
    )
    for number, texts in enumerate(turn_captions(turns), 1):
        for index, text in enumerate(texts, 1):
            if text is not None and (only is None or number == only):
                console.print(
                    f"{number:>3}.{index:<3} {text}", markup=False, soft_wrap=True
                )
    if only is None:
        events = (
            data
            for turn in turns
            for data in turn.get("events", ())
            if isinstance(data, dict)
        )
        console.print(
            "\n" + demo_summary(events, session.id), markup=False, soft_wrap=True
        )
    return EXIT_OK


def load_session(args: argparse.Namespace) -> Session | int:
    """The session SESSION names, or the exit code after saying why on stderr: 2 for an unusable
    config or an id that names no single session, 1 for a file that cannot be read (as
    ``sessions show`` does)."""
    from aiq_tui.agent.sessions import SessionError, SessionStore, read_session_file

    given = Path(args.session)
    try:
        if given.suffix == ".json" or (
            given.exists() and not given.is_dir()
        ):  # a FIFO too: refused, not waited on
            from aiq_tui.config import ConfigError, load_config
            from aiq_tui.locations import resolve_home

            try:
                limits = load_config(resolve_home(option(args, "home"))).sessions
            except ConfigError as exc:
                print(f"aiq-tui: {exc}", file=sys.stderr)
                return EXIT_USAGE
            return read_session_file(given, limits)
        workspace = open_workspace(args)
        if workspace is None:
            return EXIT_USAGE
        return SessionStore(
            workspace.home.sessions_dir, limits=workspace.config.sessions
        ).load(args.session)
    except SessionError as exc:
        print(f"aiq-tui replay: {exc}", file=sys.stderr)
        return session_exit_code(exc)


def turns_of(session: Session) -> tuple[list[dict[str, Any]], str]:
    """The recorded turns, or turns rebuilt from the messages of an older session (with a note)."""
    from aiq_tui.replay.state import turns_from_messages

    if session.replay:
        return session.replay, ""
    return turns_from_messages(
        session.messages
    ), LEGACY_NOTE if session.messages else ""


def _replay(args: argparse.Namespace) -> int:
    from aiq_tui.replay.state import event_count, state_at, turn_states

    turn = option(args, "turn")
    event = option(args, "event")
    if event is not None and turn is None:
        print(
            "aiq-tui replay: --event needs --turn (the event is counted within that turn)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    session = load_session(args)
    if isinstance(session, int):
        return session
    turns, note = turns_of(session)
    if turn is not None and not 1 <= turn <= len(turns):
        print(
            f"aiq-tui replay: --turn {turn} is out of range; session {session.id} has {len(turns)} turn(s)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if event is not None and not 1 <= event <= event_count(turns, turn):
        print(
            f"aiq-tui replay: --event {event} is out of range; turn {turn} has "
            f"{event_count(turns, turn)} event(s)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if option(args, "svg"):
        return _svg(Path(args.svg), session, turns, note, turn)
    states = [state_at(turns, turn, event)] if turn is not None else turn_states(turns)
    if option(args, "json"):
        print_json(
            {
                "session": session.id,
                "title": session.display_title,
                "turns": len(turns),
                "note": note,
                "states": [state.to_json() for state in states],
            }
        )
        return EXIT_OK
    console = make_console(args)
    console.print(
        f"session {session.id} · {session.display_title} · {len(turns)} turn(s)"
        + (f" · {note}" if note else ""),
        markup=False,
        soft_wrap=True,
    )
    for state in states:
        events = turns[state.turn - 1].get("events", ())[:event]
        for line in turn_lines(state.turn, events, state):
            console.print(line, markup=False, soft_wrap=True)
    return EXIT_OK


def turn_lines(number: int, events: Any, state: Any) -> list[str]:
    """A readable account of one turn: what was asked, matched, loaded, spent, run and answered.
    An event in an unreadable shape (a session file is input) is named, never a traceback."""
    lines: list[str] = []
    for data in events:
        try:
            lines += _event_lines(number, data)
        except (
            TypeError,
            ValueError,
            AttributeError,
            KeyError,
            IndexError,
            OverflowError,
        ) as exc:
            kind = data.get("type") if isinstance(data, dict) else type(data).__name__
            lines.append(
                f"  (skipped a {kind or 'typeless'} event in an unreadable shape: {type(exc).__name__})"
            )
    lines += _summary_lines(state)
    return lines


def _event_lines(number: int, data: Any) -> list[str]:
    """The line(s) one recorded event gives in the account of its turn."""
    lines: list[str] = []
    kind = data.get("type")
    if kind == "turn_started":
        lines.append(f"\nturn {number}: {data.get('text', '')}")
    elif kind == "skills_matched":
        top = ", ".join(
            f"{m['name']} {m['score']:.2f} ({m['confidence']:.2f})"
            for m in data.get("matches", [])[:3]
        )
        lines.append(
            f"  matched {data.get('total', 0)} of {data.get('considered', 0)}: {top or 'nothing'}"
        )
    elif kind == "skill_state_changed":
        lines.append(
            f"  skill {data.get('name')}: {data.get('old') or 'none'} → {data.get('new') or 'evicted'} "
            f"({data.get('phase')}, {data.get('tokens', 0)} tokens) — {data.get('reason', '')}"
        )
    elif kind == "compression_applied":
        lines.append(
            f"  compressed at {data.get('stage')}%: {data.get('step')} "
            f"({data.get('before', 0):,} → {data.get('after', 0):,})"
        )
    elif kind == "tool_call_finished":
        lines.append(
            f"  tool {data.get('name')}: {'ok' if data.get('ok') else 'failed'} in "
            f"{float(data.get('duration_s', 0)):.2f} s — {data.get('summary', '')}"
        )
    elif kind == "tool_call_denied":
        lines.append(f"  tool {data.get('name')}: denied — {data.get('reason', '')}")
    elif kind == "tool_call_cancelled":
        lines.append(f"  tool {data.get('name')}: {data.get('reason', 'cancelled')}")
    elif kind == "error_raised":
        lines.append(f"  error: {data.get('message', '')}")
    return lines


def _summary_lines(state: Any) -> list[str]:
    lines: list[str] = []
    if state.budget:
        parts = state.budget.parts
        total, window = state.budget.total, state.budget.window
        share = f" ({percent(total, window)}%)" if window else ""
        lines.append(
            f"  budget {total:,} / {window:,}{share}: "
            + " · ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in parts.items())
        )
    answer = turn_answer(state.conversation)
    if answer:
        flat = " ".join(answer.split())
        lines.append(f"  answer: {flat if len(flat) <= 160 else flat[:159] + '…'}")
    return lines


def turn_answer(conversation: Any) -> str:
    """The answer of the last turn in ``conversation``: after its question, or "" (a refused or
    failed turn has none of its own — never the previous turn's)."""
    start = max(
        (i for i, entry in enumerate(conversation) if entry.kind == "user"), default=-1
    )
    return next(
        (e.text for e in reversed(conversation[start + 1 :]) if e.kind == "answer"), ""
    )


def _svg(
    directory: Path,
    session: Session,
    turns: list[dict[str, Any]],
    note: str,
    only: int | None,
) -> int:
    import asyncio

    from aiq_tui.ui.screens.replay import ReplayApp

    directory.mkdir(parents=True, exist_ok=True)
    wanted = [only] if only is not None else list(range(1, len(turns) + 1))

    async def capture() -> list[Path]:
        app = ReplayApp(
            turns, session.display_title, turn=wanted[0] if wanted else 0, note=note
        )
        written: list[Path] = []
        async with app.run_test(size=SVG_SIZE) as pilot:
            await pilot.pause()
            for number in wanted:
                await app.replay.go(number)
                await pilot.pause()
                written.append(
                    Path(
                        app.save_screenshot(
                            f"turn-{number:02d}.svg", path=str(directory)
                        )
                    )
                )
        return written

    for path in asyncio.run(capture()):
        print(path)
    return EXIT_OK
