"""Measured contrast of what a screen draws in truecolor: the both-themes readability tests' helpers (WCAG ratios)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


from aiq_tui.ui.app import AiqApp


def contrast(first, second) -> float:
    """WCAG contrast ratio of two rich ColorTriplets."""

    def luminance(color) -> float:
        parts = [v / 255 for v in color]
        parts = [
            v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in parts
        ]
        return 0.2126 * parts[0] + 0.7152 * parts[1] + 0.0722 * parts[2]

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def drawn_contrasts(
    app: AiqApp, region, wanted=lambda text: True
) -> list[tuple[float, str]]:
    """(contrast, text) of every word drawn inside ``region``, from the colours the screen really
    uses (run without NO_COLOR, so the theme's colours, not a monochrome filter's). A ``dim``
    word is blended half-way into its background, as Textual's DimFilter and most terminals
    draw it."""
    found = []
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        x = 0
        for segment in strip:
            style, text = segment.style, segment.text
            if (
                region.contains(x, y)
                and any(ch.isalnum() for ch in text)
                and wanted(text.strip())
                and style
                and style.color
                and style.bgcolor
            ):
                colour, ground = (
                    style.color.get_truecolor(),
                    style.bgcolor.get_truecolor(),
                )
                if style.dim:
                    colour = tuple((c + g) // 2 for c, g in zip(colour, ground))
                found.append((round(contrast(colour, ground), 2), text.strip()))
            x += len(text)
    return found
