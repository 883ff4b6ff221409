"""What this machine has, and what CI says it has: a skip that can only mean "this machine lacks X".

Some tests need something of the machine: unprivileged namespaces (``userns``), Landlock
(``landlock``), the PostgreSQL server binaries (``postgres``) or ``../shared`` beside the checkout
(``shared``). On a developer's machine without it they skip, saying why. But the same skip is
also what a regression looks like (a probe that wrongly says "no namespaces", a server that no
longer starts), so ``.ci/run`` probes the machine on its own — not with the code under test —
and declares what it found::

    AIQ_CI_EXPECT=landlock,userns,postgres,shared

A test whose prerequisite is declared then *fails* instead of skipping. A plain local run (no
variable) skips as before.

Two ways in: :func:`missing` inside a test or fixture, and the marker
``@pytest.mark.needs("userns")`` (checked by :func:`check_needs` before the test runs).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import pytest

VARIABLE = "AIQ_CI_EXPECT"
SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def _namespaces() -> bool:
    from aiq_tui.tools import launcher

    return launcher._namespaces_work()


def _landlock() -> bool:
    from aiq_tui.tools import launcher

    return sys.platform.startswith("linux") and launcher._kernel_landlock_abi() >= 1


def _shared() -> bool:
    return (SHARED / "corpus" / "anthropic-skills").is_dir()


# capability → (probe used by the marker, what its absence means); "postgres" is decided where
# the server is started (tests/tools/test_sql_postgres.py), so it has no probe here.
CAPABILITIES: dict[str, tuple[Callable[[], bool] | None, str]] = {
    "userns": (
        _namespaces,
        "unprivileged user/mount/network namespaces are unavailable",
    ),
    "landlock": (_landlock, "the kernel has no Landlock (sandbox: policy only)"),
    "postgres": (None, "a PostgreSQL server cannot be started here"),
    "shared": (
        _shared,
        "../shared/corpus/anthropic-skills is not present next to the checkout",
    ),
}


def expected() -> frozenset[str]:
    """The capabilities CI declared present (empty on a plain local run)."""
    words = frozenset(
        word.strip() for word in os.environ.get(VARIABLE, "").split(",") if word.strip()
    )
    unknown = sorted(words - CAPABILITIES.keys())
    if unknown:  # a typo must not quietly turn a declaration into a skip
        raise pytest.UsageError(
            f"{VARIABLE}: unknown capability {', '.join(unknown)} "
            f"(known: {', '.join(sorted(CAPABILITIES))})"
        )
    return words


def missing(capability: str, why: str = "") -> NoReturn:
    """The machine lacks ``capability``: skip with ``why`` — or fail, when CI declared it present."""
    if capability not in CAPABILITIES:
        raise ValueError(f"unknown capability {capability!r}")
    why = why or CAPABILITIES[capability][1]
    if capability in expected():
        pytest.fail(
            f"{why} — but {VARIABLE} declares {capability!r} present on this machine",
            pytrace=False,
        )
    pytest.skip(why)


def require(capability: str, present: bool, why: str = "") -> None:
    """Go on when ``present``; otherwise :func:`missing`."""
    if not present:
        missing(capability, why)


def check_needs(item: pytest.Item) -> None:
    """Before a test marked ``needs(...)`` runs: each named capability is probed, and a missing
    one skips or fails it (see :func:`missing`)."""
    for mark in item.iter_markers("needs"):
        for capability in mark.args:
            probe, why = CAPABILITIES[capability]
            if probe is None:
                raise pytest.UsageError(
                    f"needs({capability!r}) has no probe; call missing() where it is decided"
                )
            require(capability, probe(), mark.kwargs.get("reason", why))
