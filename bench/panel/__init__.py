"""The matching benchmark panel: ranking settings judged on several benchmarks at once.

Each dataset (bench/panel/data.py says where each is read from and how it is split) has a
**tuning** part and a **held-out** part. The hybrid ranking's settings — fusion weight, keyword
saturation, similarity floor, companion weight and the query adapter's strength α — are chosen
on the tuning parts *together*: the settings whose worst relative gain over keyword matching
across the sets is best (stats.choose), never the best on one benchmark. The similarity points
(similarity ↔ confidence) are calibrated per tuning part and the highest kept, so a hybrid match
at a threshold is right at least as often as a keyword match on every set.

The held-out parts give one table: keyword, the baseline settings (``BASELINE``: the settings
before issue 36), the chosen settings without and with the adapter, and the shipped settings
(config.MatchingSettings), each difference with a bootstrap 95 % interval that resamples whole
gold-tool groups (templated queries share one). The **guard** reports a regression when the
shipped settings lose to the baseline on any held-out part beyond that interval;
``goals_held_out`` checks issue 36's goals on every held-out part.

A missing dataset or model is said and skipped. Run alone: ``python -m bench.panel`` (``--help``).
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from typing import Any

from bench.panel.data import ENV, Dataset, Missing, load_all
from bench.panel.scoring import ADAPTER_FOLDED_ALPHA, Settings

# The settings before issue 36 (fusion 0.5 / 15, floor 0.1, companion 0.5, no adapter): the guard's baseline.
BASELINE = Settings(
    weight=0.5, keyword_half=15.0, floor=0.1, companion_weight=0.5, alpha=0.0
)
GRID = {
    "weight": (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7),
    "keyword_half": (10.0, 15.0, 20.0, 30.0, 40.0, 60.0),
    "floor": (
        0.15,
        0.1,
        0.05,
    ),  # ties go to the first: the higher floor (fewer candidates)
    "companion_weight": (0.0, 0.2, 0.3, 0.4, 0.5, 0.6),
    "alpha": (0.0, 0.3, 0.5, 0.7, 1.0, 1.3),
}
# Worst-case gains within this of the best are told apart by their mean gain: noise, not a
# difference (one StableToolBench tuning query, hit@3, moves its relative gain by 0.0066).
TOLERANCE = 0.01
GOAL = {
    "min_gain_over_keyword_hit@3": 0.03,
    "metatool": {"hit@3": 0.78, "mrr@10": 0.70},
}
FUSE_CHECK = 150  # held-out queries per set ranked through Matcher.fuse itself, to check the re-score
CALIBRATION_MATCHES = (
    50  # keyword top-3 matches over a threshold a set needs for its precision to count
)
SIMILARITY_GRID = tuple(round(0.2 + 0.01 * i, 2) for i in range(70))


def shipped_settings() -> Settings:
    from aiq_tui.config import AppConfig

    matching = AppConfig().matching
    alpha = (
        matching.semantic_query_adapter_alpha
        if matching.semantic_query_adapter
        else 0.0
    )
    return Settings(
        matching.semantic_weight,
        matching.semantic_keyword_half,
        matching.semantic_floor,
        matching.semantic_companion_weight,
        round(alpha, 4),
    )


def _models() -> tuple[Any, Any] | str:
    """(models tuple for features, adapter matrix or None) or why the hybrid parts are skipped."""
    import numpy as np

    from aiq_tui.models import MODELS
    from aiq_tui.ranking.query_adapter import shipped_adapter
    from bench.match import _open_companion, _open_model

    opened = _open_model()
    if isinstance(opened, str):
        return opened
    model, encoder = opened
    companion = _open_companion()
    spec = MODELS.get(model.name)
    adapter = (
        shipped_adapter(spec.query_adapter)
        if spec is not None and spec.query_adapter
        else None
    )
    matrix = None
    if adapter is not None and model.fingerprint == spec.files.get(spec.weights):  # type: ignore[union-attr]
        matrix = np.load(adapter, allow_pickle=False)
    models = (
        encoder,
        model.fingerprint,
        companion[1] if companion else None,
        companion[0].fingerprint if companion else None,
    )
    return models, matrix


def search(tuning: dict[str, Any], matrix: Any) -> tuple[Settings, dict[str, Any]]:
    """Weight × saturation × companion × α on every tuning part at the floor of ``BASELINE``, then
    the floor at the settings chosen (as bench/match.py tunes it: the floor barely moves ranks);
    the choice across the sets is stats.choose."""
    from bench.panel.stats import choose, figures

    has_companion = all(f.companion_queries is not None for f in tuning.values())
    alphas = GRID["alpha"] if matrix is not None else (0.0,)
    companions = GRID["companion_weight"] if has_companion else (0.0,)
    keyword = {name: figures(f.keyword_rank) for name, f in tuning.items()}
    trials = _trials(
        tuning,
        matrix,
        [
            Settings(weight, half, BASELINE.floor, share, alpha)
            for alpha, weight, half, share in itertools.product(
                alphas, GRID["weight"], GRID["keyword_half"], companions
            )
        ],
    )
    best = choose(trials, keyword, TOLERANCE)
    floors = _trials(
        tuning, matrix, [replace(best, floor=floor) for floor in GRID["floor"]]
    )
    chosen = choose(floors, keyword, TOLERANCE)
    trials.update(floors)
    by_alpha = {
        f"{alpha:g}": choose(
            {k: v for k, v in trials.items() if k.alpha == alpha}, keyword, TOLERANCE
        )
        for alpha in alphas
    }
    return chosen, {
        "trials": len(trials),
        "keyword_tuning": keyword,
        "chosen_tuning": trials[chosen],
        "baseline_tuning": trials.get(BASELINE) or {},
        "by_floor_tuning": {f"{k.floor:g}": v for k, v in floors.items()},
        "best_per_alpha": {
            alpha: {"settings": asdict(s), "tuning": trials[s]}
            for alpha, s in by_alpha.items()
        },
        "best_per_set": {
            name: asdict(
                max(
                    trials,
                    key=lambda k: trials[k][name]["hit@3"] + trials[k][name]["mrr@10"],
                )
            )
            for name in tuning
        },
    }


def _trials(
    tuning: dict[str, Any], matrix: Any, grid: Sequence[Settings]
) -> dict[Settings, dict[str, dict[str, float]]]:
    """Each settings' figures on each tuning part; the parts every trial shares (scaled
    similarities per α, kw′ per saturation, candidates per floor) computed once."""
    from bench.panel.scoring import (
        combine,
        companion_cosines,
        cosines_for,
        gold_ranks,
        saturated,
        scaled,
    )
    from bench.panel.stats import figures

    trials: dict[Settings, dict[str, dict[str, float]]] = {}
    for name, f in tuning.items():
        other = companion_cosines(f)
        other_scaled = None if other is None else scaled(other)
        kw = {
            half: saturated(f.keyword, half) for half in {s.keyword_half for s in grid}
        }
        for alpha in sorted({s.alpha for s in grid}):
            print(f"panel: {name} trials at α {alpha:g} …", file=sys.stderr, flush=True)
            cosines = cosines_for(f, matrix, alpha)
            sim = scaled(cosines)
            candidates = {
                floor: (f.keyword > 0) | (cosines >= floor)
                for floor in {s.floor for s in grid}
            }
            for settings in (s for s in grid if s.alpha == alpha):
                fused = combine(
                    sim,
                    other_scaled,
                    kw[settings.keyword_half],
                    f.exclusion,
                    candidates[settings.floor],
                    settings,
                )
                trials.setdefault(settings, {})[name] = figures(
                    gold_ranks(fused, f.gold)
                )
    return trials


def similarity_points(
    tuning: dict[str, Any], matrix: Any, settings: Settings
) -> dict[str, Any]:
    """Per tuning part, the smallest cosine at which hybrid top-3 matches are right as often as
    keyword top-3 matches at the brief (0.15) and full (0.7) thresholds; the highest across sets."""
    import numpy as np

    from aiq_tui.config import AppConfig
    from bench.panel.scoring import companion_cosines, cosines_for, fused_scores

    disclosure = AppConfig().disclosure
    thresholds = {
        "brief": disclosure.brief_threshold,
        "full": disclosure.full_threshold,
    }
    per_set: dict[str, dict[str, float | None]] = {}
    for name, f in tuning.items():
        cosines = cosines_for(f, matrix, settings.alpha)
        fused = fused_scores(
            f.keyword, f.exclusion, cosines, companion_cosines(f), settings
        )
        order = np.argsort(-fused, axis=1, kind="stable")[:, :3]
        pairs = [
            (cosines[row, col], bool(f.gold[row, col]))
            for row in range(len(order))
            for col in order[row]
            if np.isfinite(fused[row, col])
        ]
        per_set[name] = {}
        for label, threshold in thresholds.items():
            kept = [
                right
                for top3 in f.keyword_top3
                for confidence, right in top3
                if confidence >= threshold
            ]
            target = sum(kept) / len(kept) if kept else 1.0
            point = next(
                (
                    c
                    for c in SIMILARITY_GRID
                    if (lambda hits: hits and sum(hits) / len(hits) >= target)(
                        [r for v, r in pairs if v >= c]
                    )
                ),
                None,
            )
            per_set[name][label] = point
            per_set[name][f"{label}_keyword_precision"] = round(target, 4)
            per_set[name][f"{label}_keyword_matches"] = len(kept)
    # A set's point counts where its keyword precision rests on enough matches to be a target.
    chosen = {
        label: max(
            (
                points[label]
                for points in per_set.values()
                if points[label] is not None
                and points[f"{label}_keyword_matches"] >= CALIBRATION_MATCHES
            ),
            default=None,
        )
        for label in thresholds
    }
    return {"per_set": per_set, "chosen": chosen}


def held_out_table(
    held: dict[str, Any], matrix: Any, columns: dict[str, Settings]
) -> dict[str, Any]:
    from bench.panel.scoring import (
        companion_cosines,
        cosines_for,
        fused_scores,
        gold_ranks,
    )
    from bench.panel.stats import bootstrap_difference, figures, per_query

    table: dict[str, Any] = {}
    for name, f in held.items():
        ranks = {"keyword": f.keyword_rank}
        other = companion_cosines(f)
        for label, settings in columns.items():
            cosines = cosines_for(f, matrix, settings.alpha)
            ranks[label] = gold_ranks(
                fused_scores(f.keyword, f.exclusion, cosines, other, settings), f.gold
            )
        values = {label: per_query(r) for label, r in ranks.items()}
        pairs = {
            "shipped_vs_baseline": ("shipped", "baseline"),
            "shipped_vs_keyword": ("shipped", "keyword"),
            "adapter_vs_none": ("with_adapter", "without_adapter"),
        }
        table[name] = {
            "queries": len(f.groups),
            "groups": len(set(f.groups)),
            "tools": len(f.names),
            "figures": {label: figures(r) for label, r in ranks.items()},
            "differences": {
                pair: {
                    metric: bootstrap_difference(
                        values[a][metric], values[b][metric], f.groups
                    ).as_dict()
                    for metric in ("hit@1", "hit@3", "mrr@10")
                }
                for pair, (a, b) in pairs.items()
            },
        }
    return table


def goals(table: dict[str, Any]) -> dict[str, Any]:
    """Issue 36's goals on every held-out part: shipped ≥ baseline within noise (the interval of
    the difference reaches 0), ≥ keyword + 0.03 hit@3; MetaTool ≥ 0.78 hit@3 / 0.70 MRR@10."""
    out: dict[str, Any] = {}
    for name, row in table.items():
        shipped, keyword = row["figures"]["shipped"], row["figures"]["keyword"]
        versus = row["differences"]["shipped_vs_baseline"]
        checks = {
            "not_worse_than_baseline": all(
                versus[m]["high"] >= 0 for m in ("hit@3", "mrr@10")
            ),
            "hit@3_over_keyword": {
                "value": round(shipped["hit@3"] - keyword["hit@3"], 4),
                "goal": GOAL["min_gain_over_keyword_hit@3"],
                "met": shipped["hit@3"] - keyword["hit@3"]
                >= GOAL["min_gain_over_keyword_hit@3"],
            },
        }
        if name == "metatool":
            for metric, goal in GOAL["metatool"].items():
                checks[metric] = {
                    "value": shipped[metric],
                    "goal": goal,
                    "met": shipped[metric] >= goal,
                }
        checks["met"] = all(
            v if isinstance(v, bool) else v["met"] for v in checks.values()
        )
        out[name] = checks
    return out


def fuse_check(
    datasets: dict[str, Dataset], held: dict[str, Any], matrix: Any, settings: Settings
) -> dict[str, Any]:
    """Ranks from the numpy re-score against ``Matcher.fuse`` itself on a sample of each held-out part."""
    import numpy as np

    from aiq_tui.ranking.match import SkillIndex
    from aiq_tui.ranking.semantic import FusionSettings, Matcher
    from bench.panel.scoring import (
        companion_cosines,
        cosines_for,
        fused_scores,
        gold_ranks,
    )

    out = {}
    for name, f in held.items():
        dataset = datasets[name]
        rows = range(min(FUSE_CHECK, len(f.groups)))
        cosines, other = cosines_for(f, matrix, settings.alpha), companion_cosines(f)
        ours = gold_ranks(
            fused_scores(f.keyword, f.exclusion, cosines, other, settings), f.gold
        )
        index = SkillIndex(list(dataset.metas))
        matcher = Matcher(
            index,
            None,
            FusionSettings(
                weight=settings.weight,
                floor=settings.floor,
                keyword_half=settings.keyword_half,
                companion_weight=settings.companion_weight,
            ),
        )
        agree = 0
        for row in rows:
            case = dataset.held_out[row]
            similar = (f.names, cosines[row].astype(np.float32))
            companion = (
                (f.names, other[row].astype(np.float32)) if other is not None else None
            )
            ranking = matcher.fuse(
                index.rank(case.query, top_k=None), similar, None, companion
            )
            found = [
                i + 1 for i, m in enumerate(ranking.matches) if m.name in case.gold
            ]
            agree += int((found[0] if found else 0) == ours[row])
        out[name] = {"checked": len(rows), "same_rank": agree}
    return out


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    from bench.panel.features import part_features
    from bench.panel.stats import guard

    started = time.perf_counter()
    loaded = load_all()
    datasets = {d.name: d for d in loaded if isinstance(d, Dataset)}
    report: dict[str, Any] = {
        "skipped": {d.name: d.reason for d in loaded if isinstance(d, Missing)},
        "datasets": {
            name: {
                "tools": len(d.metas),
                "tuning_queries": len(d.tuning),
                "held_out_queries": len(d.held_out),
                "source": d.source,
                **d.notes,
            }
            for name, d in datasets.items()
        },
    }
    if not datasets:
        report["note"] = "no panel dataset found: " + "; ".join(
            report["skipped"].values()
        )
        return report
    opened = _models()
    if isinstance(opened, str):
        report["skipped"]["hybrid"] = opened
        return report
    models, matrix = opened
    if matrix is None:
        report["skipped"]["adapter"] = (
            "no query adapter fits the installed model: α stays 0"
        )
    tuning = {name: part_features(d, d.tuning, models) for name, d in datasets.items()}
    held = {name: part_features(d, d.held_out, models) for name, d in datasets.items()}
    chosen, search_report = search(tuning, matrix)
    report["search"] = search_report
    report["chosen"] = asdict(chosen)
    report["similarity_points"] = similarity_points(tuning, matrix, chosen)
    shipped = shipped_settings()
    columns = {
        "baseline": BASELINE,
        "without_adapter": replace(chosen, alpha=0.0),
        "with_adapter": replace(chosen, alpha=chosen.alpha or ADAPTER_FOLDED_ALPHA),
        "shipped": shipped,
    }
    report["columns"] = {label: settings.label() for label, settings in columns.items()}
    table = held_out_table(held, matrix, columns)
    report["held_out"] = table
    report["goals_held_out"] = goals(table)
    report["guard"] = guard(
        {
            name: {metric: _interval(row, metric) for metric in ("hit@3", "mrr@10")}
            for name, row in table.items()
        }
    )
    report["guard"]["baseline"] = BASELINE.label()
    report["guard"]["shipped"] = shipped.label()
    report["fuse_check"] = fuse_check(datasets, held, matrix, shipped)
    report["note"] = closing_note(table, report["guard"], report["skipped"])
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def _interval(row: dict[str, Any], metric: str) -> Any:
    from bench.panel.stats import Interval

    values = row["differences"]["shipped_vs_baseline"][metric]
    return Interval(values["diff"], values["low"], values["high"])


def closing_note(
    table: dict[str, Any], verdict: dict[str, Any], skipped: dict[str, str]
) -> str:
    """The held-out table as text: keyword / baseline / shipped (hit@1 / hit@3 / MRR@10), the
    shipped − baseline difference with its interval, and the guard's verdict."""

    def trio(figures: dict[str, float]) -> str:
        return " / ".join(f"{figures[m]:.3f}" for m in ("hit@1", "hit@3", "mrr@10"))

    lines = [
        "held-out part | queries (groups) | keyword | baseline | no adapter | with adapter | shipped | "
        "shipped − baseline hit@3, MRR@10 (95 %)"
    ]
    for name, row in table.items():
        f, d = row["figures"], row["differences"]["shipped_vs_baseline"]
        lines.append(
            f"{name} | {row['queries']} ({row['groups']}) | {trio(f['keyword'])} | {trio(f['baseline'])} | "
            f"{trio(f['without_adapter'])} | {trio(f['with_adapter'])} | {trio(f['shipped'])} | "
            + ", ".join(
                f"{d[m]['diff']:+.3f} [{d[m]['low']:+.3f}, {d[m]['high']:+.3f}]"
                for m in ("hit@3", "mrr@10")
            )
        )
    lines.append(
        "REGRESSION: " + "; ".join(verdict["losses"])
        if verdict["regression"]
        else f"no regression against the baseline on {len(table)} held-out parts"
    )
    lines += [f"skipped {name}: {why}" for name, why in skipped.items()]
    return "\n".join(lines)


