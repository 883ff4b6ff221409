"""A time cursor over the live app's folded events: at the head it is live; paused, it steps.

The app feeds every event it receives to :meth:`TimeCursor.add` (which folds it, see
:mod:`aiq_tui.replay.state`) and draws :attr:`TimeCursor.shown`. Pausing pins the cursor to the
current event while later ones keep arriving (:attr:`queued` counts the arrivals since the
pause, :attr:`after` every event past the shown one); stepping moves it
by event or by turn; :meth:`live` goes back to the head. The step-through demo moves by
*steps*: the events a caption describes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from aiq_tui.replay.state import ViewState, apply


@dataclass
class TimeCursor:
    records: list[Mapping[str, Any]] = field(default_factory=list)
    states: list[ViewState] = field(default_factory=list)  # states[i]: after records[:i + 1]
    position: int | None = None  # None: live (the head)
    paused_at: int = 0  # how many events there were when the cursor was paused

    @property
    def head(self) -> ViewState:
        return self.states[-1] if self.states else ViewState()

    @property
    def paused(self) -> bool:
        return self.position is not None

    @property
    def index(self) -> int:
        """The shown event's index (the head's when live; -1 before any event)."""
        return len(self.states) - 1 if self.position is None else self.position

    @property
    def shown(self) -> ViewState:
        return self.states[self.index] if self.states and self.index >= 0 else ViewState()

    @property
    def after(self) -> int:
        """Events past the shown one (0 when live): what → still has to show."""
        return len(self.states) - 1 - self.index

    @property
    def queued(self) -> int:
        """Events that arrived since the pause (0 when live): stepping back shows older events,
        it queues nothing."""
        return len(self.states) - self.paused_at if self.paused else 0

    def fresh(self, record: Mapping[str, Any]) -> "TimeCursor":
        """A new story (a new or resumed session): a live cursor whose only event is ``record``,
        folded over this cursor's head (a ``reset`` keeps what the fold says it keeps)."""
        return TimeCursor([record], [apply(self.head, record)])

    def add(self, record: Mapping[str, Any]) -> ViewState:
        state = apply(self.head, record)
        self.records.append(record)
        self.states.append(state)
        return state

    def pause(self) -> bool:
        if not self.states:
            return False
        self.position = len(self.states) - 1
        self.paused_at = len(self.states)
        return True

    def pause_at(self, index: int) -> None:
        """Paused on ``index`` (the step-through demo's first step): what arrives later is queued."""
        self.position = index
        self.paused_at = len(self.states)

    def live(self) -> None:
        self.position = None

    def step(self, delta: int) -> None:
        if self.states:
            self.position = max(0, min(len(self.states) - 1, self.index + delta))

    def turn(self, delta: int) -> None:
        """To the end of the previous / next turn (a ``turn_finished``), or the first / last event."""
        if not self.states:
            return
        ends = [i for i, r in enumerate(self.records) if r.get("type") == "turn_finished"]
        here = self.index
        if delta < 0:
            self.position = max((i for i in ends if i < here), default=0)
        else:
            self.position = min((i for i in ends if i > here), default=len(self.states) - 1)

    def next_step(self, is_step: Callable[[int], bool]) -> bool:
        """To the next event ``is_step`` accepts; False (and no move) when none has arrived yet."""
        for index in range(self.index + 1, len(self.states)):
            if is_step(index):
                self.position = index
                return True
        return False

    def previous_step(self, is_step: Callable[[int], bool]) -> None:
        for index in range(self.index - 1, -1, -1):
            if is_step(index):
                self.position = index
                return
        self.position = 0 if self.states else None

    def before(self, index: int) -> ViewState:
        return self.states[index - 1] if index > 0 else ViewState()
