"""Fixtures every test gets: an isolated HOME and config home, and the shared corpus path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aiq_tui.locations import Home

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Home:
    """Every test runs with its own HOME and AIQ_HOME: the real ~ is never read or written."""
    base = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(base))
    monkeypatch.setenv("AIQ_HOME", str(base / ".aiqconfig"))
    for variable in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    for variable in [name for name in os.environ if name.startswith("OTEL_")]:  # a developer's collector
        monkeypatch.delenv(variable)
    monkeypatch.setenv("NO_COLOR", "1")
    return Home(base / ".aiqconfig")


@pytest.fixture
def shared_dir() -> Path:
    """../shared next to the checkout; tests that need it skip cleanly when it is absent."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not present next to the checkout")
    return SHARED


@pytest.fixture
def corpus_dir(shared_dir: Path) -> Path:
    corpus = shared_dir / "corpus" / "anthropic-skills"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus/anthropic-skills is not present")
    return corpus