HELP_EPILOG = "\n".join(
    [
        "Where each dataset is read from (environment variables):",
        f"  {ENV['metatool']:<26} MetaTool (plugin_des.json, all_clean_data.csv); default ../shared/bench/metatool",
        f"  {ENV['toollens']:<26} a clone of https://github.com/quchangle1/COLT (checkout or bare mirror, read at HEAD)",
        f"  {ENV['stabletoolbench']:<26} a clone of https://github.com/THUNLP-MT/StableToolBench",
        f"  {ENV['authored']:<26} the Anthropic skills corpus; default ../shared/corpus/anthropic-skills",
        "  (the authored requests are tests/match/data/trigger_evals, corpus_requests.tsv and tests/evals/data)",
        "The model: the config home's MiniLM (and WordLlama, if installed): make semantic; AIQ_HOME picks the home.",
        "A missing dataset or model is reported under 'skipped' and the rest of the panel runs.",
        "Features are cached in bench/results/panel/; the report goes to stdout (make bench: bench/results/report.json).",
    ]
)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m bench.panel",
        description=__doc__.split("\n\n")[0],
        epilog=HELP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the whole report as JSON (default: the table)",
    )
    args = parser.parse_args(argv)
    report = run()
    print(
        json.dumps(report, indent=2, default=str)
        if args.json
        else report.get("note", "")
    )
    return 1 if report.get("guard", {}).get("regression") else 0


if __name__ == "__main__":
    sys.exit(main())
