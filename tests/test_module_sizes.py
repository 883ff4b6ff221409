"""The TUI stays a set of rooms a newcomer can find their way in: no module under ui/ (screens
and widgets included) grows past 600 lines. A module that needs more has more than one job —
split it by concern (see how ui/app.py composes its controllers) rather than raise the limit."""

from __future__ import annotations

from pathlib import Path

UI = Path(__file__).resolve().parents[1] / "src" / "aiq_tui" / "ui"
MAX_LINES = 600


def test_no_ui_module_is_over_600_lines() -> None:
    sizes = {
        path.relative_to(UI).as_posix(): len(
            path.read_text(encoding="utf-8").splitlines()
        )
        for path in UI.rglob("*.py")
    }
    assert (
        "app.py" in sizes and "screens/replay.py" in sizes
    )  # the walk sees ui/ and its subfolders
    over = {name: lines for name, lines in sizes.items() if lines > MAX_LINES}
    assert not over, (
        f"ui/ modules over {MAX_LINES} lines (split them by concern): {over}"
    )
