"""One rounding rule (``aiq_tui.figures.percent``, floored) for every share of the window: at
every step of the demo the percent the caption says the prompt stands at is the gauge's, also
through a compression's steps (the gauge follows the step shown, not the engine's next
measurement); and a comparison printed with a confidence is true as printed."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock  # noqa: F401 - the demo app's clock
from test_demo_steps import SIZE, demo_app, finished, step_until

from aiq_tui.figures import decisive, percent, share
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge

# The share a caption says the prompt stands at after its step: "… tokens (38 %)", "… → 103 %".
AFTER = re.compile(r"(?:→ |tokens \()(\d+) %")
GAUGE = re.compile(r"/ [\d,]+  (\d+)%")


def test_one_rule_floors_every_share() -> None:
    assert percent(7283, 8192) == 88  # 88.9 %: never shown as 89 beside a caption's 88
    assert percent(9531, 8192) == 116  # 116.3 %
    assert (
        share(0.29) == 29 and share(0.9) == 90
    )  # a float's hair below is no percent less
    assert percent(1, 0) == 0


def test_a_comparison_shows_the_digits_that_make_it_true() -> None:
    assert f"{decisive(0.9881, (0.995,))} < {decisive(0.995, (0.9881,))}" == (
        "0.988 < 0.995"
    )


@pytest.mark.slow
async def test_at_every_demo_step_the_gauge_shows_the_percent_the_caption_says(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path / "home")
    disagree: list[str] = []
    compression_steps = 0
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/demo", "enter")
        app_ref = app

        def check(_app: object) -> bool:
            caption = str(app_ref.screen_stack[0].query_one("#cursor-bar").render())
            said = AFTER.findall(" ".join(caption.split()))
            gauge = GAUGE.search(str(app_ref.query_one(BudgetGauge).render()))
            if said and gauge and said[-1] != gauge.group(1):
                disagree.append(f"{caption!r}: gauge {gauge.group(1)}%")
            return finished(app_ref)

        seen = await step_until(pilot, check)
        compression_steps = sum("stage 95:" in caption for caption, _ in seen)
    assert compression_steps >= 2  # the stage's own steps were seen, one by one
    assert not disagree, disagree


def test_run_below_min_confidence_prints_a_comparison_that_is_true(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from aiq_tui.cli import main

    home = str(tmp_path / "home")
    code = main(
        [
            "run",
            "notes for a version",
            "--min-confidence",
            "0.995",
            "--home",
            home,
            "--create",
        ]
    )
    captured = capfd.readouterr()
    out = " ".join((captured.out + captured.err).split())
    assert code == 1
    found = re.search(r"confidence (\d\.\d+) < (\d\.\d+)", out)
    assert found, out
    assert float(found.group(1)) < float(found.group(2)), out  # never "0.99 < 0.99"
