"""Issue 33 item 2: the match inspector says when the model reads a skill's description
shortened in the catalog — from what to what, and why — with the prompt builder's figures."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from helpers import wait_until
from textual.widgets import Input, Static

from aiq_tui.agent.engine import Engine
from aiq_tui.context.prompt import catalog_cuts
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.inspector import InspectorScreen
from aiq_tui.workspace import Workspace

LONG = (
    "Build elaborate multi-page web artifacts with state management, routing, shared components, "
    "design tokens, accessibility checks, bundling and a preview server for every page of the site, "
    "including forms, tables and charts - not for simple single-file HTML pages."
)


async def test_the_inspector_says_a_description_is_shortened_from_what_to_what_and_why(
    tmp_path: Path,
) -> None:
    skills = tmp_path / "skills" / "site-builder"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_text(
        f"---\nname: site-builder\ndescription: {LONG}\n---\n# Site\n", "utf-8"
    )
    engine = Engine.create(
        Workspace.open(home_flag=tmp_path / "home", skills_dirs=[skills.parent])
    )
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        app.push_screen(InspectorScreen(engine, "build a web site"))
        await wait_until(
            lambda: isinstance(app.screen, InspectorScreen), "the inspector"
        )
        screen = app.screen
        await wait_until(lambda: screen.ranking is not None, "the ranking")
        screen.query_one("#why-name", Input).value = "site-builder"
        await pilot.press("ctrl+n", "enter")
        why = screen.query_one("#why", Static)
        await wait_until(lambda: "site-builder" in str(why.render()), "the explanation")
        shown = " ".join(str(why.render()).split())

    [cut] = [
        cut
        for cut in catalog_cuts(engine.current_prompt(), engine.counter.count)
        if cut.name == "site-builder"
    ]
    assert cut.whole_chars == len(LONG) > cut.chars
    assert f"description shortened, {cut.figures()}" in shown
    assert "8,192-token window" in shown and "disclosure.descriptions_share" in shown
    # … and what the model does read still says what the skill is not for.
    assert "(not for simple single-file HTML pages)" in engine.current_prompt().system
