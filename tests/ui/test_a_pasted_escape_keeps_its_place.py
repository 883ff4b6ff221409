"""A bracketed paste that holds an escape sequence reaches the prompt whole and in order, the
escape shown harmless (``^[``) where it was — it was split, its tail typed ahead of its head
(``abc <ESC>[31mred def`` became ``^[31mred defabc``) and sent so."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual import events

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine

from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.paste_safe import PasteDefuser


def parser_of_the_app(tmp_path: Path):
    """The input parser the app's terminal driver builds."""
    app = AiqApp(FakeEngine(tmp_path), clock=fixed_clock, watch=False)
    module = sys.modules[app.driver_class.__module__]
    if not hasattr(module, "XTermParser"):
        pytest.skip(f"{app.driver_class.__name__} parses no xterm input")
    return module.XTermParser()


def pasted(text: str) -> str:
    return f"\x1b[200~{text}\x1b[201~"


@pytest.mark.parametrize(
    ("paste", "shown"),
    [
        ("abc \x1b[31mred def", "abc ^[[31mred def"),
        ("one two \x1b]0;T\x07 three", "one two ^[]0;T^G three"),
        ("tab\tand line\nbreak", "tab\tand line\nbreak"),
    ],
)
def test_the_paste_arrives_whole_and_in_order(
    tmp_path: Path, paste: str, shown: str
) -> None:
    parser = parser_of_the_app(tmp_path)
    received = [*parser.feed(pasted(paste) + "x"), *parser.feed("")]
    assert isinstance(received[0], events.Paste) and received[0].text == shown
    assert [e.key for e in received[1:] if isinstance(e, events.Key)] == ["x"]


def test_a_marker_split_between_reads_is_still_a_marker() -> None:
    defuse = PasteDefuser()
    chunks = ["typed \x1b[20", "0~abc \x1b", "[31mred \x1b[2", "01~ after \x1b"]
    out = "".join(defuse(chunk) for chunk in chunks)
    assert out == "typed \x1b[200~abc ^[[31mred \x1b[201~ after \x1b"
    assert not defuse.in_paste
