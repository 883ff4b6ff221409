"""The workbench's two themes, Textual's own with the colours a 256-colour terminal needs.

Textual writes truecolor; tmux (by default) and many SSH sessions draw 256 colours, and Rich
then picks the nearest of the palette's fixed colours. Colours that differ in truecolor can
land on one: the dark theme's ``$secondary 50%`` border became colour 17 on the background's
233 (1.04:1), the light theme's footer keys 2.26:1. Here every colour the workbench draws text
or a border in is one of the palette's own (what a truecolor terminal shows too), chosen so
text reaches 4.5:1 and borders 3:1 on the theme's backgrounds (tests/ui/test_contrast.py
measures every screen as a 256-colour terminal draws it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual.theme import BUILTIN_THEMES, Theme

PALETTE_COLOURS: dict[str, dict[str, str]] = {
    "textual-dark": {
        "pane-border": "#5f87af",  # 67: 4.5:1 on the surface
        "focus-border": "#ffaf00",  # 214: the pane that takes keys
        "button-primary": "#005f87",  # 24: its white text 6.6:1 (the theme's primary was 3.6:1)
        "button-error": "#870000",
        "block-cursor-background": "#005f87",  # a table's cursor row
        "text-muted": "#a8a8a8",  # 247: 5.6:1 on the lightest panel
        "text-disabled": "#949494",  # 246: the summarised notices stay readable
        "text-secondary": "#87afd7",  # 110: section titles
        "footer-key-foreground": "#ffaf00",
        "input-cursor-background": "#e0e0e0",
        # the help screen's headings (Textual's markdown)
        "markdown-h1-color": "#87afd7",
        "markdown-h2-color": "#87afd7",
        "markdown-h3-color": "#87afd7",
        "markdown-h4-color": "#87afd7",
        "markdown-h5-color": "#87afd7",
        "markdown-h6-color": "#87afd7",
    },
    "textual-light": {
        "pane-border": "#5f5f87",  # 60: 3.5:1 on the panel
        "focus-border": "#875f00",  # 94: 3.3:1 on the panel
        "button-primary": "#004578",
        "button-error": "#870000",
        "text-muted": "#444444",  # 238: 5.7:1 on the panel
        "text-disabled": "#4e4e4e",  # 239
        "text-accent": "#5f3700",
        "text-warning": "#5f3700",
        "text-success": "#005f00",
        "text-primary": "#00005f",
        "text-secondary": "#00005f",
        "text-error": "#5f0000",
        "footer-key-foreground": "#00005f",
        "footer-description-foreground": "#1f1f1f",
        "markdown-h1-color": "#00005f",
        "markdown-h2-color": "#00005f",
        "markdown-h3-color": "#00005f",
        "markdown-h4-color": "#00005f",
        "markdown-h5-color": "#00005f",
        "markdown-h6-color": "#00005f",
    },
}
"""Theme → the variables set to a 256-palette colour (the rest are Textual's)."""


def readable_themes() -> list[Theme]:
    """Textual's dark and light themes, under their own names, with :data:`PALETTE_COLOURS`."""
    return [
        replace(
            BUILTIN_THEMES[name],
            variables={**BUILTIN_THEMES[name].variables, **colours},
        )
        for name, colours in PALETTE_COLOURS.items()
    ]


class ReadableThemes:
    """Mixed into an :class:`~textual.app.App` that uses app.tcss: its two themes are
    :func:`readable_themes`, and any other theme (Ctrl+P's picker) gets the variables app.tcss
    adds (``$pane-border``, ``$focus-border``, ``$button-*``) from its own colours."""

    def get_theme_variable_defaults(self) -> dict[str, str]:
        defaults = super().get_theme_variable_defaults()  # type: ignore[misc]
        system = self.current_theme.to_color_system().generate()  # type: ignore[attr-defined]
        return {
            **defaults,
            "pane-border": system["primary"],
            "focus-border": system["accent"],
            "button-primary": system["primary"],
            "button-error": system["error"],
        }

    def format_title(self, title: str, sub_title: str) -> Any:
        """The header's title and sub-title, the sub-title in ``$text-muted`` rather than "dim"
        (a terminal draws dim at half contrast: 4.17:1 on the light theme's panel)."""
        from textual.content import Content

        from aiq_tui.terminal_text import printable

        # Content, not markup; printable: a title holds a session's or a skill's name.
        title, sub_title = (
            printable(title, one_line=True),
            printable(sub_title, one_line=True),
        )
        if not sub_title:
            return Content(title)
        # "$text-muted" is resolved as the header draws: right in whichever theme is current
        return Content.assemble(
            Content(title),
            (" — ", "$text-muted"),
            Content(sub_title).stylize("$text-muted"),
        )

    def use_readable_themes(self) -> None:
        """Registers the themes in place of Textual's (call from ``__init__``)."""
        for theme in readable_themes():
            self.register_theme(theme)  # type: ignore[attr-defined]
        self.stylesheet.set_variables(self.get_css_variables())  # type: ignore[attr-defined]
