"""``aiq-tui match "QUERY"``: rank the discovered skills and say why, headless."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiq_tui.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    make_console,
    open_workspace,
    option,
    print_json,
)

if TYPE_CHECKING:
    from aiq_tui.ranking.evaluate import Case, Report
    from aiq_tui.ranking.match import Explanation
    from aiq_tui.skills.model import Match

_NEAR_MISSES = 3  # with a bare --explain: how many skills below the top-k are explained


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    parser = subparsers.add_parser(
        "match",
        parents=parents,
        help="rank skills for a query, with the score breakdown",
        description=(
            "Rank every discovered skill for QUERY and show the top-k with score, confidence, "
            "the disclosure phase each would get, and which query terms hit which field. "
            "--explain NAME says why a skill did not match; --explain alone explains the "
            'top-k and the near misses. A description\'s exclusion clauses ("Not for X", "SKIP when '
            '...", "(not for Y)") count against a skill for requests that use their words; the '
            "explanation names the clause (excluded by: ...). With the semantic extra and a model (aiq-tui models "
            "install minilm) the ranking adds an embedding similarity; skill vectors missing "
            "from the cache are computed first. --eval FILE scores an eval set instead: a TSV of "
            "'query<TAB>expected skill' (hit@k, MRR), or skill-creator's trigger set, a JSON list of "
            '{"query": ..., "should_trigger": true|false} (recall, false triggers, precision, F1 per '
            "skill; with --llm also what the configured model does)."
        ),
    )
    parser.add_argument(
        "query", metavar="QUERY", nargs="?", help="the user's request, quoted"
    )
    parser.add_argument(
        "--top",
        type=int,
        metavar="K",
        help="how many matches to show (default: config matching.top_k; with --eval: "
        "a miss is the expected skill below rank K, default 3)",
    )
    parser.add_argument(
        "--explain",
        nargs="?",
        const="",
        metavar="NAME",
        help="explain a skill's rank (without NAME: the top-k and near misses)",
    )
    parser.add_argument(
        "--context",
        action="append",
        default=[],
        metavar="TEXT",
        help="an earlier user message, down-weighted (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--eval",
        metavar="FILE",
        action="append",
        help="evaluate an eval set (repeatable; a folder: every <skill>/evals/trigger_eval.json "
        "beneath it, each skill's parent folder added as --skills-dir): a TSV of "
        "'query<TAB>expected skill' lines "
        "(# = comment, an optional header row): hit@1, hit@3, MRR@10, latency and every "
        "miss; or a trigger set (skill-creator's JSON list of query/should_trigger, e.g. "
        "SKILL/evals/trigger_eval.json): per skill recall (loaded brief or full, and at "
        "full), false triggers, precision, F1 and every failure with its scores",
    )
    parser.add_argument(
        "--min-hit3",
        type=float,
        metavar="X",
        help="with a TSV --eval: exit 1 when hit@3 is below X (for CI)",
    )
    parser.add_argument(
        "--skill",
        metavar="NAME",
        help="with a trigger --eval: the skill the queries are for (items without a "
        '"skill" key; default: the skill folder the file sits in)',
    )
    parser.add_argument(
        "--min-recall",
        type=float,
        metavar="X",
        help="with a trigger --eval: exit 1 when a skill's recall is below X",
    )
    parser.add_argument(
        "--max-false-rate",
        type=float,
        metavar="X",
        help="with a trigger --eval: exit 1 when a skill loads for more than X of its "
        "should-not queries",
    )
    parser.add_argument(
        "--llm",
        action="store_true",
        help="with a trigger --eval: also send each query, with the catalog the engine "
        "builds, to the configured provider (--provider) and report how often the model "
        "calls use_skill for the skill",
    )
    parser.add_argument(
        "--description",
        metavar="TEXT",
        help="with a trigger --eval of one skill: judge it with this description instead of "
        "the one in its SKILL.md (nothing is written; the keyword signal judges, as "
        "skill-creator's run_eval.py --description)",
    )
    parser.add_argument(
        "--trigger-threshold",
        type=float,
        metavar="X",
        help="with a trigger --eval: a query triggers when the skill loads in at least this "
        "share of runs (default: config evals.trigger_rate, 0.5; the matcher makes one "
        "run per query, --llm makes --runs)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        metavar="N",
        help="with --llm: requests per query (default: config evals.runs, 3)",
    )
    parser.add_argument(
        "--keyword-only",
        action="store_true",
        help="rank with the keyword signal alone, even when a semantic model is installed",
    )
    parser.set_defaults(handler=_match)


def _open_matcher(args: argparse.Namespace, workspace: Any) -> Any:
    """The matcher the app uses; with a model installed, pending skill vectors are computed
    first (once: they are cached in the config home), progress on stderr."""
    from aiq_tui.models import matcher_for, open_semantic
    from aiq_tui.ranking.match import Calibration, SkillIndex

    index = SkillIndex(
        workspace.catalog, Calibration.from_config(workspace.config.matching)
    )
    semantic = (
        None
        if option(args, "keyword_only")
        else open_semantic(workspace.home, workspace.config, workspace.catalog)
    )
    if semantic is not None:
        pending = semantic.progress.total - semantic.progress.done
        if pending:
            print(
                f"embedding {pending} skill(s) with {semantic.name} (cached for next time) …",
                file=sys.stderr,
            )
        semantic.prepare()
        if semantic.state == "failed":
            print(
                f"aiq-tui match: semantic model unusable, keyword only: {semantic.error}",
                file=sys.stderr,
            )
    return matcher_for(workspace.home, workspace.config, index, semantic)


def _match(args: argparse.Namespace) -> int:
    from aiq_tui.ranking.disclose import phase_for

    top = option(args, "top")
    if top is not None and top < 1:
        print("aiq-tui match: --top must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    if option(args, "eval") is None and not args.query:
        print("aiq-tui match: give a QUERY (or --eval FILE)", file=sys.stderr)
        return EXIT_USAGE
    threshold = option(args, "trigger_threshold")
    if threshold is not None and not 0 < threshold <= 1:
        print(
            "aiq-tui match: --trigger-threshold is a share of runs: 0 < X ≤ 1",
            file=sys.stderr,
        )
        return EXIT_USAGE
    for flag in (
        "min_hit3",
        "skill",
        "min_recall",
        "max_false_rate",
        "llm",
        "runs",
        "description",
        "trigger_threshold",
    ):
        if _given(args, flag) and option(args, "eval") is None:
            print(
                f"aiq-tui match: --{flag.replace('_', '-')} needs --eval FILE",
                file=sys.stderr,
            )
            return EXIT_USAGE
    if option(args, "runs") is not None and (args.runs < 1 or not option(args, "llm")):
        print("aiq-tui match: --runs takes a number ≥ 1, with --llm", file=sys.stderr)
        return EXIT_USAGE
    if option(args, "eval") is not None:
        return _eval_files(args, top)
    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    config = workspace.config
    top_k = top or config.matching.top_k
    matcher = _open_matcher(args, workspace)
    context = tuple(option(args, "context") or ())
    ranking = matcher.rank(args.query, context=context, top_k=None)
    shown = ranking.matches[:top_k]
    explain = option(args, "explain")
    if explain:
        if explain not in matcher.index:
            close = workspace.catalog.close_names(explain)
            hint = f" (did you mean: {', '.join(close)}?)" if close else ""
            print(f"aiq-tui match: no skill named {explain!r}{hint}", file=sys.stderr)
            return EXIT_USAGE
        explained = [explain]
    elif explain == "":
        explained = [m.name for m in ranking.matches[: top_k + _NEAR_MISSES]]
    else:
        explained = []
    explanations = [
        matcher.explain(args.query, name, context=context, top_k=top_k)
        for name in explained
    ]
    thresholds = config.disclosure

    if option(args, "json"):
        print_json(
            {
                "query": ranking.query,
                "terms": list(ranking.terms),
                "considered": ranking.considered,
                "matched": len(ranking.matches),
                "top_k": top_k,
                "signals_used": list(matcher.signals_used),
                "matches": [
                    _match_json(
                        rank + 1, match, phase_for(match.confidence, thresholds).label
                    )
                    for rank, match in enumerate(shown)
                ],
                "explanations": [_explanation_json(item) for item in explanations],
            }
        )
        return EXIT_OK
    _print_table(
        args,
        ranking.query,
        ranking.terms,
        shown,
        len(ranking.matches),
        ranking.considered,
        thresholds,
        matcher.index,
    )
    make_console(args).print(f"signals: {' + '.join(matcher.signals_used)}")
    if explanations:
        _print_explanations(args, explanations)
    return EXIT_OK


def _similarity(match: Match) -> float | None:
    from aiq_tui.ranking.semantic import SEMANTIC_FIELD

    return next((s.weight for s in match.signals if s.field == SEMANTIC_FIELD), None)


def _match_json(rank: int, match: Match, phase: str) -> dict[str, Any]:
    return {
        "rank": rank,
        "name": match.name,
        "score": match.score,
        "confidence": match.confidence,
        "phase": phase,
        "explicit": match.explicit,
        "similarity": _similarity(match),
        "signals": [
            {
                "term": s.term,
                "field": s.field,
                "weight": s.weight,
                **({"via": s.via} if s.via else {}),
            }
            for s in match.signals
        ],
    }


def _explanation_json(item: Explanation) -> dict[str, Any]:
    return {
        "name": item.name,
        "rank": item.rank,
        "score": item.match.score if item.match else 0.0,
        "confidence": item.match.confidence if item.match else 0.0,
        "similarity": _similarity(item.match) if item.match else None,
        "missing": list(item.missing),
        "missing_words": list(item.missing_words),
        "reasons": list(item.reasons),
        "excluded_by": list(item.excluded_by),
    }


def _print_table(
    args: argparse.Namespace,
    query: str,
    terms: tuple[str, ...],
    shown: tuple[Match, ...],
    matched: int,
    considered: int,
    thresholds: Any,
    index: Any,
) -> None:
    from rich.table import Table

    from aiq_tui.figures import decisive
    from aiq_tui.ranking.disclose import phase_for
    from aiq_tui.ranking.signal_words import signals_text

    console = make_console(args)
    typed = index.words_for(query)
    console.print(
        f"query terms: {' '.join(typed.get(t, t) for t in terms) or '(none after stop-words)'}"
    )
    if not shown:
        console.print(f"no skill matched ({considered} considered)")
        return
    table = Table(
        title=f"top {len(shown)} of {matched} matching skill(s), {considered} considered",
        title_justify="left",
    )
    table.add_column("#", justify="right")
    table.add_column("name", style="bold", no_wrap=True)
    table.add_column("score", justify="right")
    table.add_column("conf", justify="right")
    table.add_column("phase", no_wrap=True)
    table.add_column("signals (term@field weight)", overflow="fold")
    for rank, match in enumerate(shown, start=1):
        table.add_row(
            str(rank),
            match.name,
            f"{match.score:.2f}",
            decisive(
                match.confidence,
                (thresholds.brief_threshold, thresholds.full_threshold),
            ),
            phase_for(match.confidence, thresholds).label,
            signals_text(match.signals, index.words_for(query, match.name)),
        )
    console.print(table)
    if any(signal.via for match in shown for signal in match.signals):
        console.print(
            "query~word: the skill has a word related to the query's, met at half weight"
        )


def _print_explanations(
    args: argparse.Namespace, explanations: list[Explanation]
) -> None:
    console = make_console(args)
    for item in explanations:
        where = f"rank {item.rank}" if item.rank else "no match"
        console.print(f"\n{item.name} ({where}):")
        for reason in item.reasons:
            console.print(f"  - {reason}")


# -- --eval ---------------------------------------------------------------------------------------

_TRIGGER_ONLY = (
    "skill",
    "min_recall",
    "max_false_rate",
    "llm",
    "description",
    "trigger_threshold",
)


def _given(args: argparse.Namespace, flag: str) -> bool:
    value = option(args, flag)
    return value is not None and value is not False


def _eval_files(args: argparse.Namespace, top: int | None) -> int:
    """A TSV (hit@k) or trigger sets (recall, false triggers, precision, F1), by the files' format."""
    from aiq_tui.ranking.evaluate import EvalFileError, read_cases, read_eval_file
    from aiq_tui.ranking.trigger_eval import is_trigger_file

    paths = _expand_eval_folders(args)
    if not paths:
        where = ", ".join(str(path) for path in args.eval)
        print(
            f"aiq-tui match: no <skill>/evals/trigger_eval.json under {where}: nothing to evaluate",
            file=sys.stderr,
        )
        return EXIT_OK
    kinds = set()
    for path in paths:
        try:
            head = read_eval_file(path)[:512].decode("utf-8", errors="replace")
        except EvalFileError as exc:
            print(f"aiq-tui match: {exc}", file=sys.stderr)
            return EXIT_USAGE
        kinds.add("trigger" if is_trigger_file(path, head) else "tsv")
    if len(kinds) > 1:
        print(
            "aiq-tui match: give either TSV files (query<TAB>skill) or trigger sets (JSON), not both",
            file=sys.stderr,
        )
        return EXIT_USAGE
    trigger = kinds == {"trigger"}
    wrong = [
        flag
        for flag in (_TRIGGER_ONLY if not trigger else ("min_hit3",))
        if _given(args, flag)
    ]
    if wrong:
        kind = "a TSV" if not trigger else "a trigger set"
        print(
            f"aiq-tui match: --{wrong[0].replace('_', '-')} does not apply to {kind}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if trigger:
        return _evaluate_triggers(args)
    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    try:
        cases = [case for path in paths for case in read_cases(path)]
    except EvalFileError as exc:
        print(f"aiq-tui match: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return _evaluate(args, workspace, _open_matcher(args, workspace), cases, top or 3)


_NOT_SEARCHED = frozenset(
    ("node_modules", "__pycache__", "venv", "site-packages")
)  # besides dot-folders


def _expand_eval_folders(args: argparse.Namespace) -> list[Path]:
    """``--eval`` paths with each folder replaced by every ``<skill>/evals/trigger_eval.json``
    beneath it (skill-creator's layout, what a pre-commit hook or CI job points at); each such
    skill's parent folder joins ``--skills-dir`` so the skill is in the collection it is ranked in."""
    import os

    from aiq_tui.ranking.trigger_eval import EVAL_FILE, EVAL_FOLDER

    paths: list[Path] = []
    added = list(option(args, "skills_dir") or ())
    for given in (Path(path) for path in args.eval):
        if not given.is_dir():
            paths.append(given)
            continue
        for root, folders, files in os.walk(given):
            folders[:] = sorted(
                f for f in folders if not f.startswith(".") and f not in _NOT_SEARCHED
            )
            skill = Path(root).parent
            if (
                Path(root).name == EVAL_FOLDER
                and EVAL_FILE in files
                and (skill / "SKILL.md").is_file()
            ):
                paths.append(Path(root) / EVAL_FILE)
                if str(skill.parent) not in added:
                    added.append(str(skill.parent))
    args.skills_dir = added
    args.eval = [str(path) for path in paths]
    return paths


def _evaluate_triggers(args: argparse.Namespace) -> int:
    from aiq_tui.commands import trigger_report
    from aiq_tui.commands.common import open_engine
    from aiq_tui.ranking.evaluate import EvalFileError

    engine = open_engine(args) if option(args, "llm") else None
    if option(args, "llm") and engine is None:
        return EXIT_USAGE
    workspace = engine.workspace if engine is not None else open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    try:
        cases = trigger_report.read_trigger_files(
            [Path(p) for p in args.eval], workspace.catalog, option(args, "skill")
        )
    except EvalFileError as exc:
        print(f"aiq-tui match: {exc}", file=sys.stderr)
        return EXIT_USAGE
    description = option(args, "description")
    if description is not None:
        return _evaluate_description(args, workspace, cases, description, engine)
    return trigger_report.run(
        args, workspace, _open_matcher(args, workspace), cases, engine
    )


def _evaluate_description(
    args: argparse.Namespace,
    workspace: Any,
    cases: list[Any],
    description: str,
    engine: Any,
) -> int:
    """``--description TEXT``: the one skill of the eval judged with TEXT (the file is not touched)."""
    from dataclasses import replace

    from aiq_tui.commands import trigger_report

    if engine is not None:
        print(
            "aiq-tui match: --description judges with the matcher; it does not combine with --llm "
            "(the model reads the catalog the engine builds from SKILL.md)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    names = sorted({case.skill for case in cases})
    meta = workspace.catalog.get(names[0]) if len(names) == 1 else None
    if meta is None:
        print(
            "aiq-tui match: --description needs an eval of one indexed skill "
            f"(this one names {', '.join(names) or 'none'}; give --skill NAME)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if not description.strip():
        print("aiq-tui match: --description is empty", file=sys.stderr)
        return EXIT_USAGE
    args.keyword_only = True  # a skill vector would be the file's description, not TEXT
    matcher = _open_matcher(args, workspace)
    matcher.index.upsert(replace(meta, description=description.strip()))
    return trigger_report.run(args, workspace, matcher, cases, engine)


def _evaluate(
    args: argparse.Namespace,
    workspace: Any,
    matcher: Any,
    cases: list[Case],
    top: int,
) -> int:
    from aiq_tui.ranking.evaluate import evaluate

    report = evaluate(
        lambda query: matcher.rank(query, top_k=10),
        cases,
        top=top,
        known=lambda name: name in matcher.index,
    )
    threshold = option(args, "min_hit3")
    passed = threshold is None or report.hit3 >= threshold
    if option(args, "json"):
        print_json(
            {
                "file": str(args.eval[0]),
                "files": [str(path) for path in args.eval],
                "kind": "ranking",
                "signals_used": list(matcher.signals_used),
                "skills": len(matcher.index),
                **report.figures(),
                "min_hit3": threshold,
                "passed": passed,
                "unknown_skills": list(report.unknown),
                "misses": [_miss_json(miss) for miss in report.misses],
            }
        )
    else:
        _print_report(args, report, matcher, threshold, passed)
    return EXIT_OK if passed else EXIT_FAILED


def _miss_json(miss: Any) -> dict[str, Any]:
    return {
        "line": miss.line,
        "query": miss.query,
        "expected": miss.expected,
        "rank": miss.rank,
        "beaten_by": list(miss.beaten_by),
    }


def _print_report(
    args: argparse.Namespace,
    report: Report,
    matcher: Any,
    threshold: float | None,
    passed: bool,
) -> None:
    console = make_console(args)
    console.print(
        f"{report.cases} queries against {len(matcher.index)} skills "
        f"(signals: {' + '.join(matcher.signals_used)})"
    )
    figures = f"hit@1 {report.hit1:.3f}  hit@3 {report.hit3:.3f}"
    if report.top not in (1, 3):
        figures += f"  hit@{report.top} {report.hit_top:.3f}"
    console.print(f"{figures}  MRR@10 {report.mrr:.3f}")
    console.print(
        f"latency per query: p50 {report.latency_ms_p50:.2f} ms, p95 {report.latency_ms_p95:.2f} ms"
    )
    for name in report.unknown:
        console.print(
            f"warning: no skill named {name!r} is indexed (a typo in {', '.join(args.eval)}?)"
        )
    if report.misses:
        console.print(
            f"\n{len(report.misses)} miss(es) (expected skill not in the top {report.top}):"
        )
        for miss in report.misses:
            where = f"ranked {miss.rank}" if miss.rank else "not matched"
            beaten = ", ".join(miss.beaten_by) or "nothing matched"
            console.print(
                f"  line {miss.line}: {miss.query!r} → {miss.expected} {where}; top: {beaten}",
                soft_wrap=True,
            )
    if threshold is not None:
        verdict = "passed" if passed else "FAILED"
        console.print(
            f"\nhit@3 {report.hit3:.3f} vs --min-hit3 {threshold:.3f}: {verdict}"
        )
