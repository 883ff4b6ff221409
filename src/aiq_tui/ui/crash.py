"""Crash reports: an unhandled error leaves a file the user can attach to a bug report.

Like harlequin, the workbench keeps the full traceback in a file under the config home
(``crash/``) and prints only a short note and the file's path after the terminal is restored.
The process then exits 1, never 0. Keys are never written: the report holds versions, the
command line and the traceback, not the environment.
"""

from __future__ import annotations

import platform
import sys
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

CRASH_DIR = "crash"
KEEP_REPORTS = 20  # older reports are removed so a crash loop cannot fill the disk


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


def report_text(error: BaseException, when: datetime) -> str:
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return "\n".join(
        [
            "aiq-tui crash report",
            f"time: {when.isoformat(timespec='seconds')}",
            f"aiq-tui: {_version('aiq-tui')}  textual: {_version('textual')}  rich: {_version('rich')}",
            f"python: {platform.python_version()}  platform: {platform.platform()}",
            f"command: {' '.join(sys.argv)}",
            "",
            trace,
        ]
    )


def write_crash_report(
    home_root: Path, error: BaseException, *, now: datetime | None = None
) -> Path | None:
    """Write the report to ``<home>/crash/crash-<time>.txt``; None when it cannot be written
    (a crash handler must never raise a second error)."""
    when = now or datetime.now(UTC)
    folder = home_root / CRASH_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
        stamp = when.strftime("%Y%m%d-%H%M%S")
        path = folder / f"crash-{stamp}.txt"
        counter = 1
        while path.exists():
            counter += 1
            path = folder / f"crash-{stamp}-{counter}.txt"
        path.write_text(report_text(error, when), encoding="utf-8")
        for old in sorted(folder.glob("crash-*.txt"))[:-KEEP_REPORTS]:
            old.unlink(missing_ok=True)
        return path
    except OSError:
        return None


def crash_note(error: BaseException, path: Path | None) -> str:
    """The lines printed on stderr after the app has left the screen."""
    where = (
        f"A crash report was written to {path}"
        if path
        else "The crash report could not be written"
    )
    return (
        f"aiq-tui stopped on an unexpected error: {type(error).__name__}: {error}\n"
        f"{where} — please attach it to a bug report. Your session was saved after the last turn."
    )


def print_crash_note(
    error: BaseException, path: Path | None, stream: TextIO | None = None
) -> None:
    print(crash_note(error, path), file=stream or sys.stderr)
