"""One assistant answer, rendered as markdown and streamed into place — one widget.

Textual's ``Markdown`` widget builds a widget per block (a paragraph, a fence and its label,
a table and one widget per cell: ~28 for a demo answer with a five-row table), and a theme
change (Ctrl+T) re-applies the stylesheet to every widget on the screen: with 40 messages in
the conversation that took ~1.5 s. Here the answer is a single widget that draws Rich's
markdown renderable, in colours taken from the theme and made readable on the answer's
background (:func:`aiq_tui.ui.badges.hue_style`), so a theme change re-styles one widget per
message and the markdown is drawn again only for the answers that are measured or visible.

Streaming stays cheap: a fragment appends to :attr:`AnswerView.text` and asks for a refresh;
the markdown is parsed when the widget is next drawn (at most once a frame), not per fragment.

The drawn lines are handed to Textual as :class:`~textual.content.Content`, not as the Rich
renderable itself: Textual selects text (mouse drag, double and triple click, Ctrl+C) only in
content it can read, so an answer is selected like every other text on the screen.

Its own module because markdown-it is costly to import: the conversation pane imports it
when the first answer arrives, not before the app's first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markdown import Markdown as RichMarkdown
from rich.style import Style
from rich.text import Text
from rich.theme import Theme
from textual.cache import LRUCache
from textual.color import Color
from textual.content import Content
from textual.widget import Widget

from aiq_tui.ui.badges import hue_style, readable

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from textual.app import App
    from textual.geometry import Size
    from textual.selection import Selection

# Rich markdown style → (theme variable for its hue, text style). Hues are made readable on the
# answer's background; the rest of the text keeps the widget's own colour.
MARKDOWN_HUES: dict[str, tuple[str, str]] = {
    "markdown.code": ("text-warning", "bold"),
    "markdown.block_quote": ("text-secondary", ""),
    "markdown.list": ("text-primary", ""),
    "markdown.item.number": ("text-primary", ""),
    "markdown.h2": ("text-primary", "bold underline"),
    "markdown.h3": ("text-primary", "bold"),
    "markdown.h4": ("text-primary", "italic"),
    "markdown.h6": ("text-muted", ""),
    "markdown.h7": ("text-muted", "italic"),
    "markdown.hr": ("text-muted", ""),
    "markdown.link": ("text-primary", "underline"),
    "markdown.link_url": ("text-primary", "underline"),
    "markdown.table.header": ("text-primary", "bold"),
    "markdown.kbd": ("text-warning", "bold"),
}
# dark, light: Pygments styles with their own background whose every colour stays ≥ 4.5:1 on it
# in 256 colours too (monokai's comments were 3.8:1, "default"'s keywords 4.05:1)
CODE_THEMES = {True: "github-dark", False: "xcode"}

_themes: dict[tuple[object, ...], Theme] = {}


def markdown_theme(app: App[object], background: Color) -> Theme:
    """Rich's markdown styles in the app's current theme, readable on ``background``."""
    theme = app.current_theme
    key = (theme.name, id(theme), background.rgb)
    cached = _themes.get(key)
    if cached is None:
        variables = app.get_css_variables()
        rule = background + Color.parse(
            variables.get("foreground", "#808080")
        ).with_alpha(0.3)
        # a table's rules are a border: 3:1, in 256 colours too (at 30 % they were 2:1)
        styles: dict[str, Style] = {
            "markdown.table.border": Style(
                color=readable(rule, background, minimum=3.0).rich_color
            )
        }
        for name, (hue, text_style) in MARKDOWN_HUES.items():
            styles[name] = hue_style(variables, hue, text_style, background)
        styles["markdown.code"] += Style(
            bgcolor=background.blend(
                Color.parse(variables.get("warning", "#808080")), 0.1
            ).rich_color
        )
        cached = _themes[key] = Theme(styles)
    return cached


RECENTLY_DRAWN = 32
"""Answers whose drawing is kept beyond their widget, by text, width and theme, whichever widget
drew them: a few screens of the conversation. Stepping the time cursor back and forth (and back
to live) unmounts answers and mounts them again as new widgets; a demo answer with a table took
6.5 ms to parse and draw, most of a frame, each time. :class:`~textual.content.Content` is
immutable: widgets can share it."""
_recently_drawn: LRUCache[tuple[object, ...], Content] = LRUCache(RECENTLY_DRAWN)


class ThemedMarkdown:
    """A Rich markdown renderable drawn with ``theme``'s markdown styles."""

    def __init__(self, markdown: RichMarkdown, theme: Theme) -> None:
        self.markdown = markdown
        self.theme = theme

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> RenderResult:
        with console.use_theme(self.theme):
            yield from console.render(self.markdown, options)


