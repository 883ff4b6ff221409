"""The conversation pane: user turns, streamed assistant answers (markdown), notices.

Streaming follows elia: one :class:`AnswerView` per turn receives every token (its markdown is
parsed again at most once a frame, however fast fragments arrive), so history is never
re-rendered. Every block — a question, a notice, an answer with its tables and code — is one
widget: a theme change (Ctrl+T) restyles every widget on screen, and with Textual's
``Markdown`` (a widget per paragraph and per table cell) 40 messages took ~1.5 s. The pane is
anchored to the bottom and lets go as soon as the user scrolls up, so reading older answers is
never yanked away; while scrolled up, the border says when new messages arrived below.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from aiq_tui.terminal_text import printable
from aiq_tui.ui.plain import PlainStatic, plain
from aiq_tui.ui.textual_compat import anchor_released, release_removed_widgets

SUMMARISED_MARK = "summarised"
"""The label a turn folded into a compression summary carries on its first line."""


class UserTurn(PlainStatic):
    """What the user typed, shown verbatim (no markup). ``message_id`` is the engine's id of
    the message, so a compression that summarises it can mark the turn: a label on its first
    line (the block has only a left border, where Textual draws no title)."""

    def __init__(
        self, text: str, message_id: str = "", *, summarised: bool = False
    ) -> None:
        super().__init__("", markup=False, classes="user-turn")
        self.message_id = message_id
        self.text = text
        self.summarised = not summarised
        self.mark(summarised)

    def mark(self, summarised: bool) -> None:
        """Dimmed and labelled ``summarised`` (or not): still readable, no longer sent."""
        if summarised == self.summarised:
            return
        self.summarised = summarised
        self.set_class(summarised, "-summarised")
        if summarised:
            self.update(
                Text.assemble((f" {SUMMARISED_MARK} ", "bold reverse"), " ", self.text)
            )
        else:
            self.update(Text(self.text))


class Notice(PlainStatic):
    """A one-line note in the conversation: tool calls, errors, slash-command output."""

    def __init__(self, text: str, kind: str = "info") -> None:
        super().__init__(text, markup=False, classes=f"notice -{kind}")


WELCOME = (
    "Ask about your data, files or the web; skills load as they match. Try:\n"
    "  • show the tables in the sample database\n"
    "  • run ls and tell me what is in this folder\n"
    "  • write a short report of the orders to notes/orders.md\n"
    "Enter sends · Esc cancels · F1 keys · F3 why a skill matched · Ctrl+P every action · /demo the long demo"
)


class Welcome(PlainStatic):
    """Shown in an empty conversation: what to ask and the keys that matter."""

    def __init__(self) -> None:
        super().__init__(WELCOME, markup=False, classes="welcome")


NEW_BELOW = "↓ new messages below — PgDn / End"
WINDOW = 30
"""Entries mounted at the bottom of the conversation (the newest), live and in Replay alike, or
the pane's height in rows when that is more (an entry takes a row at least, so the window always
fills the pane and can be scrolled up to the earlier ones); more as the view scrolls up. Every
mounted block is laid out again on every change of the screen's layout — a step of the paused
cursor relaid 100 of them — so the window is a few screens, not a chapter."""
TRIM_SLACK = 10
"""Entries mounted past :data:`WINDOW` before the oldest are unmounted again, while the view
follows the newest: trimming in batches, not one widget per new entry."""


class Conversation(VerticalScroll):
    """The scrolling list of turns. Call these methods from the app's message handlers."""

    can_focus = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Conversation"
        self.last_answer = ""
        self.shown: tuple[
            Any, ...
        ] = ()  # the entries drawn; shown[_first:] have a widget each (_blocks)
        self._blocks: list[Any] = []
        self._first = 0
        self._earlier: Static | None = (
            None  # "⋯ N earlier entries" above the blocks while _first > 0
        )
        self._welcome: Welcome | None = (
            None  # held, not queried: a query walks every block
        )
        self._lock = asyncio.Lock()  # show() and show_earlier() both move the blocks

    async def on_mount(self) -> None:
        self.anchor()
        await self._show_welcome()

    async def _show_welcome(self) -> None:
        if self._welcome is None:
            self._welcome = Welcome()
            await self.mount(self._welcome)

    async def _leave_welcome(self) -> None:
        welcome, self._welcome = self._welcome, None
        if welcome is not None:
            await welcome.remove()

    @property
    def window(self) -> int:
        """Entries mounted while the view follows the newest: :data:`WINDOW`, or the pane's
        height in rows if a taller pane would show more."""
        return max(WINDOW, self.size.height)

    # -- reading: scroll from the prompt, and the "new messages below" marker -------------
    @property
    def scrolled_up(self) -> bool:
        """The user scrolled away from the newest message (Textual released the anchor)."""
        return self.is_anchored and anchor_released(self)

    def _arrived(self) -> None:
        if self.scrolled_up:
            self.border_subtitle = plain(NEW_BELOW)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.border_subtitle and not self.scrolled_up:
            self.border_subtitle = ""
        if (
            self._first and new_value < 1 and self.scrolled_up
        ):  # at the top: the earlier entries
            self.run_worker(
                self.show_earlier(), group="conversation-earlier", exclusive=True
            )
        elif (
            len(self._blocks) > self.window + TRIM_SLACK
            and not self.scrolled_up
            and new_value >= self.max_scroll_y
        ):
            # back at the newest entries: what scrolling up mounted goes again
            self.run_worker(
                self._trim_locked(), group="conversation-trim", exclusive=True
            )

    def page(self, direction: int) -> None:
        if direction < 0:
            self.release_anchor()
            self.scroll_page_up(animate=False)
        elif self.scroll_y + self.scrollable_content_region.height >= self.max_scroll_y:
            self.to_end()
        else:
            self.scroll_page_down(animate=False)

    def to_top(self) -> None:
        self.release_anchor()
        self.scroll_home(animate=False)

    def to_end(self) -> None:
        self.scroll_end(animate=False)  # re-anchors: new messages are followed again
        self.border_subtitle = ""
        # What scrolling up mounted goes again — once an earlier mount under way is done.
        self.run_worker(self._trim_locked(), group="conversation-trim", exclusive=True)

    # -- content ---------------------------------------------------------------------------
    # Every text enters here made printable: a model's answer, a tool's output or a session
    # file is shown with its control characters escaped, never obeyed by the terminal.
    async def add_notice(self, text: str, kind: str = "info") -> None:
        if (
            not self.is_attached
        ):  # the app is quitting: a cancelled turn's notice has nowhere to go
            return
        await self.mount(Notice(printable(text), kind))
        self._arrived()

    async def show(self, entries: Sequence[Any]) -> None:
        """Draw the view state's conversation (:class:`~aiq_tui.replay.state.Entry` blocks),
        touching only what changed: a streaming answer grows in place (its new text streams in),
        a summarised turn is dimmed in place, later blocks are mounted; the rest stays.

        Only the newest :data:`WINDOW` entries — what the pane, anchored at the bottom, shows —
        have widgets, under a line counting the earlier ones, which are mounted as the view is
        scrolled up to them (:meth:`show_earlier`): a long conversation drawn afresh (Replay
        opening a long session, a step far back) mounts a window, and while the view follows
        the newest entries the oldest widgets are unmounted as new ones come (:meth:`_trim`),
        so a day-long session draws what a short one does."""
        entries = tuple(entries)
        if entries is self.shown or entries == self.shown:
            return
        async with self._lock:
            await self._show(entries)

    async def _show(self, entries: tuple[Any, ...]) -> None:
        shown, blocks, first = self.shown, self._blocks, self._first
        keep, common = 0, min(len(shown), len(entries))
        # Usually only the last entry changed (a streamed answer, a new block): the rest is
        # compared at once (the same objects: the fold reuses what did not change).
        if common > 1 and shown[: common - 1] == entries[: common - 1]:
            keep = common - 1
        while keep < common:
            old, new = shown[keep], entries[keep]
            if old == new:
                keep += 1
                continue
            if (old.kind, old.style, old.message_id) != (
                new.kind,
                new.style,
                new.message_id,
            ):
                break
            if keep < first:  # not mounted: drawn from its new entry when it is
                if old.text != new.text:
                    break
                keep += 1
                continue
            block = blocks[keep - first]
            if old.kind == "answer" and old.open and new.text.startswith(old.text):
                await block.write(printable(new.text[len(old.text) :]))
                if not new.open:
                    await block.finish(printable(new.text))
                self.last_answer = printable(new.text)
            elif old.text != new.text:
                break
            block.set_class(new.summarised, "-summarised")
            if old.kind == "user":
                block.mark(new.summarised)
            keep += 1
        if (
            keep < first or len(entries) - keep > self.window
        ):  # afresh: the newest entries only
            keep = first = max(0, len(entries) - self.window)
            for widget in blocks:
                await widget.remove()
            blocks.clear()
            release_removed_widgets()
        else:
            for widget in blocks[keep - first :]:
                await widget.remove()
            del blocks[keep - first :]
        self._first = first
        # The welcome stays until the first question or answer (notices sit below it), whatever
        # was drawn before: it went with a question only when nothing else had been drawn.
        if self._welcome is not None and any(
            entry.kind != "notice" for entry in entries
        ):
            await self._leave_welcome()
        elif not blocks and not any(entry.kind != "notice" for entry in entries):
            await self._show_welcome()
        fresh = [self._block(entry) for entry in entries[keep:]]
        if (
            fresh
        ):  # one mount for all of them: opening a long session in Replay stays quick
            await self.mount_all(fresh)
        blocks += fresh
        if not self.scrolled_up:
            await self._trim()
        await self._count_earlier()
        last = entries[-1] if entries else None
        if fresh and last is not None and last.kind == "answer" and last.open:
            await fresh[-1].write(
                printable(last.text)
            )  # streams from here on (mounted empty)
            self.last_answer = fresh[-1].text
        self.shown = entries
        if len(entries) > keep:
            self._arrived()

    async def _trim(self) -> None:
        """Unmount the oldest blocks past :data:`WINDOW` (once :data:`TRIM_SLACK` more piled up):
        the view is at the newest entries, where the window is what the pane shows. The
        entries stay in :attr:`shown`; scrolling up mounts them again."""
        blocks = self._blocks
        if len(blocks) <= self.window + TRIM_SLACK:
            return
        count = len(blocks) - self.window
        gone = blocks[:count]
        del blocks[:count]
        self._first += count
        await self.remove_children(gone)
        release_removed_widgets()

    async def _trim_locked(self) -> None:
        """End was pressed: the view goes to the newest entries (the scroll lands after the
        next refresh, so the anchor is not asked)."""
        async with self._lock:
            await self._trim()
            await self._count_earlier()

    async def _count_earlier(self) -> None:
        """The line above the mounted blocks: how many earlier entries are not drawn yet."""
        marker = self._earlier
        if self._first and marker is None:
            self._earlier = marker = PlainStatic("", markup=False, classes="earlier")
            await self.mount(marker, before=0)
        elif not self._first and marker is not None:
            self._earlier = None
            await marker.remove()
        if marker is not None:
            marker.update(
                Text(
                    f"⋯ {self._first:,} earlier entr{'ies' if self._first != 1 else 'y'} — "
                    "scroll up to show them",
                    style="dim italic",
                )
            )

    async def show_earlier(self) -> int:
        """Mount up to :data:`WINDOW` more of the earlier entries above the drawn ones; how many."""
        async with self._lock:
            count = min(self.window, self._first)
            if not count or not self._blocks or not self.scrolled_up:  # End came first
                return 0
            start = self._first - count
            widgets = [self._block(entry) for entry in self.shown[start : self._first]]
            await self.mount_all(widgets, before=self._blocks[0])
            self._blocks[:0] = widgets
            self._first = start
            await self._count_earlier()
            return count

    def _block(self, entry: Any) -> Any:
        if entry.kind == "user":
            widget: Any = UserTurn(
                printable(entry.text), entry.message_id, summarised=entry.summarised
            )
        elif entry.kind == "answer":
            from aiq_tui.ui.widgets.answer import AnswerView

            widget = AnswerView("" if entry.open else printable(entry.text))
            self.last_answer = widget.text
        else:
            widget = Notice(printable(entry.text), entry.style or "info")
        widget.set_class(entry.summarised, "-summarised")
        return widget

    async def reset(self) -> None:
        async with self._lock:
            await self._reset()

    async def _reset(self) -> None:
        self.shown, self._blocks, self._first = (), [], 0
        self._earlier = None
        self._welcome = None
        self.last_answer = ""
        await self.remove_children()
        release_removed_widgets()
        await self._show_welcome()
        self.to_end()
