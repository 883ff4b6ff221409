"""The first start in a project folder asks "Do you trust the files in this folder?" (issue 23).

Asked once per folder that brings skills or a .mcp.json; the answer is remembered in the config
home and takes effect at once; focus goes back to the prompt."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import wait_until

from aiq_tui.locations import Home
from aiq_tui.trust import TrustLevel, project_trust, record
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.trust import TrustScreen
from aiq_tui.ui.widgets.prompt import PromptInput

SIZE = (120, 36)


def cloned_project(root: Path, *, skills: int = 1, mcp: bool = False) -> Path:
    for index in range(skills):
        folder = root / ".agents" / "skills" / f"helper-{index}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: helper-{index}\ndescription: Helps\n---\nBody\n"
        )
    if mcp:
        (root / ".mcp.json").write_text('{"mcpServers": {}}')
    root.mkdir(parents=True, exist_ok=True)
    return root


def make_app(tmp_path: Path, project: Path) -> tuple[AiqApp, FakeEngine]:
    engine = FakeEngine(tmp_path)
    app = AiqApp(
        engine, clock=fixed_clock, watch=False, flash_seconds=3600, project=project
    )
    app.animation_level = "none"
    return app, engine


async def _dialog(pilot, app: AiqApp) -> TrustScreen:
    await wait_until(
        lambda: isinstance(app.screen, TrustScreen) and app.screen.armed,
        "the trust dialog, taking keys",
    )
    return app.screen  # type: ignore[return-value]


@pytest.mark.parametrize(
    "key, level", [("y", TrustLevel.TRUSTED), ("n", TrustLevel.UNTRUSTED)]
)
async def test_the_answer_is_remembered_and_focus_returns_to_the_prompt(
    tmp_path: Path, isolated_home: Home, key: str, level: TrustLevel
) -> None:
    project = cloned_project(tmp_path / "clone", skills=2, mcp=True)
    app, engine = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _dialog(pilot, app)
        assert dialog.offers == (".agents/skills (2 skills)", ".mcp.json")
        await pilot.press(key)
        await wait_until(
            lambda: project_trust(engine.workspace.home, project).level is level,
            "the decision",
        )
        assert not isinstance(app.screen, TrustScreen)
        assert isinstance(app.focused, PromptInput)


async def test_escape_decides_later(tmp_path: Path, isolated_home: Home) -> None:
    project = cloned_project(tmp_path / "clone")
    app, engine = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        await _dialog(pilot, app)
        await pilot.press("escape")
        await wait_until(
            lambda: not isinstance(app.screen, TrustScreen), "the dialog to close"
        )
        assert isinstance(app.focused, PromptInput)
    assert project_trust(engine.workspace.home, project).undecided


@pytest.mark.parametrize("case", ["decided", "brings nothing"])
async def test_no_question_when_decided_or_nothing_to_trust(
    tmp_path: Path, isolated_home: Home, case: str
) -> None:
    project = cloned_project(
        tmp_path / "clone", skills=0 if case == "brings nothing" else 1
    )
    app, engine = make_app(tmp_path, project)
    if case == "decided":
        engine.workspace.home.ensure()
        record(engine.workspace.home, project, TrustLevel.UNTRUSTED)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert not isinstance(app.screen, TrustScreen)


async def test_trusting_takes_effect_at_once_in_the_real_engine(
    tmp_path: Path, isolated_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aiq_tui.agent.engine import Engine
    from aiq_tui.workspace import Workspace

    project = cloned_project(tmp_path / "clone")
    monkeypatch.chdir(project)
    engine = Engine.create(Workspace.open(cwd=project))
    assert not engine.workspace.catalog.get("helper-0").trusted_source
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await _dialog(pilot, app)
        await pilot.press("y")
        await wait_until(
            lambda: engine.workspace.catalog.get("helper-0").trusted_source,
            "the skill to be trusted",
        )
    assert engine.workspace.trust is not None and engine.workspace.trust.trusted


@pytest.mark.typing_grace
async def test_keys_typed_as_the_app_starts_do_not_answer_the_trust_question(
    tmp_path: Path, isolated_home: Home
) -> None:
    """The question opens with the first frame, while the user may already be typing: those
    keys go to the prompt and trust nothing; a y after typing has stopped does."""
    project = cloned_project(tmp_path / "clone")
    app, engine = make_app(tmp_path, project)
    engine.config.ui.typing_grace = 1.0
    now = [100.0]
    async with app.run_test(size=SIZE) as pilot:
        app.typing.clock = lambda: now[0]
        await wait_until(
            lambda: isinstance(app.screen, TrustScreen), "the trust dialog"
        )
        dialog = app.screen
        await pilot.press("y", "e", "s", "enter", "n")
        assert app.screen is dialog
        assert project_trust(engine.workspace.home, project).level is None
        assert app.screen_stack[0].query_one("#prompt", PromptInput).value == "yesn"
        now[0] += 5
        await wait_until(lambda: dialog.armed, "the dialog armed")
        await pilot.press("y")
        await wait_until(
            lambda: (
                project_trust(engine.workspace.home, project).level
                is TrustLevel.TRUSTED
            ),
            "the decision",
        )
