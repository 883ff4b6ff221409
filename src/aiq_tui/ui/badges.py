"""Badges — a skill's phase (``full`` / ``brief`` / ``meta``) and state (``evict``, ``disabled``)
and the muted figures beside them — in colours that stay readable on every theme and row.

One home for the skills pane, the match inspector, the timeline's kinds, the budget's figure,
the tool calls' statuses and the MCP servers' states. A badge takes its hue from the theme
(``$text-success`` for full, …) and is then moved towards black or white, per background it is
drawn on, until it reaches :data:`MINIMUM_CONTRAST` (WCAG AA for text, 4.5:1). Fixed ANSI names
cannot do that: on Textual's light theme ``green`` on the skills pane was 2.4:1 and ``cyan``
2.8:1, and the theme's own ``$text-success`` is 3.5:1 on its surface and less on the
highlighted (cursor) row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from rich.style import Style
from textual.color import Color

if TYPE_CHECKING:
    from rich.color import Color as RichColor
    from textual.app import App
    from textual.widget import Widget
    from textual.widgets import DataTable

MINIMUM_CONTRAST = 4.5

BADGES: dict[str, tuple[str, str]] = {
    "full": ("text-success", "bold"),
    "brief": ("text-primary", ""),
    "meta": ("text-muted", ""),
    "evict": ("text-error", "bold"),  # out of the prompt by a budget stage
    "disabled": ("text-warning", "italic"),  # also a draft: never loaded
    "muted": ("text-muted", ""),  # token counts, a missing score
    # plain hues, for the timeline's kinds and the budget's figure
    "success": ("text-success", ""),
    "warning": ("text-warning", "bold"),
    "error": ("text-error", "bold"),
    "primary": ("text-primary", ""),
    "accent": ("text-accent", ""),
}
"""Badge name → (theme variable for its hue, text style)."""

WHITE, BLACK = Color(255, 255, 255), Color(0, 0, 0)


def luminance(colour: Color) -> float:
    """WCAG relative luminance (0 black … 1 white)."""

    def linear(value: int) -> float:
        channel = value / 255
        return (
            channel / 12.92
            if channel <= 0.03928
            else ((channel + 0.055) / 1.055) ** 2.4
        )

    return (
        0.2126 * linear(colour.r)
        + 0.7152 * linear(colour.g)
        + 0.0722 * linear(colour.b)
    )


def contrast(first: Color, second: Color) -> float:
    """WCAG contrast ratio of two opaque colours (1 … 21)."""
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def on_256_colours(colour: Color) -> Color:
    """``colour`` as a 256-colour terminal (tmux's default) draws it: the nearest of the
    palette's fixed colours, which Rich picks when it reduces truecolor."""
    from rich.color import ColorSystem

    triplet = colour.rich_color.downgrade(ColorSystem.EIGHT_BIT).get_truecolor()
    return Color(triplet.red, triplet.green, triplet.blue)


def drawn_contrast(first: Color, second: Color) -> float:
    """The weaker contrast of the two colours in truecolor and on a 256-colour terminal."""
    return min(
        contrast(first, second), contrast(on_256_colours(first), on_256_colours(second))
    )


def readable(
    colour: Color, *backgrounds: Color, minimum: float = MINIMUM_CONTRAST
) -> Color:
    """``colour``, or the nearest blend of it towards white or black that reaches ``minimum``
    contrast on every one of ``backgrounds``, in truecolor and in 256 colours (black or white,
    whichever is stronger, if neither blend does)."""
    colour = (
        backgrounds[0] + colour
    )  # drawn on the background: any transparency is flattened

    def weakest(candidate: Color) -> float:
        return min(drawn_contrast(candidate, background) for background in backgrounds)

    if weakest(colour) >= minimum:
        return colour
    for step in range(1, 21):
        for target in (WHITE, BLACK):
            candidate = colour.blend(target, step / 20)
            if weakest(candidate) >= minimum:
                return candidate
    return max((WHITE, BLACK), key=weakest)


def theme_colour(value: str, background: Color) -> Color:
    """A theme variable's colour as drawn on ``background`` (``auto 60%`` is the text colour
    Textual picks for that background at 60 %)."""
    if value.startswith("auto"):
        _, _, alpha = value.partition(" ")
        return background + background.get_contrast_text(
            float(alpha.rstrip("%") or 100) / 100
        )
    return background + Color.parse(value)


_styles: dict[tuple[object, ...], Style] = {}


def badge_style(
    app: App[object], badge: str, *backgrounds: Color | RichColor | None
) -> Style:
    """The Rich style for ``badge`` drawn on ``backgrounds`` (the first is where its hue is
    taken from; it must be readable on all, e.g. a table's plain and striped rows) in the app's
    current theme. A plain style when a background is unknown or the app draws with the
    terminal's own ANSI colours, which it cannot measure."""
    hue, text_style = BADGES[badge]
    if not backgrounds or None in backgrounds or app.ansi_color:
        return Style.parse(text_style or "none")
    grounds = [
        ground if isinstance(ground, Color) else Color.from_rich_color(ground)
        for ground in backgrounds
        if ground is not None
    ]
    theme = app.current_theme
    key = (theme.name, id(theme), badge, *(ground.rgb for ground in grounds))
    style = _styles.get(key)
    if style is None:
        style = _styles[key] = hue_style(
            app.get_css_variables(), hue, text_style, *grounds
        )
    return style


def hue_style(
    variables: Mapping[str, str], hue: str, text_style: str, *grounds: Color
) -> Style:
    """``text_style`` in the colour of the theme variable ``hue`` as drawn on ``grounds[0]``,
    made readable on every one of ``grounds`` (a theme without the variable: the text colour)."""
    try:
        colour = theme_colour(variables[hue], grounds[0])
    except Exception:
        colour = grounds[0].get_contrast_text(0.87)
    return Style.parse(text_style or "none") + Style(
        color=readable(colour, *grounds).rich_color
    )


def table_grounds(
    table: DataTable[object],
) -> tuple[RichColor | None, RichColor | None]:
    """A zebra-striped table's two row backgrounds (its cursor row takes its own colours), for
    :func:`badge_style` in a cell."""
    base = table.rich_style
    return base.bgcolor, (
        base + table.get_component_rich_style("datatable--even-row")
    ).bgcolor


def redraw_on_theme_change(widget: Widget, redraw: Callable[[], object]) -> None:
    """Calls ``redraw`` after each theme change, once the new theme's styles are in place:
    badge colours are made for a theme's backgrounds, so what ``widget`` drew in them is drawn
    again. The subscription ends with the widget."""
    widget.app.theme_changed_signal.subscribe(
        widget, lambda _theme: widget.call_after_refresh(redraw)
    )
