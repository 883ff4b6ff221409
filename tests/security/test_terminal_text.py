"""The one terminal sanitiser, as a spec: what is escaped, what is kept, what is exact."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from io import StringIO

from hypothesis import given
from hypothesis import strategies as st

from aiq_tui.terminal_text import (
    approval_text,
    exact,
    for_terminal,
    hidden_note,
    json_safe,
    printable,
)


def test_escape_sequences_become_visible_text() -> None:
    assert printable("a\x1b]52;c;aGk=\x07b") == "a\\x1b]52;c;aGk=\\x07b"
    assert printable("\x9b2J") == "\\x9b2J"  # the one-byte CSI
    assert printable("x\x7fy") == "x\\x7fy"
    assert printable("over\rwrite") == "over\\rwrite"


def test_newlines_and_tabs_stay_where_text_has_lines_and_crlf_becomes_lf() -> None:
    assert printable("a\n\tb\r\nc") == "a\n\tb\nc"
    assert printable("a\n\tb", one_line=True) == "a\\n\\tb"


def test_lone_surrogates_and_bidi_overrides_are_escaped() -> None:
    assert printable("half \ud83d emoji") == "half \\ud83d emoji"
    assert printable("abc\u202edcb") == "abc\\u202edcb"
    printable("\udc00\ud800").encode("utf-8")  # always encodable


def test_clean_text_is_returned_as_is() -> None:
    text = "plain text — with ünïcode, emoji 👩‍👩‍👧 and\nlines"
    assert printable(text) is text


def test_exact_shows_invisible_characters_and_counts_them() -> None:
    command = "rm\u200b -rf\u00a0x\t\x1bM"
    assert exact(command) == "rm\\u200b -rf\\xa0x\\t\\x1bM"
    assert "4 control or invisible characters" in (hidden_note(command) or "")
    assert hidden_note("ls -la") is None
    assert approval_text("ls\nwc") == "ls\nwc"  # a multi-line script reads as lines


@dataclass(frozen=True)
class Event:
    name: str
    arguments: dict
    count: int = 0


def test_for_terminal_cleans_every_string_in_a_copy_and_leaves_clean_values_alone() -> (
    None
):
    clean = Event("ok", {"a": ["b", 1]})
    assert for_terminal(clean) is clean
    dirty = Event("x\x1b[2J", {"k\x1b": ("v\x07", 2)}, 3)
    cleaned = for_terminal(dirty)
    assert cleaned == Event("x\\x1b[2J", {"k\\x1b": ("v\\x07", 2)}, 3)
    assert dirty.name == "x\x1b[2J"  # the original is untouched


def test_json_safe_escapes_c1_and_keeps_the_value() -> None:
    text = json.dumps({"t": "a\x9bb\u2028c"}, ensure_ascii=False)
    safe = json_safe(text)
    assert "\x9b" not in safe and json.loads(safe) == {"t": "a\x9bb\u2028c"}


UNSAFE_CATEGORIES = {"Cc", "Cs"}


@given(st.text(alphabet=st.characters(codec=None, categories=None)))
def test_printable_output_holds_no_control_character_and_is_stable(text: str) -> None:
    shown = printable(text)
    assert all(
        ch in "\n\t" or unicodedata.category(ch) not in UNSAFE_CATEGORIES
        for ch in shown
    )
    assert printable(shown) == shown
    line = printable(text, one_line=True)
    assert "\n" not in line and "\t" not in line


@given(st.text())
def test_exact_output_holds_nothing_invisible_but_newlines(text: str) -> None:
    shown = exact(text)
    assert all(ch in "\n " or ch.isprintable() for ch in shown)


def test_the_console_escapes_content_but_keeps_its_own_styles() -> None:
    from rich.text import Text

    from aiq_tui.commands.safe_console import SafeConsole

    out = StringIO()
    console = SafeConsole(
        file=out,
        force_terminal=True,
        color_system="standard",
        width=80,
        highlight=False,
    )
    console.print(Text.assemble(("bold", "bold"), " evil\x1b]0;t\x1b\\"), markup=False)
    console.print("str \x1b[2J", markup=False)
    written = out.getvalue()
    assert (
        "\x1b[1mbold\x1b[0m evil\\x1b]0;t\\x1b\\" in written
    )  # rich's own bold, on "bold" only
    assert "str \\x1b[2J" in written
    assert "\x1b]" not in written and "\x1b[2J" not in written
