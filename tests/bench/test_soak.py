"""bench.soak, the long-session benchmark of `make bench` (issue 32 item 4): the harness runs the
real app for a few turns and reports every figure the goals are judged on. Speed is measured by
`make bench`, never asserted here."""

from __future__ import annotations

import json

import pytest

from bench import soak
from bench.run import BENCHMARKS

FIGURES = {
    "turns",
    "questions",
    "approvals_denied",
    "windows",
    "turn_s_early",
    "turn_s_last",
    "turn_ratio_last_to_early",
    "turn_cpu_s_early",
    "turn_cpu_s_last",
    "turn_cpu_ratio_last_to_early",
    "step_cpu_ms_last",
    "frame_floor_ms",
    "turn_cpu_s",
    "rss_mb_start",
    "rss_mb_last",
    "rss_mb_per_turn",
    "step_ms_last",
    "replay_events",
    "replay_open_s_first",
    "replay_open_s",
    "replay_step_ms",
    "events_at_end",
    "conversation_entries_at_end",
    "turn_s",
    "rss_mb",
    "step_ms",
    "goals",
    "goals_met",
}


def test_make_bench_runs_the_soak() -> None:
    assert "soak" in BENCHMARKS


def test_a_full_soak_means_turns_11_to_20_and_the_last_10_and_samples_every_10() -> (
    None
):
    assert soak.windows(300) == (10, (11, 20), (291, 300))
    samples = soak.sample_turns(300)
    assert samples[:2] == [10, 20] and samples[-1] == 300 and len(samples) == 30
    assert soak.sample_turns(65)[-2:] == [60, 65], "the last turn is always sampled"


def test_a_short_soak_shrinks_its_windows_to_a_third_of_the_run() -> None:
    assert soak.windows(3) == (1, (2, 2), (3, 3))
    assert soak.windows(12) == (4, (5, 8), (9, 12))


def test_the_report_takes_ratio_growth_and_goals_from_the_samples() -> None:
    seconds = [1.0] * 20 + [1.0] * 20 + [2.0] * 10  # turns 41–50 twice as slow as 11–20
    rss = {0: 80.0, 10: 90.0, 20: 100.0, 30: 101.0, 40: 102.0, 50: 103.0}
    steps = {10: 20.0, 20: 25.0, 30: 30.0, 40: 40.0, 50: 60.0}
    raw = {
        "seconds": seconds,
        "cpu": [s / 2 for s in seconds],
        "rss": rss,
        "steps": steps,
        "step_cpu": {turn: ms / 2 for turn, ms in steps.items()},
        "frame_floor_ms": 15.0,
        "denied": 0,
        "events": 900,
        "entries": 300,
        "replay_events": 5000,
        "replay_open_s_first": 1.0,
        "replay_open_s": 0.5,
        "replay_step_ms": 20.0,
    }
    figures = soak.report(50, raw)
    assert figures["windows"] == {"early": "11-20", "last": "41-50", "rss_from": 20}
    assert (
        figures["turn_ratio_last_to_early"] == 2.0
        and figures["turn_cpu_ratio_last_to_early"] == 2.0
    )
    assert figures["rss_mb_per_turn"] == 0.1  # 3 MB over turns 20 → 50
    assert figures["step_ms_last"] == 60.0
    assert figures["goals"]["turn_ratio_last_to_early"] == {
        "at_most": 1.3,
        "measured": 2.0,
        "met": False,
    }
    assert figures["goals_met"] == {
        "turn_ratio_last_to_early": False,
        "rss_mb_per_turn": True,
        "step_ms_last": False,
    }


@pytest.mark.slow
def test_the_soak_drives_the_real_app_and_reports_every_figure() -> None:
    figures = soak.run(turns=3, replay_events=120)
    assert set(figures) >= FIGURES, FIGURES - set(figures)
    json.dumps(figures)  # what bench.run writes
    assert (
        figures["turns"] == 3
        and len(figures["turn_s"]) == len(figures["turn_cpu_s"]) == 3
    )
    assert all(seconds > 0 for seconds in figures["turn_s"] + figures["turn_cpu_s"])
    assert figures["conversation_entries_at_end"] >= 6, (
        "each turn shows its question and an answer"
    )
    assert set(figures["rss_mb"]) == {"0", "1", "2", "3"} and set(
        figures["step_ms"]
    ) == {"1", "2", "3"}
    assert all(mb > 0 for mb in figures["rss_mb"].values())
    assert figures["replay_events"] >= 120
    for key, goal in figures["goals"].items():
        assert (
            goal["met"]
            == (goal["measured"] <= goal["at_most"])
            == figures["goals_met"][key]
        )
