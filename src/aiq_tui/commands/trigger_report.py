"""``aiq-tui match --eval FILE`` on trigger eval sets (skill-creator's JSON): read, score, report.

Called by :mod:`aiq_tui.commands.match_cmd` when the eval files are JSON trigger sets rather
than a TSV of ``query<TAB>skill``. The matcher is the one ``match`` ranks with; with ``--llm``
the configured provider is asked too (:mod:`aiq_tui.agent.trigger_probe`) and its figures
are shown beside the matcher's.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiq_tui.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    make_console,
    option,
    print_json,
)

if TYPE_CHECKING:
    from rich.console import Console

    from aiq_tui.agent.trigger_probe import ModelFigures, ModelTrigger
    from aiq_tui.ranking.trigger_eval import (
        TriggerCase,
        TriggerFigures,
        TriggerReport,
        TriggerVerdict,
    )

SHOWN_SIGNALS = 8


def read_trigger_files(
    paths: list[Path], catalog: Any, skill: str | None
) -> list[TriggerCase]:
    """Every case of the files; raises :class:`~aiq_tui.ranking.evaluate.EvalFileError`."""
    from aiq_tui.ranking.evaluate import EvalFileError
    from aiq_tui.ranking.trigger_eval import read_trigger_cases, skill_of_eval_file

    cases: list[TriggerCase] = []
    skipped = skipped_skill_folders(catalog)
    for path in paths:
        folder = skill_of_eval_file(path)
        folder_skill = None
        if folder is not None:
            folder_skill = next(
                (meta.name for meta in catalog if meta.folder.resolve() == folder), None
            )
            if folder_skill is None and skill is None and folder in skipped:
                # Its SKILL.md was found but did not load: one warning, the other sets run.
                print(
                    f"aiq-tui match: warning: {path} is not scored: its skill's SKILL.md "
                    f"did not load — {skipped[folder]}",
                    file=sys.stderr,
                )
                continue
            if folder_skill is None and skill is None:
                raise EvalFileError(
                    f"{path} sits in {folder}, which is not among the discovered skills; "
                    f"add its parent folder with --skills-dir {folder.parent}"
                )
        cases += read_trigger_cases(path, skill, folder_skill)
    return cases


def skipped_skill_folders(catalog: Any) -> dict[Path, str]:
    """Skill folders whose SKILL.md discovery found and skipped, with the reason (resolved)."""
    found: dict[Path, str] = {}
    for problem in getattr(catalog, "problems", ()):
        path = problem.path
        if (
            path is not None
            and path.name == "SKILL.md"
            and "skill skipped" in problem.message
        ):
            found.setdefault(path.parent.resolve(), problem.message)
    return found


def run(
    args: argparse.Namespace,
    workspace: Any,
    matcher: Any,
    cases: list[TriggerCase],
    engine: Any = None,
) -> int:
    """Score ``cases`` with ``matcher`` (and the engine's model with ``--llm``), print, gate."""
    from aiq_tui.ranking.trigger_eval import evaluate_triggers

    config = workspace.config
    top_k = config.matching.top_k
    skipped = {
        folder.name: why
        for folder, why in skipped_skill_folders(workspace.catalog).items()
    }
    unknown = sorted({case.skill for case in cases if case.skill not in matcher.index})
    for name in [name for name in unknown if name in skipped]:
        print(
            f"aiq-tui match: warning: the eval cases of {name!r} are not scored: its SKILL.md "
            f"did not load — {skipped[name]}",
            file=sys.stderr,
        )
        cases = [case for case in cases if case.skill != name]
        unknown.remove(name)
    if unknown:
        for name in unknown:
            close = workspace.catalog.close_names(name)
            hint = (
                f" (did you mean: {', '.join(close)}?)"
                if close
                else " (add its folder with --skills-dir)"
            )
            print(
                f"aiq-tui match: the eval names skill {name!r}, which is not indexed{hint}",
                file=sys.stderr,
            )
        return EXIT_USAGE
    report = evaluate_triggers(
        lambda query: matcher.rank(query, top_k=None),
        cases,
        top_k=top_k,
        thresholds=config.disclosure,
        explain=lambda query, name: matcher.explain(query, name, top_k=top_k).reasons,
    )
    model = None
    if engine is not None:
        model = _ask_model(args, engine, cases)
        if model is None:
            return EXIT_FAILED
    gates = _gates(args, report, model)
    passed = not gates
    if option(args, "json"):
        print_json(_report_json(args, matcher, report, model, config, gates))
    else:
        console = make_console(args)
        _print_report(console, args, matcher, report, model, config)
        _print_gates(console, args, gates)
    return EXIT_OK if passed else EXIT_FAILED


# -- the model ------------------------------------------------------------------------------------


def _ask_model(
    args: argparse.Namespace, engine: Any, cases: list[TriggerCase]
) -> dict[str, Any] | None:
    import asyncio

    from aiq_tui.agent.trigger_probe import model_figures, probe_triggers
    from aiq_tui.llm.base import ProviderError

    settings = engine.config.evals
    runs = option(args, "runs") or settings.runs
    label = engine.provider_label
    if engine.is_demo:
        print(
            "aiq-tui match: --llm with the offline demo provider: its use_skill calls are scripted, not a "
            "model's decisions (pass --provider with a configured model)",
            file=sys.stderr,
        )
    queries = len({case.query for case in cases})
    print(f"asking {label}: {queries} queries × {runs} run(s) …", file=sys.stderr)
    progress = _progress_printer()
    started = time.perf_counter()

    async def probe() -> list[ModelTrigger]:
        try:
            return await probe_triggers(
                engine, cases, runs, settings.concurrency, progress
            )
        finally:
            await engine.aclose()

    try:
        results = asyncio.run(probe())
    except ProviderError as exc:
        print(f"\naiq-tui match: {exc}", file=sys.stderr)
        return None
    seconds = time.perf_counter() - started
    print(
        f"\r{queries * runs} request(s) in {seconds:.1f} s" + " " * 10, file=sys.stderr
    )
    threshold = option(args, "trigger_threshold")
    threshold = settings.trigger_rate if threshold is None else threshold
    skills, overall = model_figures(results, threshold)
    return {
        "label": label,
        "provider": engine.provider.name,
        "model": engine.provider.model,
        "demo": engine.is_demo,
        "runs": runs,
        "threshold": threshold,
        "results": results,
        "skills": skills,
        "overall": overall,
    }


def _progress_printer() -> Callable[[int, int], None]:
    """Progress on stderr: a counter rewritten in place on a terminal, at most ~4 times a second."""
    last = [0.0]
    tty = sys.stderr.isatty()

    def show(done: int, total: int) -> None:
        now = time.perf_counter()
        if tty and (now - last[0] >= 0.25 or done == total):
            last[0] = now
            print(f"\r  {done}/{total} request(s)", end="", file=sys.stderr, flush=True)

    return show


# -- gates ----------------------------------------------------------------------------------------


def _gates(
    args: argparse.Namespace, report: TriggerReport, model: dict[str, Any] | None
) -> list[str]:
    """Every skill (matcher, and the model with --llm) below --min-recall or above --max-false-rate."""
    min_recall, max_false = option(args, "min_recall"), option(args, "max_false_rate")
    failed: list[str] = []
    sources: list[tuple[str, list[TriggerFigures]]] = [("matcher", list(report.skills))]
    if model is not None:
        sources.append(("model", [item.figures for item in model["skills"]]))
    for who, figures in sources:
        for item in figures:
            if min_recall is not None and item.should and item.recall < min_recall:
                failed.append(
                    f"{who}: {item.skill} recall {item.recall:.3f} < --min-recall {min_recall:g}"
                )
            if (
                max_false is not None
                and item.should_not
                and item.false_rate > max_false
            ):
                failed.append(
                    f"{who}: {item.skill} false-trigger rate {item.false_rate:.3f} > "
                    f"--max-false-rate {max_false:g}"
                )
    return failed


def _print_gates(console: Console, args: argparse.Namespace, gates: list[str]) -> None:
    if option(args, "min_recall") is None and option(args, "max_false_rate") is None:
        return
    if not gates:
        console.print("\nthresholds: passed")
        return
    console.print("\nthresholds: FAILED")
    for line in gates:
        console.print(f"  {line}", soft_wrap=True)


# -- JSON -----------------------------------------------------------------------------------------


def _report_json(
    args: argparse.Namespace,
    matcher: Any,
    report: TriggerReport,
    model: dict[str, Any] | None,
    config: Any,
    gates: list[str],
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "files": [str(path) for path in option(args, "eval")],
        "kind": "trigger",
        "signals_used": list(matcher.signals_used),
        "skills_indexed": len(matcher.index),
        "top_k": config.matching.top_k,
        "brief_threshold": config.disclosure.brief_threshold,
        "full_threshold": config.disclosure.full_threshold,
        "skills": [figures.to_json() for figures in report.skills],
        "overall": report.overall.to_json(),
        "failures": [verdict_json(verdict) for verdict in report.failures],
        "min_recall": option(args, "min_recall"),
        "max_false_rate": option(args, "max_false_rate"),
        "passed": not gates,
        "gates_failed": gates,
        "model": None,
    }
    # skill-creator's run_eval.py fields beside ours: every query (not only failures), judged at
    # --trigger-threshold; with --llm, by the model's trigger rate as skill-creator judges.
    threshold = option(args, "trigger_threshold")
    threshold = config.evals.trigger_rate if threshold is None else threshold
    results = [creator_result(verdict, threshold) for verdict in report.verdicts]
    if model is not None:
        results = [result.to_json(model["threshold"]) for result in model["results"]]
        results = [
            {
                "query": r["query"],
                "should_trigger": r["should_trigger"],
                "trigger_rate": r["trigger_rate"],
                "triggers": r["triggers"],
                "runs": r["runs"],
                "pass": r["passed"],
            }
            for r in results
        ]
    data["trigger_threshold"] = threshold
    data["results"] = results
    data["summary"] = creator_summary(results)
    skills = {case.skill for case in (v.case for v in report.verdicts)}
    if len(skills) == 1:
        data["skill_name"] = next(iter(skills))
    description = option(args, "description")
    if description is not None:
        data["description"] = description
    if model is not None:
        threshold = model["threshold"]
        data["model"] = {
            "provider": model["provider"],
            "model": model["model"],
            "demo": model["demo"],
            "runs": model["runs"],
            "trigger_threshold": threshold,
            "skills": [item.to_json() for item in model["skills"]],
            "overall": model["overall"].to_json(),
            "queries": [result.to_json(threshold) for result in model["results"]],
        }
    return data


# -- skill-creator's shapes ----------------------------------------------------------------------
# skill-creator's run_eval.py writes {"results": [{query, should_trigger, trigger_rate, triggers,
# runs, pass}], "summary": {total, passed, failed}}; its run_loop.py and generate_report.py read
# them. The matcher decides once per query, so a query is one run that triggered or did not.


def creator_result(verdict: TriggerVerdict, threshold: float) -> dict[str, Any]:
    """One query as skill-creator's ``run_eval.py`` reports it (the matcher: one run)."""
    rate = 1.0 if verdict.loaded else 0.0
    should = verdict.case.should_trigger
    return {
        "query": verdict.case.query,
        "should_trigger": should,
        "trigger_rate": rate,
        "triggers": int(verdict.loaded),
        "runs": 1,
        "pass": rate >= threshold if should else rate < threshold,
    }


def creator_summary(results: list[dict[str, Any]]) -> dict[str, int]:
    passed = sum(1 for result in results if result["pass"])
    return {"total": len(results), "passed": passed, "failed": len(results) - passed}


def verdict_json(verdict: TriggerVerdict) -> dict[str, Any]:
    match = verdict.match
    return {
        "where": verdict.case.where,
        "query": verdict.case.query,
        "skill": verdict.case.skill,
        "should_trigger": verdict.case.should_trigger,
        "loaded": verdict.loaded,
        "phase": verdict.phase.label,
        "rank": verdict.rank,
        "score": match.score if match else 0.0,
        "confidence": match.confidence if match else 0.0,
        "ranked_above": list(verdict.ahead),
        "signals": [
            {"term": s.term, "field": s.field, "weight": s.weight}
            for s in match.signals
        ]
        if match
        else [],
        "reasons": list(verdict.reasons),
    }


# -- text -----------------------------------------------------------------------------------------


def _print_report(
    console: Console,
    args: argparse.Namespace,
    matcher: Any,
    report: TriggerReport,
    model: dict[str, Any] | None,
    config: Any,
) -> None:
    from rich.table import Table

    disclosure = config.disclosure
    skills = len(report.skills)
    if option(args, "description") is not None:
        console.print(
            f"judged with --description (SKILL.md unchanged): {option(args, 'description')}",
            soft_wrap=True,
        )
    console.print(
        f"{report.overall.queries} trigger queries for {skills} skill(s) against {len(matcher.index)} "
        f"skills (signals: {' + '.join(matcher.signals_used)}); a skill loads in the top "
        f"{config.matching.top_k} at confidence ≥ {disclosure.brief_threshold:g} (brief), "
        f"≥ {disclosure.full_threshold:g} (full)",
        soft_wrap=True,
    )
    # Short headers: the table must fit 80 columns with a long skill name (legend printed below).
    table = Table(title_justify="left")
    table.add_column("skill", no_wrap=True)
    for column in ("+/−", "recall", "@full", "false", "prec", "F1"):
        table.add_column(column, justify="right", no_wrap=True)
    model_rows: dict[str, Any] = {}
    if model is not None:
        for column in ("model R", "false", "F1"):
            table.add_column(column, justify="right", no_wrap=True)
        model_rows = {item.figures.skill: item for item in model["skills"]}
        model_rows[""] = model["overall"]
    rows = list(report.skills) + ([report.overall] if skills > 1 else [])
    for figures in rows:
        cells = [
            figures.skill or "overall",
            f"{figures.should}/{figures.should_not}",
            f"{figures.recall:.2f}",
            f"{figures.recall_full:.2f}",
            f"{figures.false_triggers}/{figures.should_not}",
            f"{figures.precision:.2f}",
            f"{figures.f1:.2f}",
        ]
        if model is not None:
            item = model_rows.get(figures.skill)
            cells += _model_cells(item) if item is not None else ["–", "–", "–"]
        table.add_row(*cells)
    console.print(table)
    console.print(
        "+/−: should / should-not queries · recall: share of should queries that load it (brief or "
        "full), @full: at full · false: should-not queries that load it · prec: loads that were right"
        + (" · model R: model recall (use_skill rate)" if model is not None else ""),
        style="dim",
        soft_wrap=True,
    )
    failures = report.failures
    if failures:
        console.print(f"\n{len(failures)} failure(s):")
        for verdict in failures:
            _print_failure(console, verdict, matcher.index.words_for)
    else:
        console.print("\nevery query passed")
    if model is not None:
        _print_model(console, model)


def _model_cells(item: ModelFigures) -> list[str]:
    f = item.figures
    return [
        f"{f.recall:.2f} {item.trigger_rate:.0%}",
        f"{f.false_triggers}/{f.should_not}",
        f"{f.f1:.2f}",
    ]


def _print_failure(
    console: Console,
    verdict: TriggerVerdict,
    words_for: Callable[..., dict[str, str]],
) -> None:
    case, match = verdict.case, verdict.match
    expected = "should trigger" if case.should_trigger else "should not trigger"
    if verdict.loaded:
        what = f"loaded ({verdict.phase.label})"
    else:
        what = "not loaded"
    where = f"ranked {verdict.rank}" if verdict.rank else "no match"
    figures = (
        f", confidence {match.confidence:.2f}, score {match.score:.2f}" if match else ""
    )
    ahead = f"; above it: {', '.join(verdict.ahead)}" if verdict.ahead else ""
    console.print(
        f"  ✗ {case.where} {case.skill}: {expected}, {what} — {where}{figures}{ahead}",
        soft_wrap=True,
    )
    console.print(f"    {case.query!r}", soft_wrap=True)
    if match and match.signals:
        from aiq_tui.ranking.signal_words import signals_text

        shown = signals_text(
            match.signals, words_for(case.query, match.name), limit=SHOWN_SIGNALS
        )
        console.print(f"    signals: {shown}", soft_wrap=True)
    for reason in verdict.reasons:
        console.print(f"    - {reason}", soft_wrap=True)


def _print_model(console: Console, model: dict[str, Any]) -> None:
    threshold = model["threshold"]
    results = model["results"]
    console.print(
        f"\nmodel {model['label']}: {model['runs']} run(s) per query, triggered when use_skill is "
        f"called in ≥ {threshold:.0%} of runs",
        soft_wrap=True,
    )
    failed = [result for result in results if not result.passed(threshold)]
    for result in failed:
        case = result.case
        expected = "should trigger" if case.should_trigger else "should not trigger"
        others = [name for name in result.called if name != case.skill]
        called = f"; called {', '.join(others)}" if others else ""
        errors = (
            f"; {len(result.errors)} failed run(s): {result.errors[0]}"
            if result.errors
            else ""
        )
        console.print(
            f"  ✗ {case.where} {case.skill}: {expected}, use_skill {result.triggers}/{result.answered}"
            f"{called}{errors}",
            soft_wrap=True,
        )
        console.print(f"    {case.query!r}", soft_wrap=True)
    if not failed:
        console.print("  every query passed")
