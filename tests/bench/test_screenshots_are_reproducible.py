"""``make screenshots`` gives the committed SVGs byte for byte: regenerating them changes
nothing unless a screen changed (then the new pictures are committed with the change). It did
not: session ids, times, measured durations and the temporary home's path got into them."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import screenshots

pytestmark = pytest.mark.slow


def test_regenerating_the_screenshots_gives_the_committed_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)  # the pictures are in colour
    committed = sorted(screenshots.OUT.glob("*.svg"))
    assert committed, "screenshots/ holds no SVG"
    assert screenshots.main(tmp_path) == 0
    made = sorted(tmp_path.glob("*.svg"))
    assert [p.name for p in made] == [p.name for p in committed]
    differ = [
        p.name for p in committed if p.read_bytes() != (tmp_path / p.name).read_bytes()
    ]
    assert not differ, (
        f"regenerated screenshots differ (run `make screenshots`): {differ}"
    )
