"""Contrast as a 256-colour terminal draws a screen (tmux's default, many SSH sessions).

Textual writes truecolor; on a 256-colour terminal Rich reduces every colour to the nearest of
the palette's 240 fixed colours (16–255: the 6×6×6 cube and the grey ramp), after Textual's own
line filters (ANSI colours to the theme's truecolor). Two colours a truecolor terminal tells
apart can become one: the dark theme's Token budget border was colour 17 on 233, 1.04:1.
:func:`measure` renders the screen's lines the same way and returns each run of text or border
whose contrast is under WCAG's figures: 4.5:1 for text, 3:1 for borders (WCAG 1.4.11).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.color import Color, ColorSystem
from rich.segment import Segment
from rich.style import Style

TEXT_MINIMUM = 4.5
BORDER_MINIMUM = 3.0
DIM_FACTOR = 0.5  # a terminal draws "dim" text at about half way to the background (Textual's DimFilter)


@dataclass(frozen=True)
class LowContrast:
    """A run of characters drawn below the minimum for what it is."""

    screen: str
    y: int
    text: str
    kind: str  # "text" | "border"
    ratio: float
    colours: tuple[int, int]  # the 256-palette numbers of foreground and background

    def __str__(self) -> str:
        return (
            f"{self.screen}: row {self.y} {self.kind} {self.text.strip()[:40]!r} "
            f"colour {self.colours[0]} on {self.colours[1]} = {self.ratio:.2f}:1"
        )


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def eight_bit(color: Color) -> tuple[int, tuple[int, int, int]]:
    """The palette number and colour a 256-colour terminal shows for ``color``."""
    reduced = color.downgrade(ColorSystem.EIGHT_BIT)
    triplet = reduced.get_truecolor()
    return (reduced.number if reduced.number is not None else -1), (
        triplet.red,
        triplet.green,
        triplet.blue,
    )


def _blend(fg: Color, bg: Color, factor: float) -> Color:
    f, b = fg.get_truecolor(), bg.get_truecolor()
    return Color.from_rgb(*(b[i] + (f[i] - b[i]) * factor for i in range(3)))


def kind_of(char: str) -> str | None:
    """``text`` for letters, figures and punctuation, ``border`` for box drawing; None for
    blanks and pictures (bars, blocks, marks), which carry no text to read."""
    if char.isspace():
        return None
    code = ord(char)
    if 0x2500 <= code <= 0x257F:
        return "border"
    if 0x2580 <= code <= 0x25FF or (0x2190 <= code <= 0x21FF and char not in "←→↑↓"):
        return None  # block elements, geometric shapes (the gauge's bar and marks, ■ swatches)
    return "text"


def _colours(style: Style | None) -> tuple[Color | None, Color | None]:
    if style is None:
        return None, None
    fg, bg = style.color, style.bgcolor
    if style.reverse:
        fg, bg = bg, fg
    if style.dim and fg is not None and bg is not None:
        fg = _blend(fg, bg, DIM_FACTOR)
    return fg, bg


def _shown_regions(screen: Any) -> list[Any] | None:
    """Where a dialog's own widgets are: the screen under a modal is dimmed on purpose (it is
    not there to be read), so only these are measured; None: all of a full screen."""
    from textual.screen import ModalScreen

    if not isinstance(screen, ModalScreen):
        return None
    return [child.region for child in screen.children if child.display]


def measure(app: Any, name: str) -> list[LowContrast]:
    """Every run on ``app``'s current screen drawn under the minimum on a 256-colour terminal."""
    strips = app.screen._compositor.render_strips()
    regions = _shown_regions(app.screen)
    from textual.filter import ANSIToTruecolor

    # What a colour terminal is sent: ANSI colours as the theme's truecolor (the test session's
    # NO_COLOR adds a monochrome filter, which is another terminal's problem).
    filters = [f for f in app.get_line_filters() if isinstance(f, ANSIToTruecolor)]
    screen_background = app.screen.styles.background
    background = screen_background.rich_color
    found: list[LowContrast] = []
    for y, strip in enumerate(strips):
        for line_filter in filters:
            strip = strip.apply_filter(line_filter, screen_background)
        x = 0
        for segment in strip:
            text, style = segment.text, segment.style
            start, x = x, x + segment.cell_length
            if segment.control or not text.strip():
                continue
            if regions is not None and not any(
                r.y <= y < r.bottom and r.x <= start < r.right for r in regions
            ):
                continue
            fg, bg = _colours(style)
            bg = bg or background
            if fg is None or bg is None:
                continue
            fg_number, fg_rgb = eight_bit(fg)
            bg_number, bg_rgb = eight_bit(bg)
            contrast = ratio(fg_rgb, bg_rgb)
            kinds = {kind_of(c) for c in text} - {None}
            for kind in kinds:
                minimum = TEXT_MINIMUM if kind == "text" else BORDER_MINIMUM
                if contrast < minimum:
                    found.append(
                        LowContrast(
                            name, y, text, kind, contrast, (fg_number, bg_number)
                        )
                    )
    return found


__all__ = [
    "BORDER_MINIMUM",
    "TEXT_MINIMUM",
    "LowContrast",
    "eight_bit",
    "measure",
    "ratio",
]
_ = Segment  # the strips' items
