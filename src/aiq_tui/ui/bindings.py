"""The workbench's keys, in one place: the app's bindings (what the footer shows) and which
actions apply when — off under a dialog, disabled while a deferred start builds the engine. The
time cursor's keys are decided by :func:`aiq_tui.ui.cursor_control.cursor_keys_apply`.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

THEMES = ("textual-dark", "textual-light")
"""The two themes Ctrl+T switches between."""
# Actions that need the engine: while a deferred start builds it they are shown disabled.
NEEDS_ENGINE = frozenset(
    {
        "settings",
        "inspector",
        "sessions",
        "replay",
        "doctor",
        "warnings",
        "reload_skills",
        "compact",
        "clear",
        "activate_skill",
        "set_skill_status",
        "open_skill",
        "long_demo",
    }
)

# The workbench's own keys: off (and out of the footer) while a dialog is open on top of it.
MAIN_SCREEN_ONLY = frozenset(
    {
        "show_help",
        "settings",
        "inspector",
        "sessions",
        "warnings",
        "copy_answer",
        "toggle_theme",
        "reload_skills",
        "toggle_activity",
        "maximize_activity",
        "scroll_conversation",
    }
)

APP_BINDINGS: list[BindingType] = [
    Binding("ctrl+c", "interrupt", "Cancel/quit", show=False, priority=True),
    Binding("escape", "cancel_turn", "Cancel turn", show=False),
    Binding("f1", "show_help", "Help"),
    Binding("f2", "settings", "Settings"),
    Binding("f3", "inspector", "Inspector"),
    Binding("f4", "sessions", "Sessions"),
    Binding("f5", "reload_skills", "Reload", show=False),
    Binding("f6", "warnings", "Warnings"),
    Binding("ctrl+y", "copy_answer", "Copy answer"),
    Binding("ctrl+t", "toggle_theme", "Theme"),
    Binding("ctrl+r", "reload_skills", "Reload", show=False),
    Binding("ctrl+o", "toggle_activity", "Tools/Timeline", show=False),
    Binding("f7", "maximize_activity", "Tools full", show=False),
    Binding("ctrl+q", "quit", "Quit", priority=True),
    # Reading from the prompt: panes with their own lists (skills, tool log) keep these keys.
    Binding("pageup", "scroll_conversation('page_up')", "Scroll up", show=False),
    Binding("pagedown", "scroll_conversation('page_down')", "Scroll down", show=False),
    Binding("ctrl+home", "scroll_conversation('top')", "Oldest message", show=False),
    Binding("ctrl+end", "scroll_conversation('end')", "Newest message", show=False),
    # The time cursor's keys act on the empty prompt (AiqApp.check_action says when): its
    # arrows and End are the prompt's bindings, Space is typed there unless it pauses
    # (PromptInput._on_key) — decided in typing order. Here for the footer, after the rest.
    Binding("space", "toggle_pause", "Pause", key_display="␣"),
]
