"""When a key is part of typing, and so no answer to a dialog that opened under it.

A turn can open an approval while the user is still typing the next question without looking
up. A key that arrives within ``grace`` seconds of the dialog opening, or less than ``grace``
seconds after the key before it (typing has not stopped), was meant for the prompt: the dialog
hands it there and decides nothing — as browsers ignore clicks on a permission prompt for a
moment after it shows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class TypingClock:
    """The time of the last key typed anywhere in the app (the prompt or a dialog)."""

    grace_setting: Callable[[], float]
    """Seconds a key still counts as typing (``ui.typing_grace``, read when asked; 0: off)."""
    clock: Callable[[], float] = time.monotonic
    last_key_at: float = field(default=float("-inf"))

    @property
    def grace(self) -> float:
        return self.grace_setting()

    def typed(self) -> None:
        self.last_key_at = self.clock()

    def typing(self) -> bool:
        """True while the last key is less than ``grace`` seconds old."""
        return self.grace > 0 and self.clock() - self.last_key_at < self.grace


@dataclass
class DeliberateKeys:
    """Whether a dialog opened at ``opened_at`` may take a key as its answer now."""

    typing: TypingClock
    opened_at: float

    @classmethod
    def opening_now(cls, typing: TypingClock) -> DeliberateKeys:
        return cls(typing, typing.clock())

    def deliberate(self) -> bool:
        """No longer within the grace after opening, and typing has stopped."""
        grace = self.typing.grace
        if grace <= 0:
            return True
        return (
            self.typing.clock() - self.opened_at >= grace and not self.typing.typing()
        )
