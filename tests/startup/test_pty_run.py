"""bench.pty_run, which `make bench` times start-up with: a program in a pseudo-terminal of a
given size, timed to text it draws (escape sequences and all), then sent ctrl+q."""

from __future__ import annotations

import sys
import textwrap

from bench.pty_run import run_in_pty, visible_text

PROGRAM = textwrap.dedent(
    """
    import os, sys, tty
    tty.setraw(0)
    size = os.get_terminal_size()
    # What a TUI writes: a colour, a cursor move, the number in a style of its own.
    sys.stdout.write(f"\\x1b[2J\\x1b[1;1H\\x1b[1mInactive\\x1b[0m (\\x1b[32m{size.columns * size.lines}\\x1b[0m)")
    sys.stdout.flush()
    sys.exit(0 if sys.stdin.buffer.read(1) == b"\\x11" else 3)
    """
)


def test_visible_text_drops_escape_sequences() -> None:
    raw = (
        b"\x1b[?1049h\x1b]0;title\x07\x1b[3;4H\x1b[38;2;1;2;3mInactive (9)\x1b[0m\x1b(B"
    )
    assert visible_text(raw) == "Inactive (9)"


def test_a_program_in_the_pty_is_timed_to_its_marker_and_sees_the_size() -> None:
    run = run_in_pty(
        [sys.executable, "-c", PROGRAM],
        {"listed": r"Inactive \((\d+)\)"},
        size=(100, 30),
        timeout=60,
    )
    assert run.groups["listed"] == (
        "3000",
    )  # 100 columns × 30 rows, read through the styles
    assert 0 < run.seen_s["listed"] < 60
    assert run.cpu_s["listed"] >= 0
    assert run.peak_rss_mb > 0


def test_a_program_that_exits_before_its_marker_is_reported() -> None:
    try:
        run_in_pty(
            [sys.executable, "-c", "print('something else')"],
            {"listed": "Inactive"},
            timeout=60,
        )
    except RuntimeError as exc:
        assert "something else" in str(exc)
    else:
        raise AssertionError("no error for a marker that never showed")
