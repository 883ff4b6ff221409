"""A time cursor over the live app's folded events: at the head it is live; paused, it steps.

The app feeds every event it receives to :meth:`TimeCursor.add` (which folds it, see
:mod:`aiq_tui.replay.state`) and draws :attr:`TimeCursor.shown`. Pausing pins the cursor to the
current event while later ones keep arriving (:attr:`queued` counts the arrivals since the
pause, :attr:`after` every event past the shown one); stepping moves it
by event or by turn; :meth:`live` goes back to the head. The step-through demo moves by
*steps*: the events a caption describes.

The cursor keeps the events, the head's state and a *keyframe* — the whole state — every
:data:`KEYFRAME_EVERY` events, as a video seeks from its keyframes: the state at any other
event is folded again from the nearest keyframe before it. A state per event cost memory that
grew with the square of the session (each state holds the conversation, the timeline and the
tool calls up to it). Keyframes at a fixed spacing still do, more slowly; so past
:data:`MAX_KEYFRAMES` every other one is dropped and the spacing doubles: the keyframes hold at
most that many states, a turn costs its own events plus a constant share of a state, and a step
refolds at most the spacing. The states a refold passes through are kept until the next one (one
run, at most twice the spacing): ← after ← is a look-up, not another refold of the same events
(at turn 300 of ``bench.soak`` every ← refolded 17 events, 4 ms of a 40 ms step).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from aiq_tui.replay.state import ViewState, apply

KEYFRAME_EVERY = 32
"""Events between two kept states (doubling past :data:`MAX_KEYFRAMES`). A step refolds at most
the spacing, and the keyframes hold 1/KEYFRAME_EVERY of what a state per event held. Not a
setting: nothing a user sees depends on it."""
MAX_KEYFRAMES = 128
"""Keyframes kept at most: past it every other one goes and the spacing doubles. Each keyframe
holds the whole conversation, timeline and tool calls of its moment (references, but one per
entry), so their count is what a long session's cursor grows with, in memory and in what the
garbage collector walks."""


@dataclass
class TimeCursor:
    records: list[Mapping[str, Any]] = field(default_factory=list)
    position: int | None = None  # None: live (the head)
    paused_at: int = 0  # how many events there were when the cursor was paused
    base: ViewState = field(
        default_factory=ViewState
    )  # the state before the first record
    head: ViewState = field(init=False)  # the state after every record
    _keyframes: list[ViewState] = field(
        init=False, repr=False
    )  # [j]: after records[:j * _every]
    _every: int = field(
        init=False, repr=False, default=KEYFRAME_EVERY
    )  # events between keyframes
    _turn_ends: list[int] = field(
        init=False, repr=False
    )  # indices of the ``turn_finished`` records
    _shown: tuple[int, ViewState] | None = field(
        init=False, repr=False, default=None
    )  # what ``shown`` gave
    _run: tuple[int, list[ViewState]] | None = field(
        init=False, repr=False, default=None
    )  # the last refold's states

    def __post_init__(self) -> None:
        records, self.records = list(self.records), []
        self.head = self.base
        self._keyframes = [self.base]
        self._every = KEYFRAME_EVERY
        self._turn_ends = []
        for record in records:
            self.add(record)

    @property
    def states(self) -> CursorStates:
        """The state after each event, as a sequence (``states[i]``: after ``records[:i + 1]``),
        each folded from its keyframe when asked for."""
        return CursorStates(self)

    @property
    def kept(self) -> int:
        """How many whole states the cursor holds (its keyframes and the head): what its memory
        grows with, beside the events themselves."""
        return len(self._keyframes) + 1

    @property
    def paused(self) -> bool:
        return self.position is not None

    @property
    def index(self) -> int:
        """The shown event's index (the head's when live; -1 before any event)."""
        return len(self.records) - 1 if self.position is None else self.position

    @property
    def shown(self) -> ViewState:
        """The state at the cursor: the same object for as long as the cursor stays on its
        event (the view compares what it drew by identity)."""
        index = self.index
        if index < 0:
            return ViewState()
        if index == len(self.records) - 1:
            return self.head
        if self._shown is None or self._shown[0] != index:
            self._shown = (index, self.at(index))
        return self._shown[1]

    @property
    def after(self) -> int:
        """Events past the shown one (0 when live): what → still has to show."""
        return len(self.records) - 1 - self.index

    @property
    def queued(self) -> int:
        """Events that arrived since the pause (0 when live): stepping back shows older events,
        it queues nothing."""
        return len(self.records) - self.paused_at if self.paused else 0

    def at(self, index: int) -> ViewState:
        """The state after ``records[:index + 1]``: one the last refold passed through, or folded
        from the nearest keyframe before it (or on from that refold's end, when that is nearer: a
        step forward folds one event)."""
        if not 0 <= index < len(self.records):
            raise IndexError(f"no event {index} (the cursor holds {len(self.records)})")
        if index == len(self.records) - 1:
            return self.head
        if self._shown is not None and self._shown[0] == index:
            return self._shown[1]
        run = self._run
        if run is not None and run[0] <= index < run[0] + len(run[1]):
            return run[1][
                index - run[0]
            ]  # ← after a refold: folded on the way there already
        every = self._every
        start = (index + 1) // every * every  # records before it are in its keyframe
        if (
            run is not None and start <= run[0] + len(run[1]) <= index
        ):  # a step forward: the run goes on
            start, states = run
            state = states[-1]
        else:
            states, state = [], self._keyframes[start // every]
        for record in self.records[start + len(states) : index + 1]:
            state = apply(state, record)
            states.append(state)
        if (
            len(states) > 2 * every
        ):  # stepping forward a long way keeps the last stretch only
            start += len(states) - every
            states = states[-every:]
        if states:  # none: the state is the keyframe itself
            self._run = (start, states)  # states[k]: after records[:start + k + 1]
        return state

    def fresh(self, record: Mapping[str, Any]) -> TimeCursor:
        """A new story (a new or resumed session): a live cursor whose only event is ``record``,
        folded over this cursor's head (a ``reset`` keeps what the fold says it keeps)."""
        return TimeCursor([record], base=self.head)

    def add(self, record: Mapping[str, Any]) -> ViewState:
        state = apply(self.head, record)
        self.records.append(record)
        self.head = state
        if len(self.records) % self._every == 0:
            self._keyframes.append(state)
            if (
                len(self._keyframes) > MAX_KEYFRAMES
            ):  # [j] after j * every events: keep the even j
                self._keyframes = self._keyframes[::2]
                self._every *= 2
        if record.get("type") == "turn_finished":
            self._turn_ends.append(len(self.records) - 1)
        return state

    def pause(self) -> bool:
        if not self.records:
            return False
        self.position = len(self.records) - 1
        self.paused_at = len(self.records)
        return True

    def pause_at(self, index: int) -> None:
        """Paused on ``index`` (the step-through demo's first step): what arrives later is queued."""
        self.position = index
        self.paused_at = len(self.records)

    def live(self) -> None:
        self.position = None

    def step(self, delta: int) -> None:
        if self.records:
            self.position = max(0, min(len(self.records) - 1, self.index + delta))

    def turn(self, delta: int) -> None:
        """To the end of the previous / next turn (a ``turn_finished``), or the first / last event."""
        if not self.records:
            return
        ends, here = self._turn_ends, self.index
        if delta < 0:
            earlier = bisect_left(ends, here)
            self.position = ends[earlier - 1] if earlier else 0
        else:
            later = bisect_right(ends, here)
            self.position = ends[later] if later < len(ends) else len(self.records) - 1

    def next_step(self, is_step: Callable[[int], bool]) -> bool:
        """To the next event ``is_step`` accepts; False (and no move) when none has arrived yet."""
        for index in range(self.index + 1, len(self.records)):
            if is_step(index):
                self.position = index
                return True
        return False

    def previous_step(self, is_step: Callable[[int], bool]) -> None:
        for index in range(self.index - 1, -1, -1):
            if is_step(index):
                self.position = index
                return
        self.position = 0 if self.records else None

    def before(self, index: int) -> ViewState:
        return self.at(index - 1) if index > 0 else ViewState()


class CursorStates(Sequence[ViewState]):
    """:attr:`TimeCursor.states`: ``len`` and indexing as a list of every state would give,
    without holding them."""

    def __init__(self, cursor: TimeCursor) -> None:
        self._cursor = cursor

    def __len__(self) -> int:
        return len(self._cursor.records)

    @overload
    def __getitem__(self, index: int) -> ViewState: ...

    @overload
    def __getitem__(self, index: slice) -> list[ViewState]: ...

    def __getitem__(self, index: int | slice) -> ViewState | list[ViewState]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        return self._cursor.at(index)

    def __iter__(self) -> Iterator[ViewState]:
        for index in range(len(self)):
            yield self._cursor.at(index)
