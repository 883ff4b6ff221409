"""F5 reloads the skills; counts read in the right number."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import settle

from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.timeline import Timeline


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


def toasts(app: AiqApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_f5_reloads_the_skills(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f5")
        await settle(pilot)
        assert any(kind == "reload" for kind, _ in app.query_one(Timeline).entries)


def test_counts_read_in_the_right_number() -> None:
    from aiq_tui.ui.text_fit import counted

    assert (
        counted(1, "step") == "1 step"
        and counted(2, "step") == "2 steps"
        and counted(0, "step") == "0 steps"
    )