class AnswerView(Widget):
    """One assistant answer, streamed into place."""

    DEFAULT_CSS = "AnswerView { height: auto; }"

    def __init__(self, text: str = "") -> None:
        super().__init__(classes="answer")
        self.border_title = "assistant"
        self.text = text
        self._parsed: tuple[str, RichMarkdown] | None = None
        self._height: tuple[tuple[str, int], int] | None = None
        self._drawn: tuple[tuple[object, ...], Content] | None = None

    def theme(self) -> tuple[Theme, str]:
        """Rich's markdown styles for the answer's background in the app's theme, and the code
        blocks' Pygments style."""
        background = self.rich_style.bgcolor
        ground = (
            Color.from_rich_color(background)
            if background is not None
            else Color(0, 0, 0)
        )
        return markdown_theme(self.app, ground), CODE_THEMES[
            self.app.current_theme.dark
        ]

    def markdown(self, theme: Theme, code_theme: str) -> ThemedMarkdown:
        """The answer as Rich's markdown renderable, in the theme's colours for its background."""
        if (
            self._parsed is None or self._parsed[0] != self.text
        ):  # parsed once per text, not per theme
            # hyperlinks=False: a link reads "words (target)"; a model's link cannot show one
            # address and open another.
            self._parsed = (self.text, RichMarkdown(self.text, hyperlinks=False))
        markdown = self._parsed[1]
        markdown.code_theme = code_theme  # read as code blocks are drawn
        return ThemedMarkdown(markdown, theme)

    def render(self) -> Content:
        return self.drawn(self.content_region.width)

    def drawn(self, width: int) -> Content:
        """The markdown drawn at ``width`` as selectable content, kept per text, width and theme:
        measuring and drawing at one width draw it once, and so does a frame that changes
        nothing in it."""
        width = max(1, width)
        theme, code_theme = self.theme()
        key = (self.text, width, id(theme), code_theme)
        if self._drawn is None or self._drawn[0] != key:
            content = _recently_drawn.get(key)
            if (
                content is None
            ):  # parsed and drawn only now: a drawing kept is not parsed again
                themed = self.markdown(theme, code_theme)
                console = self.app.console
                lines = console.render_lines(
                    themed, console.options.update(width=width, height=None), pad=False
                )
                text = Text(no_wrap=True, end="")
                for number, line in enumerate(lines):
                    if number:
                        text.append("\n")
                    for segment in line:
                        if not segment.control:
                            text.append(segment.text, segment.style)
                content = Content.from_rich_text(text, console)
                _recently_drawn.set(key, content)
            self._drawn = (key, content)
        return self._drawn[1]

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text without the spaces that fill each drawn line to the width (Rich
        pads paragraphs and code blocks): what is copied is what was written."""
        extracted = super().get_selection(selection)
        if extracted is None:
            return None
        text, ending = extracted
        return "\n".join(line.rstrip() for line in text.split("\n")), ending

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Measured once per text and width: a theme change recolours an answer, it does not
        reflow it, so the answers off screen are not drawn again to be measured."""
        # A pane squeezed to nothing (a 40-column terminal) still measures at one column:
        # wrapping at width 0 raised in Rich's chop_cells and stopped the app.
        width = max(1, width)
        key = (self.text, width)
        if self._height is None or self._height[0] != key:
            styles: Any = (
                self.styles
            )  # read as the RulesMap it wraps, as Widget's own code does
            self._height = (key, self.drawn(width).get_height(styles, width))
        return self._height[1]

    async def write(self, fragment: str) -> None:
        self.text += fragment
        self.refresh(layout=True)

    async def finish(self, final: str | None = None) -> None:
        """Stop streaming; show ``final`` when it differs from what streamed (it is canonical)."""
        if final is not None and final != self.text:
            self.text = final
            self.refresh(layout=True)
