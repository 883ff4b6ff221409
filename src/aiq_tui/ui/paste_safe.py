"""Pasted text arrives whole and in order, its control characters shown harmless.

Textual's input parser reads an ESC inside a bracketed paste as the start of a key sequence:
what follows it leaves the paste and is typed as keys, ahead of the paste's first part (pasting
``abc <ESC>[31mred def`` gave ``^[31mred defabc``), and that reordered text was sent and saved.
:class:`PasteSafeParser` rewrites control characters between the paste's start and end markers
into caret notation (ESC → ``^[``, BEL → ``^G``) before the parser sees them, so the paste holds
no ESC but its end marker's and reaches the prompt as one :class:`~textual.events.Paste`, in
order, with each escape shown where it was. Tab, line breaks and the rest pass as they are.

The parser is swapped in where the driver builds it (:func:`install`); a Textual that builds it
differently is left as it is (tests/ui/test_a_pasted_escape_keeps_its_place.py notices).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from aiq_tui.ui.textual_compat import XTermParser

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
_KEPT = {"\t", "\n", "\r"}


def caret(character: str) -> str:
    """``^[`` for ESC, ``^G`` for BEL, ``^?`` for DEL: how a terminal shows a control key."""
    code = ord(character)
    return "^?" if code == 0x7F else "^" + chr(code + 0x40)


class PasteDefuser:
    """Rewrites the control characters inside bracketed pastes, across reads. Outside a paste
    nothing is held back (an Escape pressed alone goes at once); inside one, an ESC that may
    begin the end marker waits for the next read to say whether it does."""

    def __init__(self) -> None:
        self.in_paste = False
        self._held = ""
        self._tail = (
            ""  # the last characters outside a paste: a start marker split by a read
        )

    def __call__(self, data: str, *, final: bool = False) -> str:
        data = self._held + data
        self._held = ""
        out: list[str] = []
        index = 0
        while index < len(data):
            character = data[index]
            if not self.in_paste:
                out.append(character)
                index += 1
                self._tail = (self._tail + character)[-len(PASTE_START) :]
                if self._tail == PASTE_START:
                    self.in_paste, self._tail = True, ""
                continue
            if data.startswith(PASTE_END, index):
                out.append(PASTE_END)
                index += len(PASTE_END)
                self.in_paste = False
                continue
            rest = data[index:]
            if not final and PASTE_END.startswith(rest):
                self._held = rest
                break
            control = (ord(character) < 0x20 and character not in _KEPT) or ord(
                character
            ) == 0x7F
            out.append(caret(character) if control else character)
            index += 1
        return "".join(out)


class PasteSafeParser(XTermParser):
    """Textual's parser, fed through a :class:`PasteDefuser`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._defuse = PasteDefuser()

    def feed(self, data: str) -> Iterable[Any]:
        if data:
            return super().feed(self._defuse(data))
        held = self._defuse("", final=True)  # the end of input: what was held goes now
        return [*super().feed(held), *super().feed("")] if held else super().feed("")


def install(driver_class: type) -> bool:
    """Make ``driver_class`` build a :class:`PasteSafeParser`; False when it builds none."""
    module = sys.modules.get(driver_class.__module__)
    if module is None or getattr(module, "XTermParser", None) not in (
        XTermParser,
        PasteSafeParser,
    ):
        return False
    module.XTermParser = PasteSafeParser  # type: ignore[attr-defined]
    return True
