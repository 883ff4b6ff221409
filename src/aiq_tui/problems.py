"""A problem found in a user's file: what, where, and how to fix it.

Used by skill parsing/validation, discovery and config loading alike, so every surface (CLI,
TUI warnings panel, JSON output) reports problems the same way.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    """A note: true, worth knowing, never a reason to fail (aiq-tui's own limits, say)."""


@dataclass(frozen=True)
class Problem:
    path: Path | None
    message: str
    field: str | None = None
    line: int | None = None
    hint: str | None = None
    severity: Severity = Severity.ERROR

    def __post_init__(self) -> None:
        # Hot loops (discovery, validation) pass a str path and build the Path only here,
        # for the rare file that has a problem.
        if isinstance(self.path, str):
            object.__setattr__(self, "path", Path(self.path))

    @property
    def location(self) -> str:
        """``path:line`` (or just the path) for messages."""
        if self.path is None:
            return "<input>"
        return f"{self.path}:{self.line}" if self.line else str(self.path)

    def __str__(self) -> str:
        field = f" [{self.field}]" if self.field else ""
        hint = f" — {self.hint}" if self.hint else ""
        return f"{self.location}{field}: {self.message}{hint}"

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["path"] = str(self.path) if self.path else None
        data["severity"] = self.severity.value
        return data
