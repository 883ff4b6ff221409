"""The prompt: an input with history (up/down) and slash-command autocomplete (→ / Tab); while
MCP completion choices show above it (``@SERVER:URI``, ``/mcp__…``), ↑/↓ move in them, Tab
accepts, Enter accepts an unfinished word and Esc closes them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from textual import events
from textual.binding import Binding
from textual.suggester import Suggester
from textual.widgets import Input

from aiq_tui.ui.widgets.own_virtual_size import OwnVirtualSize

SLASH_COMMANDS: dict[str, str] = {
    "/skill": "activate a skill by name: /skill NAME",
    "/skills": "list skills and their state",
    "/match": "open the match inspector: /match QUERY",
    "/compact": "compress the context now",
    "/clear": "start a new empty session",
    "/demo": "play the scripted long demo: compression at 80/90/95 % (demo model)",
    "/model": "show or change the model (opens settings)",
    "/session": "open the sessions picker",
    "/replay": "replay this session (or /replay ID) turn by turn, read-only",
    "/doctor": "check every skill: collisions, reach, budget, risk, spec",
    "/harness": "what Claude Code, Codex, Copilot… would load from here: /harness [NAME]",
    "/save-skill": "save the last turn's tool calls as a composite skill: /save-skill NAME",
    "/help": "show keys and commands",
}


class SlashSuggester(Suggester):
    """Completes slash commands, skill names after ``/skill ``, ``/NAME`` for a skill the user
    may run, and after ``/NAME `` its ``argument-hint`` (Claude Code's completion)."""

    def __init__(
        self,
        skill_names: Callable[[], Iterable[str]],
        skill_hints: Callable[[], Mapping[str, str]] = dict,
    ) -> None:
        # Skill names change with live reload, so they are looked up on every keystroke.
        super().__init__(use_cache=False, case_sensitive=False)
        self._skill_names = skill_names
        self._skill_hints = skill_hints

    async def get_suggestion(self, value: str) -> str | None:
        if not value.startswith("/"):
            return None
        if value.startswith("/skill ") and not value.startswith("/skills"):
            prefix = value[len("/skill ") :].strip()
            for name in sorted(self._skill_names()):
                if name.startswith(prefix) and name != prefix:
                    return f"/skill {name}"
            return None
        for command in SLASH_COMMANDS:
            if command.startswith(value) and command != value:
                return command
        hints = self._skill_hints()
        head, space, rest = value[1:].partition(" ")
        if space and not rest and hints.get(head):
            return value + hints[head]  # /fix-issue  → /fix-issue [issue-number]
        if not space:
            for name in sorted(hints):
                if name.startswith(head) and name != head:
                    return f"/{name}"
        return None


class Completer(Protocol):
    """What fills the choices list (:class:`aiq_tui.ui.prompt_completion.PromptCompletion`)."""

    @property
    def showing(self) -> bool: ...
    def move(self, step: int) -> None: ...
    def accept(self, *, by_enter: bool = False) -> bool: ...
    def dismiss(self) -> None: ...


class PromptInput(OwnVirtualSize, Input):
    """Enter sends; up/down walk through what was sent before."""

    BINDINGS = [
        Binding("up", "history(-1)", "Previous", show=False),
        Binding("down", "history(1)", "Next", show=False),
        Binding("tab", "complete", "Complete", show=False),
        # Only while completion choices show (check_action); else Esc is the app's (cancel a turn).
        Binding("escape", "dismiss_choices", "Close list", show=False),
        # On an empty prompt Home/End scroll the conversation; with text they move the cursor.
        Binding("home", "home_or_top", show=False),
        Binding("end", "end_or_bottom", show=False),
        # Input's own ← / →: a class's bindings for a key replace its base class's for that key.
        Binding("left", "cursor_left", show=False),
        Binding("right", "cursor_right", show=False),
        # The app's time cursor on an empty prompt, while paused (App.check_action, so the
        # footer shows them exactly while they apply; Space, which pauses, is the app's binding
        # and handled in _on_key). Ordinary bindings, decided when this input handles the key,
        # after the keys typed before it: a priority binding is decided when the app receives
        # the key, and in a burst of keys the prompt has not typed the earlier ones yet.
        Binding("left", "app.cursor_step(-1)", "◀ event"),
        Binding("right", "app.cursor_step(1)", "event ▶"),
        Binding("up", "app.cursor_turn(-1)", "◀ turn"),
        Binding("down", "app.cursor_turn(1)", "turn ▶"),
        Binding("end", "app.cursor_live", "Live"),
    ]

    # The prompt's own actions that give their key to the time cursor's binding while it is
    # paused and nothing is typed (←/→ step by event, ↑/↓ by turn, End back to live).
    CURSOR_KEYS_ACTIONS = frozenset(
        {"cursor_left", "cursor_right", "history", "end", "end_or_bottom"}
    )

    def check_consume_key(self, key: str, character: str | None) -> bool:
        # Space on an empty prompt is the time cursor's (pause / resume, the app's binding);
        # when that binding does not apply, the key still arrives here and types a space.
        if key == "space" and not self.value:
            return False
        return super().check_consume_key(key, character)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "dismiss_choices":
            return self.completer is not None and self.completer.showing
        # The cursor's binding for the same key comes next and takes it.
        cursor = getattr(self.app, "cursor", None)
        if (
            action in self.CURSOR_KEYS_ACTIONS
            and not self.value
            and cursor is not None
            and cursor.paused
        ):
            return False
        return super().check_action(action, parameters)

    async def _on_key(self, event: events.Key) -> None:
        typing = getattr(self.app, "typing", None)
        if typing is not None:  # an approval opening now knows the user is typing
            typing.typed()
        # Space reaches an input as a printable key, which Input types and stops before any
        # binding: on an empty prompt it is the cursor's Pause when that applies.
        if (
            event.key == "space"
            and not self.value
            and self.app.check_action("toggle_pause", ())
        ):
            event.stop()
            event.prevent_default()
            await self.app.run_action("toggle_pause")
            return
        # Enter sends what is typed *now*: as a binding it would be decided once the key has
        # bubbled up to the app, after the keys typed behind it were inserted into this line.
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            await self.action_submit()

    def __init__(
        self,
        skill_names: Callable[[], Iterable[str]],
        *,
        id: str | None = None,
        skill_hints: Callable[[], Mapping[str, str]] = dict,
    ) -> None:
        super().__init__(
            placeholder="Ask something, or /help for commands",
            suggester=SlashSuggester(skill_names, skill_hints),
            id=id,
            # Coming back to a draft (or typing into a pane, which moves here) must not select it:
            # the next key would replace the whole draft.
            select_on_focus=False,
        )
        self.history: list[str] = []
        self._cursor = 0  # == len(history) while editing a fresh line
        self._draft = ""
        self.completer: Completer | None = None
        self.recalled: str | None = None
        """The line last recalled from history (↑/↓): it opens no completion choices."""

    def load_history(self, lines: list[str]) -> None:
        """Earlier runs' prompts (oldest first), before anything typed in this run."""
        self.history = list(lines) + self.history
        self._cursor = len(self.history)

    def remember(self, text: str) -> None:
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._cursor = len(self.history)
        self._draft = ""

    def action_history(self, step: int) -> None:
        if self.completer is not None and self.completer.showing:
            self.completer.move(step)
            return
        if not self.history:
            return
        if self._cursor == len(self.history):
            self._draft = self.value
        self._cursor = max(0, min(len(self.history), self._cursor + step))
        self.recalled = (
            self._draft
            if self._cursor == len(self.history)
            else self.history[self._cursor]
        )
        self.value = self.recalled
        self.cursor_position = len(self.value)

    async def action_home_or_top(self) -> None:
        if self.value:
            self.action_home()
        else:
            await self.run_action("app.scroll_conversation('top')")

    async def action_end_or_bottom(self) -> None:
        if self.value:
            self.action_end()
        else:
            await self.run_action("app.scroll_conversation('end')")

    def action_dismiss_choices(self) -> None:
        if self.completer is not None:
            self.completer.dismiss()

    async def action_submit(self) -> None:
        # Enter picks a choice still being typed (as in Claude Code); else it sends.
        if (
            self.completer is not None
            and self.completer.showing
            and self.completer.accept(by_enter=True)
        ):
            return
        await super().action_submit()  # the message carries the line as it is now
        if self.value.strip():
            # Cleared here, not when the app handles the message: keys typed behind the Enter
            # are the next line's, and must not be wiped with this one.
            self.value = ""

    async def action_complete(self) -> None:
        # A shown choice first; else the inline suggestion; otherwise Tab moves focus as usual.
        if (
            self.completer is not None
            and self.completer.showing
            and self.completer.accept()
        ):
            return
        suggestion = (
            await self.suggester.get_suggestion(self.value) if self.suggester else None
        )
        if suggestion and self.cursor_at_end:
            self.value = suggestion
            self.cursor_position = len(self.value)
        else:
            self.screen.focus_next()
