"""What every subcommand shares: global options, exit codes, a console that honours NO_COLOR."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from aiq_tui.agent.engine import Engine
    from aiq_tui.workspace import Workspace, WorkspaceStart

EXIT_OK = 0
EXIT_FAILED = 1  # a check failed (invalid skill, refused prompt, model error)
EXIT_USAGE = 2  # bad arguments, unknown names, unusable config, missing paths


def add_global_options(parser: argparse.ArgumentParser) -> None:
    """Options accepted both before and after the subcommand name."""
    parser.add_argument(
        "--home",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="config home (default: $AIQ_HOME or ~/.aiqconfig)",
    )
    parser.add_argument(
        "--skills-dir",
        metavar="DIR",
        action="append",
        default=argparse.SUPPRESS,
        help="extra skills directory, highest precedence (repeatable)",
    )
    parser.add_argument(
        "--cwd",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="project directory: tools and scripts run in it, project skills are found under it "
        "(default: config tools.cwd, else the current directory)",
    )
    parser.add_argument(
        "--create",
        action="store_true",
        default=argparse.SUPPRESS,
        help="set up a new config home at --home DIR when it does not exist yet",
    )
    parser.add_argument(
        "--provider",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help="LLM provider, a name under llm.providers (default: config llm.provider); "
        "it also sets the context window",
    )
    parser.add_argument(
        "--model",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help="model name for this run on the chosen provider (default: the provider's model; "
        "config.yaml is not changed)",
    )
    parser.add_argument(
        "--no-color",
        action="store_true",
        default=argparse.SUPPRESS,
        help="plain output without colour (also: NO_COLOR=1)",
    )


def session_exit_code(exc: Exception) -> int:
    """The exit code for a session that cannot be used: an id that names no single session is
    a usage error; a session file that exists but cannot be read (or is busy) is a failure."""
    from aiq_tui.agent.sessions import SessionNameError

    return EXIT_USAGE if isinstance(exc, SessionNameError) else EXIT_FAILED


def option(args: argparse.Namespace, name: str, default: Any = None) -> Any:
    return getattr(args, name, default)


def global_path_problem(args: argparse.Namespace) -> str | None:
    """Why ``--home``, ``--skills-dir`` or ``--cwd`` cannot be used as given (None when they can).

    A ``--home`` that does not exist is most often a typo: it is only set up with ``--create``,
    never silently. A ``--skills-dir`` that does not exist would find no skills; say so.
    """
    from pathlib import Path

    home = option(args, "home")
    if home and not Path(home).expanduser().exists() and not option(args, "create"):
        return (
            f"config home {home} does not exist; check the path, or add --create to set up "
            "a new config home there"
        )
    if (
        home
        and Path(home).expanduser().exists()
        and not Path(home).expanduser().is_dir()
    ):
        return f"config home {home} is not a directory"
    for folder in option(args, "skills_dir") or ():
        path = Path(folder).expanduser()
        if not path.is_dir():
            what = "is not a directory" if path.exists() else "does not exist"
            return (
                f"--skills-dir {folder} {what}; give a folder that holds skill folders"
            )
    cwd = option(args, "cwd")
    if cwd is not None and not Path(cwd).expanduser().is_dir():
        what = (
            "is not a directory"
            if Path(cwd).expanduser().exists()
            else "does not exist"
        )
        return f"--cwd {cwd} {what}; give the project folder tools and scripts should work in"
    return None


def make_console(args: argparse.Namespace, *, stderr: bool = False) -> Console:
    from aiq_tui.commands.safe_console import (
        SafeConsole,
    )  # rich: not on the path of --json output
    from aiq_tui.commands.terminal_output import raw_stream

    no_color = bool(option(args, "no_color", False)) or "NO_COLOR" in os.environ
    # Content is made printable by the console itself; its own styling goes to the stream
    # under the command's sanitised one (terminal_output.sanitised_streams).
    console = SafeConsole(
        file=raw_stream(sys.stderr if stderr else sys.stdout),
        no_color=no_color,
        highlight=False,
        soft_wrap=False,
    )
    # Into a pipe or a file, a line stays one line (grep, logs); tables still fit the width.
    console.soft_wrap = not console.is_terminal
    console.on_broken_pipe = _reader_went_away  # type: ignore[method-assign]
    return console


def survive_closed_stdout(sink: Callable[[Any], None]) -> Callable[[Any], None]:
    """``sink`` for a streaming command: when the reader of stdout goes away mid-turn
    (``aiq-tui ask … | head -1``), stdout is pointed at /dev/null and the turn goes on to its
    end (and is saved) instead of failing on the next write."""

    def safe(event: Any) -> None:
        try:
            sink(event)
        except BrokenPipeError:
            stdout_to_devnull()

    return safe


def stdout_to_devnull() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _reader_went_away() -> None:
    # rich would exit 1 here; a closed pipe (``| head -1``) is not a failure: cli.main
    # handles it once, for every kind of output, and exits 0.
    raise BrokenPipeError


def _escape_surrogates(text: str) -> str:
    # A lone surrogate (a model can produce one, a file name can hold one) cannot be written
    # as UTF-8; inside JSON strings its \\uXXXX escape is valid and reads back as the same
    # character. Only called when encoding failed: a regex pass over a 4 MB listing took 20 ms.
    return re.sub(
        "[\ud800-\udfff]", lambda match: f"\\u{ord(match.group(0)):04x}", text
    )


def print_json(data: Any) -> None:
    _write_utf8(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


class EncodedRows(list[str]):
    """Items that are JSON text already, for :func:`print_json_rows`."""


def json_encoder() -> json.JSONEncoder:
    """The encoder of every ``--json`` output (print_json adds ``indent=2``)."""
    return json.JSONEncoder(ensure_ascii=False, default=str)


def print_json_rows(data: dict[str, Any]) -> None:
    """An object of lists, one list item per line: readable, and fast for 10,000 skills —
    json's C encoder runs only without ``indent`` (``print_json`` on a 10,000-skill listing
    took seconds), and one encoder serves every item (``json.dumps`` with options builds a
    new one per call). A list given as :class:`EncodedRows` is written as it is; a value
    that is not a list (an object, say) is written whole on its key's line."""
    encode = json_encoder().encode
    pieces = ["{\n"]
    for index, (key, items) in enumerate(data.items()):
        if index:
            pieces.append(",\n")
        if not isinstance(items, list):
            pieces.append(f"  {json.dumps(key)}: {encode(items)}")
        elif not items:
            pieces.append(f"  {json.dumps(key)}: []")
        else:
            pieces += (
                f"  {json.dumps(key)}: [\n    ",
                ",\n    ".join(
                    items if isinstance(items, EncodedRows) else map(encode, items)
                ),
                "\n  ]",
            )
    pieces.append("\n}\n")
    _write_utf8(*pieces)  # not joined first: that copied a 4 MB listing once more


