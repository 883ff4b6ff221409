"""Fixtures every test gets: an isolated HOME and config home, and the shared corpus path; the
``needs`` marker (tests/capabilities.py: skip where the machine lacks something, fail where CI
declared it present)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aiq_tui.locations import Home
from tests.capabilities import SHARED, check_needs, expected, missing


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "needs(*capabilities): skip without them, fail where AIQ_CI_EXPECT "
        "declares them (tests/capabilities.py)",
    )
    config.addinivalue_line(
        "markers",
        "typing_grace: keep ui.typing_grace as configured (every other test answers a dialog "
        "at once, as a person who has stopped typing would)",
    )
    expected()  # an unknown word in AIQ_CI_EXPECT stops the run before any test


def pytest_report_header(config: pytest.Config) -> str:
    declared = sorted(expected())
    return f"AIQ_CI_EXPECT: {', '.join(declared) if declared else '(none: missing capabilities skip)'}"


def pytest_runtest_setup(item: pytest.Item) -> None:
    check_needs(item)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Home:
    """Every test runs with its own HOME and AIQ_HOME: the real ~ is never read or written."""
    base = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(base))
    monkeypatch.setenv("AIQ_HOME", str(base / ".aiqconfig"))
    for variable in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        # where harnesses keep skills: a developer's own must not move a test's folders
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "XDG_CONFIG_HOME",
        "SLASH_COMMAND_TOOL_CHAR_BUDGET",
    ):
        monkeypatch.delenv(variable, raising=False)
    for variable in [
        name for name in os.environ if name.startswith("OTEL_")
    ]:  # a developer's collector
        monkeypatch.delenv(variable)
    monkeypatch.setenv("NO_COLOR", "1")
    return Home(base / ".aiqconfig")


@pytest.fixture(autouse=True)
def answers_without_typing_grace(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pilot's key reaches a dialog the instant it opens, where a person's would come after
    reading it: outside the tests of the grace itself (marked ``typing_grace``), keys are taken
    as a person's who has stopped typing."""
    if request.node.get_closest_marker("typing_grace") is not None:
        return
    from aiq_tui.ui.typing_guard import TypingClock

    monkeypatch.setattr(TypingClock, "grace", property(lambda self: 0.0))


@pytest.fixture
def shared_dir() -> Path:
    """../shared next to the checkout; tests that need it skip cleanly when it is absent (and
    fail where CI declared ``shared``)."""
    if not SHARED.is_dir():
        missing("shared", "../shared is not present next to the checkout")
    return SHARED


@pytest.fixture
def corpus_dir(shared_dir: Path) -> Path:
    corpus = shared_dir / "corpus" / "anthropic-skills"
    if not corpus.is_dir():
        missing("shared", "../shared/corpus/anthropic-skills is not present")
    return corpus
