"""``aiq-tui`` with no command: build the engine from flags and config, run the app.

Config errors are printed on stderr with exit code 2 (no traceback). Quitting — Ctrl+Q,
or Ctrl+C which first cancels a running turn — never loses the session: the engine saves
after every turn and the app lets a cancelled turn finish saving before it exits.
An unhandled error exits 1 and names the crash report written under the config home.

Start-up is measured (``make bench``, in a pseudo-terminal) from process start to the first
frame and to the skills listed, so everything on this path imports only what they need:
screens other than the main one, the engine, the tokenizer, HTTP and SQL code load later,
on demand or in background workers.
"""

from __future__ import annotations

import argparse
import gc
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from aiq_tui.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    option,
    prepare_workspace,
)

if TYPE_CHECKING:
    from aiq_tui.agent.engine import Engine
    from aiq_tui.skills.skill_view import SkillView
    from aiq_tui.telemetry import Telemetry
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.workspace import Workspace


def exit_code(app: Any, result: object) -> int:
    """1 after a crash (Textual's run() returns None then), else what the app exited with."""
    if getattr(app, "crash", None) is not None or (app.return_code or 0) != 0:
        return int(app.return_code or EXIT_FAILED)
    return int(result) if isinstance(result, int) else EXIT_OK


def create_app(
    args: argparse.Namespace,
    *,
    watch: bool = True,
    telemetry: list[Telemetry] | None = None,
) -> AiqApp | None:
    """The app the options describe, or None after printing why not (exit 2).

    When an OTLP endpoint is configured, the engine's turns are exported (issue 26): started
    with the engine, behind the first frame, and appended to ``telemetry`` for the caller to
    close; problems show as notices in the app.

    Only the config is read before the app starts (a broken one exits 2 before any screen
    shows). A thread started here reads the catalog (a few ms with its cache) while the UI's
    modules import, and the skills pane lists it, usually in the first frame; the tools and the engine,
    whose imports are most of the start's cost, are built behind the frame
    (:meth:`AiqApp.starting`). The cyclic garbage collector is paused until then (the app
    resumes it): start-up allocates a long-lived heap — modules, config, the catalog's
    metadata — and collections in between would only rescan it (with 10,000 skills, a few
    hundred ms).
    """
    gc.disable()
    try:
        start = prepare_workspace(args)
        if start is None:
            gc.enable()
            return None
        skills_dirs = tuple(option(args, "skills_dir") or ())
        cwd = option(args, "cwd")
        provider = option(args, "provider")

        workspaces: list[Workspace] = []

        def list_skills() -> list[SkillView]:
            # The catalog alone (a few ms with its cache): the skills pane lists it before the
            # engine's modules (~0.2 s of imports) have loaded.
            from aiq_tui.agent.views import starting_views
            from aiq_tui.workspace import Workspace

            workspaces.append(Workspace.complete(start, skills_dirs, cwd))
            return starting_views(workspaces[-1])

        def build_engine() -> Engine:
            from aiq_tui.agent.engine import Engine
            from aiq_tui.telemetry import attach_telemetry
            from aiq_tui.workspace import Workspace

            workspace = (
                workspaces.pop()
                if workspaces
                else Workspace.complete(start, skills_dirs, cwd)
            )
            engine = Engine.create(workspace, provider, defer_tokenizer=True)
            exporting = attach_telemetry(
                engine, say=lambda note: _notice(app, note), live_problems=True
            )
            if exporting is not None and telemetry is not None:
                telemetry.append(exporting)
            return engine

        # Read beside the UI's imports and the first frame (the GIL lets this thread run while
        # the main one imports, lays out and writes), so the list is usually ready with the frame.
        listed: Future[list[SkillView]] = Future()

        def read_catalog() -> None:
            try:
                listed.set_result(list_skills())
            except BaseException as exc:
                listed.set_exception(exc)

        # Only from a catalog cache: a first start parses every SKILL.md (seconds for 10,000),
        # which beside the imports would hold the first frame up; then the app's start worker
        # reads the catalog from mount on instead.
        listing: Callable[[], list[SkillView]] = list_skills
        read_ahead: Future[list[SkillView]] | None = None
        if start.home.catalog_cache.is_file():
            threading.Thread(
                target=read_catalog, name="aiq-catalog", daemon=True
            ).start()
            listing, read_ahead = listed.result, listed

        from aiq_tui.ui.app import AiqApp

        app = AiqApp.starting(
            start.config,
            start.home,
            build_engine,
            watch=watch,
            listing=listing,
            read_ahead=read_ahead,
        )
        return app
    except BaseException:
        gc.enable()
        raise


def _notice(app: AiqApp, note: str) -> None:
    """A notice in the app, from any thread, never blocking the caller (telemetry reports from
    the exporter's thread, which must not wait on the screen); on stderr once the app is gone."""
    if not app.is_running:
        print(f"aiq-tui: {note}", file=sys.stderr)
        return

    def show() -> None:
        try:
            app.call_from_thread(
                app.notify,
                note,
                title="Telemetry",
                severity="warning",
                timeout=10,
                markup=False,
            )
        except RuntimeError:  # the app ended meanwhile
            pass

    threading.Thread(target=show, name="aiq-notice", daemon=True).start()


def run_tui(args: argparse.Namespace) -> int:
    telemetry: list[Telemetry] = []
    app = create_app(args, telemetry=telemetry)
    if app is None:
        return EXIT_USAGE
    try:
        result = app.run()
    finally:
        for (
            exporting
        ) in telemetry:  # spans still queued: delivered within the flush timeout
            note = exporting.close()
            if note:
                print(f"aiq-tui: {note}", file=sys.stderr)
    if app.start_error is not None:
        print(f"aiq-tui: {app.start_error}", file=sys.stderr)
        return EXIT_USAGE
    if app.crash is not None:
        from aiq_tui.ui.crash import print_crash_note

        print_crash_note(*app.crash)
    return exit_code(app, result)
