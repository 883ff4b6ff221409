"""Cold metadata scan of 10,000 generated skills: time and memory.

"Cold" here means process-level cold: a fresh :class:`SkillCatalog` with no caches. The OS
page cache cannot be dropped without root, so files are likely in memory after generation.
"""

from __future__ import annotations

import gc
import os
import resource
import shutil
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

from aiq_tui.config import SkillsSettings
from aiq_tui.skills.catalog import SkillCatalog
from aiq_tui.skills.discover import SkillDir

SKILLS = 10_000
RUNS = 5
_WORDS = (
    "query",
    "report",
    "deploy",
    "invoice",
    "chart",
    "parse",
    "csv",
    "sql",
    "http",
    "review",
    "lint",
    "backup",
    "email",
    "calendar",
    "image",
    "audio",
    "translate",
    "summarise",
)


def generate(root: Path, count: int = SKILLS) -> None:
    """``count`` skills; one in ten uses richer YAML (lists, quotes) to exercise the full parser."""
    body = "# Instructions\n\n" + "Do the thing carefully and report back.\n" * 200
    for index in range(count):
        name = f"skill-{index:05d}"
        words = [_WORDS[(index * 7 + k) % len(_WORDS)] for k in range(4)]
        folder = root / name
        folder.mkdir(parents=True)
        if index % 10 == 0:
            front = (
                f'name: {name}\ndescription: "Handles {" and ".join(words)}: use when asked"\n'
                f"tags: [{', '.join(words)}]\nmetadata:\n  author: bench\n"
            )
        else:
            front = f"name: {name}\ndescription: Handles {' and '.join(words)} tasks for the user\nlicense: MIT\n"
        (folder / "SKILL.md").write_text(f"---\n{front}---\n{body}", encoding="utf-8")


def run() -> dict[str, object]:
    root = Path(tempfile.mkdtemp(prefix="aiq-bench-scan-"))
    try:
        started = time.perf_counter()
        generate(root)
        generated = time.perf_counter() - started
        dirs = [SkillDir(root, "flag")]
        settings = SkillsSettings()
        times = []
        count = 0
        for _ in range(RUNS):
            gc.collect()
            started = time.perf_counter()
            catalog = SkillCatalog(dirs, settings)
            times.append(time.perf_counter() - started)
            count = len(catalog)
            del catalog
        gc.collect()
        tracemalloc.start()
        catalog = SkillCatalog(dirs, settings)
        _, traced_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        return {
            "skills": SKILLS,
            "loaded": count,
            "problems": len(catalog.problems),
            "generate_seconds": round(generated, 2),
            "scan_seconds_median": round(statistics.median(times), 4),
            "scan_seconds_runs": [round(t, 4) for t in times],
            "goal_seconds": 0.5,
            "meets_goal": statistics.median(times) < 0.5,
            "scan_python_alloc_peak_mib": round(traced_peak / 2**20, 1),
            "process_peak_rss_mib": round(rss / 1024, 1),
            "cpus": os.cpu_count(),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
