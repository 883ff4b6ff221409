"""Fixtures for the workbench tests: a scripted fake engine and a fixed clock."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import pytest

# The fake engine lives next to the tests; importlib mode does not put this folder on sys.path.
sys.path.insert(0, str(Path(__file__).parent))

from fake_engine import FakeEngine

FIXED = datetime(2025, 1, 2, 12, 0, 0)


def fixed_clock() -> datetime:
    return FIXED


@pytest.fixture
def fake_engine(tmp_path: Path) -> FakeEngine:
    return FakeEngine(tmp_path)
