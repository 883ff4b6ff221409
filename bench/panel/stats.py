"""The panel's statistics: figures from ranks, bootstrap intervals for a difference resampling
whole gold-tool groups, the rule that chooses settings across benchmarks, and the regression
guard. Pure numpy, no model, no data: tests/bench/test_panel.py drives them on small inputs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

METRICS = ("hit@1", "hit@3", "mrr@10")
BOOTSTRAP_DRAWS = 2000
BOOTSTRAP_SEED = 36
MRR_DEPTH = 10


def per_query(ranks: Any) -> dict[str, Any]:
    """hit@1, hit@3 and reciprocal rank (0 beyond 10 or unranked) per query, from 1-based ranks (0 = none)."""
    import numpy as np

    ranks = np.asarray(ranks)
    found = ranks > 0
    return {
        "hit@1": (found & (ranks <= 1)).astype(float),
        "hit@3": (found & (ranks <= 3)).astype(float),
        "mrr@10": np.where(
            found & (ranks <= MRR_DEPTH), 1.0 / np.maximum(ranks, 1), 0.0
        ),
    }


def figures(ranks: Any) -> dict[str, float]:
    return {
        metric: round(float(values.mean()), 4) if len(values) else 0.0
        for metric, values in per_query(ranks).items()
    }


@dataclass(frozen=True)
class Interval:
    diff: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        return {
            "diff": round(self.diff, 4),
            "low": round(self.low, 4),
            "high": round(self.high, 4),
        }


def bootstrap_difference(
    new: Any,
    old: Any,
    groups: Sequence[str],
    draws: int = BOOTSTRAP_DRAWS,
    seed: int = BOOTSTRAP_SEED,
) -> Interval:
    """The mean of ``new − old`` (per query, paired) with a 95 % percentile interval, resampling
    whole groups with replacement: queries written from one template share a group, so the
    interval is as wide as the number of independent groups warrants, not the number of queries."""
    import numpy as np

    new, old = np.asarray(new, dtype=float), np.asarray(old, dtype=float)
    labels, inverse = np.unique(
        np.asarray(groups, dtype=object).astype(str), return_inverse=True
    )
    sums = np.bincount(inverse, weights=new - old, minlength=len(labels))
    sizes = np.bincount(inverse, minlength=len(labels)).astype(float)
    diff = float((new - old).mean()) if len(new) else 0.0
    if len(labels) < 2:
        return Interval(diff, diff, diff)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(
        len(labels), np.full(len(labels), 1 / len(labels)), size=draws
    )
    resampled = (counts @ sums) / np.maximum(counts @ sizes, 1)
    low, high = np.percentile(resampled, [2.5, 97.5])
    return Interval(diff, float(low), float(high))


def objective(figures_: Mapping[str, float]) -> float:
    """What one set's quality is judged by: hit@3 and MRR@10 together."""
    return figures_["hit@3"] + figures_["mrr@10"]


def relative_gain(
    candidate: Mapping[str, float], keyword: Mapping[str, float]
) -> float:
    """How much of the room keyword matching leaves (up to a perfect score) a candidate takes:
    (cand − kw) / (2 − kw) on hit@3 + MRR@10. Sets where keywords are already near perfect are
    not drowned out by sets with much room, and a loss counts as much as the gain it cancels."""
    room = 2.0 - objective(keyword)
    return (objective(candidate) - objective(keyword)) / max(room, 1e-9)


def choose(
    trials: Mapping[Any, Mapping[str, Mapping[str, float]]],
    keyword: Mapping[str, Mapping[str, float]],
    tolerance: float = 0.0,
) -> Any:
    """The settings with the best **worst-case** relative gain over keyword across the sets (each
    trial maps set → figures on its tuning part): the goal is the worst set, not the best one.
    Trials within ``tolerance`` of the best worst case are told apart by their mean gain in points
    (hit@3 + MRR@10 over keyword), not relative: a set near a perfect score has little room, and
    one query more or less there would swing a relative mean."""

    def gains(key: Any) -> list[float]:
        return [relative_gain(trials[key][name], keyword[name]) for name in keyword]

    def points(key: Any) -> float:
        return sum(
            objective(trials[key][name]) - objective(keyword[name]) for name in keyword
        ) / len(keyword)

    worst = {key: min(gains(key)) for key in trials}
    best_worst = max(worst.values())
    near = [key for key in trials if worst[key] >= best_worst - tolerance]
    return max(near, key=lambda key: (round(points(key), 9), worst[key]))


@dataclass(frozen=True)
class Verdict:
    part: str
    metric: str
    interval: Interval

    @property
    def regression(self) -> bool:
        """A loss larger than the noise: the whole 95 % interval of (new − baseline) is below 0."""
        return self.interval.high < 0


def guard(
    differences: Mapping[str, Mapping[str, Interval]],
    metrics: Sequence[str] = ("hit@3", "mrr@10"),
) -> dict[str, Any]:
    """Every held-out part's difference against the baseline; a regression wherever one loses
    beyond its interval. ``differences``: part → metric → interval of (new − baseline)."""
    verdicts = [
        Verdict(part, metric, by_metric[metric])
        for part, by_metric in differences.items()
        for metric in metrics
        if metric in by_metric
    ]
    losses = [
        f"{v.part} {v.metric} {v.interval.diff:+.4f} (95 % {v.interval.low:+.4f} … {v.interval.high:+.4f})"
        for v in verdicts
        if v.regression
    ]
    return {"regression": bool(losses), "losses": losses, "checked": len(verdicts)}
