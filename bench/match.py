"""Matching benchmark: MetaTool retrieval quality + latency over 10,000 generated skills.

MetaTool (../shared/bench/metatool, MIT): 199 ChatGPT plugins become skills (name,
description); each of the 20,614 queries names the one tool that serves it. We report
hit@1, hit@3, MRR and latency per query next to the README's reference figures. No model,
no network, no per-query tuning. When the data is absent the report says so and moves on.
"""

from __future__ import annotations

import csv
import json
import random
import statistics
import time
from pathlib import Path

from aiq_tui.ranking.match import SkillIndex
from aiq_tui.skills.model import SkillMeta

METATOOL = Path(__file__).resolve().parents[2] / "shared" / "bench" / "metatool"
REFERENCE = {
    "seed_style": {"hit@1": 0.259, "hit@3": 0.404, "mrr": 0.357},
    "bm25": {"hit@1": 0.379, "hit@3": 0.504, "mrr": 0.457},
}
GOAL = {"hit@3": 0.75, "mrr": 0.65}
_RANK_DEPTH = 10  # MRR counts ranks up to here (1/rank beyond it is < 0.1 and ignored)


def _meta(name: str, description: str, root: Path) -> SkillMeta:
    return SkillMeta(name=name, description=description, path=root / name / "SKILL.md", source_dir=root)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def metatool(data_dir: Path = METATOOL) -> dict[str, object]:
    """Rank every MetaTool query against the 199 tools; quality and latency figures."""
    tools_file, queries_file = data_dir / "plugin_des.json", data_dir / "all_clean_data.csv"
    if not tools_file.is_file() or not queries_file.is_file():
        return {"skipped": f"MetaTool data not found in {data_dir}"}
    tools: dict[str, str] = json.loads(tools_file.read_text(encoding="utf-8"))
    index = SkillIndex(_meta(name, description, data_dir) for name, description in tools.items())
    with queries_file.open(encoding="utf-8", newline="") as handle:
        rows = [(row["Query"], row["Tool"]) for row in csv.DictReader(handle)]
    hit1 = hit3 = 0
    reciprocal = 0.0
    unknown = 0
    latencies: list[float] = []
    for query, tool in rows:
        if tool not in index:
            unknown += 1
        started = time.perf_counter()
        ranking = index.rank(query, top_k=_RANK_DEPTH)
        latencies.append((time.perf_counter() - started) * 1000)
        names = [match.name for match in ranking.matches]
        if tool in names:
            position = names.index(tool) + 1
            hit1 += position == 1
            hit3 += position <= 3
            reciprocal += 1 / position
    total = len(rows)
    return {
        "tools": len(tools),
        "queries": total,
        "queries_with_unknown_tool": unknown,
        "hit@1": round(hit1 / total, 4),
        "hit@3": round(hit3 / total, 4),
        "mrr": round(reciprocal / total, 4),
        "latency_ms_mean": round(statistics.fmean(latencies), 4),
        "latency_ms_p95": round(_percentile(latencies, 0.95), 4),
        "reference": REFERENCE,
        "goal": GOAL,
    }


def generated(count: int = 10_000, queries: int = 500, seed: int = 7) -> dict[str, object]:
    """p50/p95 latency of ``rank`` (top 3) over ``count`` synthetic skills."""
    rng = random.Random(seed)
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "do", "fe", "gi"]
    vocabulary = sorted({"".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(4000)})
    # Zipf-like word frequencies, as in real descriptions: a few words are everywhere.
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    root = Path("/generated")
    metas = []
    for i in range(count):
        name = "-".join(rng.choices(vocabulary, k=2)) + f"-{i}"
        description = " ".join(rng.choices(vocabulary, weights=weights, k=rng.randint(8, 30)))
        metas.append(_meta(name, description, root))
    built = time.perf_counter()
    index = SkillIndex(metas)
    build_ms = (time.perf_counter() - built) * 1000
    texts = [" ".join(rng.choices(vocabulary, weights=weights, k=rng.randint(3, 10))) for _ in range(queries)]
    for text in texts[:50]:  # warm the per-term caches, as a running session would
        index.rank(text, top_k=3)
    latencies = []
    for text in texts:
        started = time.perf_counter()
        index.rank(text, top_k=3)
        latencies.append((time.perf_counter() - started) * 1000)
    return {
        "skills": count,
        "queries": queries,
        "build_ms": round(build_ms, 1),
        "latency_ms_p50": round(_percentile(latencies, 0.50), 4),
        "latency_ms_p95": round(_percentile(latencies, 0.95), 4),
        "goal_p50_ms": 1.0,
    }


def run() -> dict[str, object]:
    return {"metatool": metatool(), "generated_10k": generated()}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
