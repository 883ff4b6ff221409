"""Completion at the prompt for MCP: ``@SERVER:URI`` and ``/mcp__SERVER__PROMPT [name=value…]``.

What to offer is decided by :func:`aiq_tui.tools.mcp.completion.completion_at` on every edit,
from the ready servers' lists; a template variable's or a prompt argument's values are asked of
the server (``completion/complete``) in a worker, one at a time (a newer edit cancels the older
request), within ``mcp.completion_timeout_seconds``; an answer for a line the user has since
changed is dropped, and a server that fails or is slow offers nothing. The choices show in
:class:`~aiq_tui.ui.widgets.choice_list.ChoiceList`.

The list opens on typing only: a line recalled from history (↑/↓) never opens it, so ↑/↓ keep
walking the history; while it shows, ↑/↓ move in it, Tab accepts, Enter accepts what is not
typed in full yet, Esc closes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.geometry import Offset

from aiq_tui.tools.mcp.completion import (
    Choice,
    Completion,
    accept,
    completion_at,
    value_choices,
)

if TYPE_CHECKING:
    from aiq_tui.ui.widgets.choice_list import ChoiceList
    from aiq_tui.ui.widgets.prompt import PromptInput

WORKER_GROUP = "prompt-completion"


class PromptCompletion:
    """The app's ``prompt_completion``; :meth:`attach` on mount."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.prompt: PromptInput | None = None
        self.choice_list: ChoiceList | None = None
        self.completion: Completion | None = None
        self._line: tuple[str, int] | None = (
            None  # the line and cursor the completion is for
        )

    def attach(self, prompt: PromptInput, choice_list: ChoiceList) -> None:
        self.prompt, self.choice_list = prompt, choice_list
        prompt.completer = self
        choice_list.picked = self._picked
        # The cursor moved without an edit (←, Home, a click): what is completed moved too.
        self.app.watch(
            prompt,
            "selection",
            lambda _selection: self.update() if self.showing else None,
            init=False,
        )
        self.app.watch(
            prompt,
            "has_focus",
            lambda focused: None if focused else self.dismiss(),
            init=False,
        )

    @property
    def showing(self) -> bool:
        return self.choice_list is not None and self.choice_list.showing

    def _fleet(self) -> Any:
        engine = self.app.engine
        return getattr(engine, "mcp", None) if engine is not None else None

    # -- what the prompt calls ------------------------------------------------------------------
    def changed(self) -> None:
        """The prompt's text changed: typed (the list follows) or recalled from history (it closes)."""
        prompt = self.prompt
        if prompt is None:
            return
        if prompt.recalled is not None and prompt.value == prompt.recalled:
            self.dismiss()
            return
        self.update()

    def update(self) -> None:
        prompt, fleet = self.prompt, self._fleet()
        if (
            prompt is None
            or fleet is None
            or ("@" not in prompt.value and not prompt.value.startswith("/"))
        ):
            # most typing: nothing to look up
            self.dismiss()
            return
        line = (prompt.value, prompt.cursor_position)
        if line == self._line and self.completion is not None:
            return  # a keystroke moves the cursor and changes the text: one update (one request) for both
        completion = completion_at(
            prompt.value,
            prompt.cursor_position,
            fleet.resources(),
            fleet.prompts(),
            fleet.offers_completions,
        )
        if completion is None:
            self.dismiss()
            return
        self._line = line
        previous, self.completion = self.completion, completion
        if completion.request is None:
            self._show(completion.choices)
            return
        # Values are asked for: the ones shown for this same argument stay until the answer comes.
        if (
            previous is None
            or previous.request is None
            or previous.request.argument != completion.request.argument
        ):
            self._hide()
        self.app.run_worker(
            self._ask(completion, line),
            group=WORKER_GROUP,
            exclusive=True,
            exit_on_error=False,
        )

    async def _ask(self, completion: Completion, line: tuple[str, int]) -> None:
        from aiq_tui.tools.mcp.connection import McpError

        fleet = self._fleet()
        request = completion.request
        if fleet is None or request is None:
            return
        try:
            values = await fleet.complete(request)
        except McpError:
            values = []
        prompt = self.prompt
        if (
            prompt is None
            or (prompt.value, prompt.cursor_position) != line
            or self.completion is not completion
        ):
            return  # the user typed on: a newer request answers for the line as it is now
        choices = value_choices(
            request, values, self.app.config.mcp.completion_value_max_chars
        )
        typed = prompt.value[completion.start : completion.end]
        if len(choices) == 1 and choices[0].text == typed:
            choices = ()  # typed in full already
        self._show(choices)

    def move(self, step: int) -> None:
        if self.choice_list is not None:
            self.choice_list.move(step)

    def accept(self, *, by_enter: bool = False) -> bool:
        """Put the highlighted choice into the line; False when there is none (Enter: nor when
        the word is typed in full, or empty, so Enter still sends)."""
        prompt, completion = self.prompt, self.completion
        choice = self.choice_list.current if self.choice_list is not None else None
        if prompt is None or completion is None or choice is None:
            return False
        if by_enter:
            typed = prompt.value[completion.start : completion.end]
            if not typed or typed == choice.text:
                return False
        self._put(prompt, completion, choice)
        return True

    def dismiss(self) -> None:
        """Esc, or nothing to offer: the list closes and a pending request is dropped."""
        self._line = None
        if self.completion is None:
            return
        self.completion = None
        self.app.workers.cancel_group(self.app, WORKER_GROUP)
        self._hide()

    # -- the list ----------------------------------------------------------------------------
    def _picked(self, index: int) -> None:
        prompt, completion, choice_list = self.prompt, self.completion, self.choice_list
        if (
            prompt is not None
            and completion is not None
            and choice_list is not None
            and index < len(choice_list.choices)
        ):
            self._put(prompt, completion, choice_list.choices[index])
            prompt.focus()

    def _put(self, prompt: PromptInput, completion: Completion, choice: Choice) -> None:
        self._hide()
        prompt.value, prompt.cursor_position = accept(prompt.value, completion, choice)

    def _show(self, choices: tuple[Choice, ...]) -> None:
        prompt, choice_list, completion = self.prompt, self.choice_list, self.completion
        if prompt is None or choice_list is None or completion is None or not choices:
            self._hide()
            return
        cursor = prompt.cursor_screen_offset
        word = prompt.value[completion.start : completion.end]
        anchor = Offset(cursor.x - len(word), prompt.region.y)
        choice_list.show(choices, anchor, self.app.screen.region)

    def _hide(self) -> None:
        if self.choice_list is not None and self.choice_list.display:
            self.choice_list.hide()
