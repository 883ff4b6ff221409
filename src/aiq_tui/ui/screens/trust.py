"""The first-start question in a project folder: "Do you trust the files in this folder?"

Shown once per folder (the answer is remembered in the config home, :mod:`aiq_tui.trust`) when
the folder brings something trust decides about — project skills, a ``.mcp.json``. Escape
decides later: the folder stays untrusted for this run and is asked about again next time.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import Button, Footer

from aiq_tui.terminal_text import printable
from aiq_tui.trust import TrustLevel
from aiq_tui.ui.plain import PlainLabel, PlainStatic
from aiq_tui.ui.screens.deliberate import DeliberateDialog
from aiq_tui.ui.screens.dialog import Dialog

TRUSTED_MEANS = (
    "Trusted, its skills' allowed-tools may pre-approve tool calls, its script skills run like your "
    "own, and its MCP servers may start. Only trust folders whose files you know: a cloned "
    "repository can bring instructions and scripts."
)
UNTRUSTED_MEANS = (
    "Untrusted, its skills still match and give instructions, but they pre-approve nothing and "
    "their scripts always ask."
)


class TrustScreen(DeliberateDialog, ModalScreen["TrustLevel | None"]):
    """Dismisses with the user's :class:`~aiq_tui.trust.TrustLevel`, or None to decide later."""

    BINDINGS = [
        Binding("y", "decide('trusted')", "Trust"),
        Binding("n", "decide('untrusted')", "Don't trust"),
        Binding("escape", "later", "Decide later"),
    ]

    def __init__(self, folder: Path, offers: Sequence[str]) -> None:
        super().__init__(classes="modal")
        self.folder = folder
        self.offers = tuple(offers)

    def compose(self) -> ComposeResult:
        with Dialog(id="trust", classes="dialog"):
            yield PlainLabel(
                "Do you trust the files in this folder?",
                id="trust-title",
                classes="dialog-title",
            )
            yield PlainStatic(
                printable(_shown(self.folder)), id="trust-folder", markup=False
            )
            yield PlainStatic(
                f"It brings: {', '.join(self.offers)}", id="trust-offers", markup=False
            )
            yield PlainStatic(TRUSTED_MEANS, classes="trust-text", markup=False)
            yield PlainStatic(UNTRUSTED_MEANS, classes="trust-text dim", markup=False)
            yield PlainStatic(
                "Remembered for this folder and the folders below it; `aiq-tui trust` changes "
                "it. Esc decides later.",
                classes="dim",
                markup=False,
            )
            with Horizontal(classes="buttons"):
                yield Button("Yes, trust it (y)", id="trusted", variant="warning")
                yield Button(
                    "No, don't trust it (n)", id="untrusted", variant="primary"
                )
        yield Footer()  # this dialog's own keys (the main screen's are off while it is open)

    def on_mount(self) -> None:
        self.query_one("#untrusted", Button).focus()  # the safe choice has focus
        self.start_deliberate()  # it opens as the app starts: keys typed then are a question

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "untrusted")

    def action_decide(self, value: str) -> None:
        self.dismiss(TrustLevel(value))

    def action_later(self) -> None:
        self.dismiss(None)


def _shown(folder: Path) -> str:
    """The folder as users write it: ``~/code/app`` under the home folder."""
    home = Path.home()
    try:
        return "~/" + str(folder.relative_to(home)) if folder != home else "~"
    except ValueError:
        return str(folder)
