"""JSON from outside (model replies, tool output, session files) parsed with a bound on its depth.

Python's ``json`` recurses once per level and gives up near 1,000 levels minus the caller's
stack with a :class:`RecursionError`, which most callers do not expect (they catch
``ValueError``); and a structure that did load recurses again wherever it is dumped, drawn or
compared. :func:`loads_bounded` turns both into :class:`JSONTooDeep`, a ``ValueError``, so a
caller that already reports invalid JSON reports this too, and a limit set in the config model
keeps what is kept far from that end.
"""

from __future__ import annotations

import json
from itertools import chain
from typing import Any

_CONTAINERS = frozenset((dict, list))


class JSONTooDeep(ValueError):
    """JSON nested deeper than ``limit`` levels (None: deeper than Python's ``json`` can read)."""

    def __init__(self, limit: int | None):
        self.limit = limit
        super().__init__(
            f"nested deeper than {limit} levels" if limit else "nested too deep to read"
        )


def nested_deeper_than(root: Any, limit: int) -> bool:
    """Whether ``root`` nests dicts and lists more than ``limit`` deep (a scalar is 0 deep).
    Level by level, without recursion, one comprehension a level: 10 ms for a 300-turn
    session (2 MB), a quarter of what reading it takes."""
    level = [root] if type(root) in _CONTAINERS else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        items = chain.from_iterable(
            [c.values() if type(c) is dict else c for c in level]
        )
        level = [item for item in items if type(item) in _CONTAINERS]
    return False


def loads_bounded(text: str | bytes, max_depth: int | None = None) -> Any:
    """``json.loads(text)``, raising :class:`JSONTooDeep` (a ``ValueError``) instead of
    :class:`RecursionError`, and when the value nests more than ``max_depth`` levels."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONTooDeep(max_depth) from None
    if max_depth is not None and nested_deeper_than(value, max_depth):
        raise JSONTooDeep(max_depth)
    return value
