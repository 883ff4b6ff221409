"""TUI start-up: time from process start to the first mounted frame, and peak memory.

Each figure comes from a fresh subprocess (so imports and memory are counted honestly)
that opens a temporary config home — bundled skills only, then 10,000 generated skills —
builds the real engine, and runs the app headless until its first frame.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

GENERATED = 10_000

PROBE = textwrap.dedent(
    """
    import time
    started = time.perf_counter()
    import asyncio, json, resource, sys
    from aiq_tui.agent.engine import Engine
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.workspace import Workspace

    async def main():
        workspace = Workspace.open(home_flag=sys.argv[1])
        engine = Engine.create(workspace)
        app = AiqApp(engine, watch=False)
        async with app.run_test(size=(120, 36)) as pilot:
            while app.first_frame_at is None:
                await pilot.pause(0.01)
            first = app.first_frame_at - started
            skills = len(workspace.catalog)
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"first_frame_s": round(first, 3), "skills": skills, "peak_rss_mb": round(peak_kb / 1024, 1)}))

    asyncio.run(main())
    """
)


def generate_skills(skills_dir: Path, count: int) -> None:
    for index in range(count):
        folder = skills_dir / f"gen-skill-{index:05d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: gen-skill-{index:05d}\ndescription: Generated skill {index} for the start-up "
            f"benchmark; handles topic {index % 97} and format {index % 13}.\n---\n\n# Skill {index}\n\nSteps.\n",
            encoding="utf-8",
        )


def probe(home: Path) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(home)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"TUI probe failed: {done.stderr.strip()[-800:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run() -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="aiq-bench-tui-") as base:
        bundled_home = Path(base) / "bundled"
        bundled = probe(bundled_home)  # first run installs the bundled skills
        big_home = Path(base) / "big"
        probe(big_home)  # create the layout and bundled skills
        generate_skills(big_home / "skills", GENERATED)
        cold = probe(big_home)
        warm = probe(big_home)
    return {
        "first_frame_s_bundled": bundled["first_frame_s"],
        "skills_bundled": bundled["skills"],
        "peak_rss_mb_bundled": bundled["peak_rss_mb"],
        "first_frame_s_10k_cold": cold["first_frame_s"],
        "first_frame_s_10k_warm": warm["first_frame_s"],
        "skills_10k": warm["skills"],
        "peak_rss_mb_10k": max(cold["peak_rss_mb"], warm["peak_rss_mb"]),
        "goal_first_frame_s": 1.0,
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
