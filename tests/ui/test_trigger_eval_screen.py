"""The trigger eval view, driven like a skill author would, on the real engine (demo model):
open it from the viewer, watch it score again when SKILL.md changes, add the last message."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from conftest import fixed_clock
from helpers import say, settle

from aiq_tui.agent.engine import Engine
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.skill_viewer import SkillViewerScreen
from aiq_tui.ui.screens.trigger_eval import TriggerEvalScreen
from aiq_tui.workspace import Workspace

SKILL = "---\nname: party-gifs\ndescription: {description}\n---\n\n# Party GIFs\n\nMake the GIF.\n"
QUERIES = [
    {"query": "make an animated gif of a dancing llama", "should_trigger": True},
    {"query": "loop a confetti burst for the team chat", "should_trigger": True},
    {
        "query": "convert this spreadsheet of llama prices to csv",
        "should_trigger": False,
    },
]


def home_with_skill(tmp_path: Path, description: str) -> tuple[Path, Path]:
    home = tmp_path / "home"
    folder = home / "skills" / "party-gifs"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        SKILL.format(description=description), encoding="utf-8"
    )
    (folder / "evals" / "trigger_eval.json").write_text(
        json.dumps(QUERIES), encoding="utf-8"
    )
    return home, folder


async def wait_until(pilot, condition, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"condition not met within {timeout:g} s"
        await pilot.pause(0.05)


def results(screen: TriggerEvalScreen) -> list[tuple[str, bool]]:
    assert screen.report is not None
    return [(v.case.query, v.passed) for v in screen.report.verdicts]


async def test_viewer_t_opens_the_eval_view_which_scores_again_when_skill_md_changes(
    tmp_path: Path,
) -> None:
    home, folder = home_with_skill(tmp_path, "Make animated GIFs of dancing animals.")
    app = AiqApp(
        Engine.create(Workspace.open(home_flag=home)), clock=fixed_clock, watch=False
    )
    async with app.run_test(size=(120, 36)) as pilot:
        app.action_open_skill("party-gifs")
        await wait_until(pilot, lambda: isinstance(app.screen, SkillViewerScreen))
        await pilot.press("t")
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, TriggerEvalScreen) and app.screen.scored >= 1
            ),
        )
        screen = app.screen
        assert results(screen) == [
            (QUERIES[0]["query"], True),
            (QUERIES[1]["query"], False),
            (QUERIES[2]["query"], True),
        ]
        assert "F1" in str(screen.query_one("#eval-summary").render())
        # The author widens the description in an editor; the watcher's reload re-scores the rows.
        (folder / "SKILL.md").write_text(
            SKILL.format(
                description="Make animated GIFs and looping confetti bursts for team chat."
            ),
            encoding="utf-8",
        )
        scored = screen.scored
        app.engine.reload()  # what the app's watcher does when the file changes
        await wait_until(pilot, lambda: screen.scored > scored)
        assert results(screen)[1] == (QUERIES[1]["query"], True)


async def test_t_and_n_add_the_last_message_to_the_skills_eval_file(
    tmp_path: Path,
) -> None:
    home, folder = home_with_skill(tmp_path, "Make animated GIFs of dancing animals.")
    (
        folder / "evals" / "trigger_eval.json"
    ).unlink()  # the first query creates the file
    app = AiqApp(
        Engine.create(Workspace.open(home_flag=home)), clock=fixed_clock, watch=False
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "a gif of our mascot doing a backflip please")
        await settle(pilot)
        app.action_trigger_eval("party-gifs")
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, TriggerEvalScreen) and app.screen.scored >= 1
            ),
        )
        screen = app.screen
        assert screen.report is not None and not screen.report.verdicts
        assert "no trigger queries yet" in str(
            screen.query_one("#eval-summary").render()
        )
        await pilot.press("t")
        await wait_until(
            pilot,
            lambda: screen.report is not None and len(screen.report.verdicts) == 1,
        )
        saved = json.loads(
            (folder / "evals" / "trigger_eval.json").read_text(encoding="utf-8")
        )
        assert saved == [
            {
                "query": "a gif of our mascot doing a backflip please",
                "should_trigger": True,
            }
        ]
        await pilot.press(
            "n"
        )  # the same message marked the other way: relabelled, not duplicated
        await wait_until(
            pilot,
            lambda: (
                not json.loads(
                    (folder / "evals" / "trigger_eval.json").read_text(encoding="utf-8")
                )[0]["should_trigger"]
            ),
        )
        await wait_until(
            pilot,
            lambda: (
                screen.report is not None
                and not screen.report.verdicts[0].case.should_trigger
            ),
        )


async def test_without_a_skill_the_palette_action_says_how_to_pick_one(
    tmp_path: Path,
) -> None:
    home, _folder = home_with_skill(tmp_path, "Make animated GIFs of dancing animals.")
    app = AiqApp(
        Engine.create(Workspace.open(home_flag=home)), clock=fixed_clock, watch=False
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.action_trigger_eval()  # nothing is Active yet
        await pilot.pause()
        assert not isinstance(app.screen, TriggerEvalScreen)


async def test_the_selected_rows_signals_are_shown_in_the_words_written(
    tmp_path: Path,
) -> None:
    home, _ = home_with_skill(tmp_path, "Make animated GIFs of dancing animals.")
    app = AiqApp(
        Engine.create(Workspace.open(home_flag=home)), clock=fixed_clock, watch=False
    )
    async with app.run_test(size=(120, 36)) as pilot:
        app.action_trigger_eval("party-gifs")
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, TriggerEvalScreen) and app.screen.scored >= 1
            ),
        )
        await pilot.pause()
        detail = str(app.screen.query_one("#eval-detail").render())
        assert "dancing@description" in detail and "animated@description" in detail
        assert "danc@" not in detail and "anim@" not in detail


NEAR_MISSES = [
    {"query": "make an animated gif of a dancing llama", "should_trigger": True},
    {"query": "an animated gif of our logo spinning", "should_trigger": True},
    {"query": "a looping animated gif of confetti", "should_trigger": True},
    {"query": "animated gif of a cat typing", "should_trigger": True},
    {"query": "make a gif of a rocket launch", "should_trigger": True},
    {"query": "write a slack message announcing the party", "should_trigger": False},
    {"query": "write a slack message about the outage", "should_trigger": False},
    {"query": "build a slack bot for the standup", "should_trigger": False},
    {"query": "summarise the slack channel from last week", "should_trigger": False},
    {"query": "export the slack channel to csv", "should_trigger": False},
]


async def test_p_shows_the_tuners_proposal_as_a_diff_and_only_w_writes_it(
    tmp_path: Path,
) -> None:
    home, folder = home_with_skill(tmp_path, "Make animated GIFs for Slack.")
    (folder / "evals" / "trigger_eval.json").write_text(
        json.dumps(NEAR_MISSES), encoding="utf-8"
    )
    skill_md = folder / "SKILL.md"
    app = AiqApp(
        Engine.create(Workspace.open(home_flag=home)), clock=fixed_clock, watch=False
    )
    async with app.run_test(size=(120, 36)) as pilot:
        app.action_trigger_eval("party-gifs")
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, TriggerEvalScreen) and app.screen.scored >= 1
            ),
        )
        screen = app.screen
        before = skill_md.read_bytes()
        await pilot.press("p")
        await wait_until(
            pilot,
            lambda: not screen.proposing and screen.proposal is not None,
            timeout=30,
        )
        shown = str(screen.query_one("#eval-proposal").render())
        assert (
            "train F1" in shown
            and "test F1" in shown
            and "→" in shown
            and "{+Not for" in shown
        )
        assert skill_md.read_bytes() == before  # nothing is written before w
        proposed = screen.proposal.best.description
        scored = screen.scored
        await pilot.press("w")
        await wait_until(pilot, lambda: screen.written == 1 and screen.scored > scored)
        assert f"description: {proposed}" in skill_md.read_text(encoding="utf-8")
        assert proposed.startswith("Make animated GIFs for Slack.")
        assert (
            screen.proposal is None and not screen.query_one("#eval-proposal").display
        )