def _write_utf8(*texts: str) -> None:
    """Every ``--json`` output goes out here, in order: each text encoded once, lone
    surrogates escaped (a 4 MB listing encoded here and again by ``sys.stdout`` cost a tenth
    of ``skills list``), and C1 controls, which ``json.dumps`` leaves raw, escaped
    (:func:`~aiq_tui.terminal_text.json_safe`). JSON is UTF-8."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (redirect_stdout to a StringIO, say)
        for text in texts:
            sys.stdout.write(_utf8(text).decode("utf-8"))
        return
    sys.stdout.flush()  # anything written as text before goes first
    for text in texts:
        buffer.write(_utf8(text))


def _utf8(text: str) -> bytes:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = _escape_surrogates(text).encode("utf-8")
    # C1 controls (UTF-8 C2 80–C2 9F) and U+2028/U+2029: a byte search finds the rare piece
    # that may hold one (a regex per piece of a 10,000-skill listing cost 10 ms).
    if b"\xc2" in data or b"\xe2\x80\xa8" in data or b"\xe2\x80\xa9" in data:
        from aiq_tui.terminal_text import json_safe

        data = json_safe(data.decode("utf-8")).encode("utf-8")
    return data


def print_json_line(data: Any) -> None:
    _write_utf8(json.dumps(data, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def open_workspace(args: argparse.Namespace) -> Workspace | None:
    """The workspace the global options name; on an unusable config, say why and return None
    (the caller exits with :data:`EXIT_USAGE`)."""
    from aiq_tui.config import ConfigError
    from aiq_tui.workspace import Workspace

    start = prepare_workspace(args)
    if start is None:
        return None
    try:
        return Workspace.complete(
            start, tuple(option(args, "skills_dir") or ()), option(args, "cwd")
        )
    except ConfigError as exc:  # sources.yaml
        print(f"aiq-tui: {exc}", file=sys.stderr)
        return None


def prepare_workspace(args: argparse.Namespace) -> WorkspaceStart | None:
    """Home, layout and the validated config with ``--provider`` / ``--model`` applied — the
    cheap half of :func:`open_workspace`; on an unusable config or an unknown provider, say
    why and return None (the caller exits with :data:`EXIT_USAGE`)."""
    from aiq_tui.config import ConfigError
    from aiq_tui.workspace import Workspace

    try:
        start = Workspace.prepare(home_flag=option(args, "home"))
    except ConfigError as exc:
        print(f"aiq-tui: {exc}", file=sys.stderr)
        return None
    config = start.config
    provider = option(args, "provider")
    if provider:
        # --provider is this run's active provider: every command (and the window it budgets
        # against) follows it, exactly as if config.yaml named it.
        known = config.llm.providers
        if provider not in known:
            print(
                f"aiq-tui: unknown provider {provider!r}; known: {', '.join(sorted(known))} "
                "(define more under llm.providers in config.yaml)",
                file=sys.stderr,
            )
            return None
        config.llm.provider = provider
    model = option(args, "model")
    if (
        model
    ):  # --model: this run only, on the chosen provider (config.yaml is not changed)
        config.llm.active().model = model
    return start


def open_engine(args: argparse.Namespace, **engine_options: Any) -> Engine | None:
    """An engine on the workspace and ``--provider`` the options name; on an unusable config
    or an unknown provider, say why and return None (the caller exits with :data:`EXIT_USAGE`)."""
    workspace = open_workspace(args)
    if workspace is None:
        return None
    from aiq_tui.agent.engine import Engine
    from aiq_tui.trust import untrusted_notice

    # Headless, nobody answers a trust dialog: an undecided project is untrusted; say so once.
    notice = untrusted_notice(
        workspace.home, workspace.cwd, workspace.config.skills.project_dirs
    )
    if notice:
        print(notice, file=sys.stderr)

    try:
        return Engine.create(workspace, option(args, "provider"), **engine_options)
    except (
        ValueError
    ) as exc:  # an unknown --provider name; the message lists the known ones
        print(f"aiq-tui: {exc}", file=sys.stderr)
        return None


def window_label(args: argparse.Namespace, config: Any) -> str:
    """Where the budget's window comes from: ``--window``, else the active provider's
    (``200,000 (claude-sonnet-4-5 · known model)``)."""
    window = option(args, "window")
    if window:
        return f"{window:,} (--window)"
    from aiq_tui.llm.windows import resolve_window

    return resolve_window(config).label


def run_exported(engine: Engine, main: Callable[[], Coroutine[Any, Any, int]]) -> int:
    """Run a headless command's event loop with its turns exported as telemetry is configured
    (None unless an OTLP endpoint is set, or OTEL_TRACES_EXPORTER=console: spans on stderr);
    the export's closing note, if any, goes to stderr. ``ask`` and ``demo`` share it."""
    import asyncio  # only commands that run a loop pay for it (skills list --json does not)

    from aiq_tui.telemetry import attach_telemetry

    def say(note: str) -> None:
        print(f"aiq-tui: {note}", file=sys.stderr)

    telemetry = attach_telemetry(engine, say=say, console=sys.stderr)
    try:
        return asyncio.run(main())
    finally:
        note = (
            telemetry.close() if telemetry is not None else None
        )  # bounded: telemetry.flush_timeout_seconds
        if note:
            say(note)
