"""The event timeline: skill loads, evictions, compressions and reloads, oldest first."""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from rich.text import Text
from textual.widgets import RichLog

KIND_STYLE = {"load": "green", "evict": "dark_orange", "compress": "magenta", "reload": "blue",
              "warn": "red", "tool": "cyan", "info": "dim"}


class Timeline(RichLog):
    """Append-only; times come from the injected clock so snapshots are stable."""

    def __init__(self, clock: Callable[[], datetime], *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, max_lines=1000, auto_scroll=True)
        self.clock = clock
        self.entries: list[tuple[str, str]] = []

    def add(self, kind: str, text: str) -> None:
        self.entries.append((kind, text))
        line = Text(self.clock().strftime("%H:%M:%S "), style="dim")
        line.append(f"{kind:<9}", style=KIND_STYLE.get(kind, ""))
        line.append(text)
        self.write(line)
