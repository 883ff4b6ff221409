"""F5 / Ctrl+R say what the reload found, whichever tab is in front; a skill broken by the edit
being reloaded is the one the toast names — not a broken skill the banner already counted."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from helpers import settle

from aiq_tui.agent.engine import Engine
from aiq_tui.ui.app import AiqApp
from aiq_tui.workspace import Workspace


def skill(home: Path, name: str, text: str) -> Path:
    folder = home / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder / "SKILL.md"


def toasts(app: AiqApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_f5_names_the_skill_it_found_broken_not_an_older_one(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    skill(home, "old-broken", "---\nname: old-broken\n---\nno description\n")
    edited = skill(
        home,
        "report-maker",
        "---\nname: report-maker\ndescription: makes reports\n---\nbody\n",
    )
    engine = Engine.create(Workspace.open(home_flag=home))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.clear_notifications()
        await pilot.press("f5")
        await pilot.pause()
        assert any("Skills reloaded: nothing changed" in t for t in toasts(app)), (
            toasts(app)
        )
        assert not any("old-broken" in t for t in toasts(app)), toasts(app)

        app.clear_notifications()
        edited.write_text("---\nname: report-maker\n---\nits description went\n")
        await pilot.press("ctrl+r")
        await pilot.pause()
        said = toasts(app)
        assert any("report-maker" in t and "Skills reloaded" not in t for t in said), (
            said
        )
        assert not any("old-broken" in t for t in said), said
        assert any("Skills reloaded:" in t for t in said), said
