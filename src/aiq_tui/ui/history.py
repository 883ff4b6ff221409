"""Prompt history kept across runs: one line per prompt in ``<home>/data/prompt-history``.

Capped at ``ui.history_size`` lines (the file is trimmed when it grows to twice that), so it
never grows without bound. Prompts are written as typed, which is why the file is the
user's own (mode 0600): people paste things into prompts.
"""

from __future__ import annotations

import os
from pathlib import Path

FILE_NAME = "prompt-history"


def history_path(data_dir: Path) -> Path:
    return data_dir / FILE_NAME


def load_history(path: Path, cap: int) -> list[str]:
    """The last ``cap`` prompts, oldest first; [] when the file is missing or unreadable."""
    if cap <= 0:
        return []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    return [line for line in lines if line.strip()][-cap:]


def append_history(path: Path, text: str, cap: int) -> None:
    """Add one prompt (newlines flattened); trim to ``cap`` lines once the file holds 2 × cap."""
    line = " ".join(text.split())
    if cap <= 0 or not line:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as stream:
            stream.write(line + "\n")
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > 2 * cap:
            temp = path.with_suffix(".tmp")
            temp.write_text("\n".join(lines[-cap:]) + "\n", encoding="utf-8")
            os.replace(
                temp, path
            )  # atomic: a second app instance never reads half a file
    except OSError:
        pass  # history is a convenience: a read-only home must not break sending
