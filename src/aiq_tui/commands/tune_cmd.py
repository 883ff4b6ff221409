"""``aiq-tui skills tune NAME --eval FILE``: optimise a skill's description against its trigger evals.

Registered under ``skills`` by :mod:`aiq_tui.commands.skills_cmd`. The loop
(:mod:`aiq_tui.ranking.tune`) judges with the keyword matcher over the whole discovered
collection; each candidate that would win is checked for new collisions with the doctor's
routing check. ``--write`` replaces only the description in SKILL.md; without it nothing is
written. Exit 0 when the run completed (improved or not), 1 when ``--write`` failed or every
``--llm`` call failed (a refused key stops asking after the first), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
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
from aiq_tui.tuning import diff_ops, word_diff

if TYPE_CHECKING:
    from rich.console import Console

    from aiq_tui.ranking.trigger_eval import TriggerFigures
    from aiq_tui.ranking.tune import ProposalRequest, Scored, TuneResult
    from aiq_tui.skills.model import SkillMeta


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    tune = sub.add_parser(
        "tune",
        parents=parents,
        help="optimise a skill's description against its trigger evals",
        description=(
            "skill-creator's description optimisation loop with the matcher as the judge. The trigger eval "
            'set (a JSON list of {"query": ..., "should_trigger": true|false}; default: the skill\'s '
            "evals/trigger_eval.json) is split 60/40 into train and test (stratified, seeded, as skill-creator "
            "splits). Each round adds whole sentences after the author's text, which is kept (its first "
            'sentence above all): "Also use it for ..." with phrases of the should-trigger queries it '
            'missed, in the users\' words, and "Not for ..." with phrases of the near-misses it loaded for '
            "(the matcher reads a boundary's words as evidence against the skill, outweighing a match on "
            "its name's words); with --llm, also the configured model's rewrite. Each candidate is scored "
            "on train and test and the loop continues from the best on train; the candidate with the best "
            "test F1 that does no worse on train, fits 1,024 characters and creates no new collision with "
            "another skill (the doctor's check) wins. The report says why the loop stopped, shows "
            "before/after figures and the description diff; --json also carries skill-creator's run_loop "
            "fields (best_description, exit_reason, history with train/test results), so its "
            "generate_report.py renders it. --write replaces only the description in SKILL.md."
        ),
    )
    tune.add_argument("name", metavar="NAME", help="skill name")
    tune.add_argument(
        "--eval",
        metavar="FILE",
        help="trigger eval set (default: NAME's folder/evals/trigger_eval.json)",
    )
    tune.add_argument(
        "--write",
        action="store_true",
        help="replace the description in SKILL.md with the best one (atomic; other bytes unchanged)",
    )
    tune.add_argument(
        "--llm",
        action="store_true",
        help="also ask the configured provider (--provider) for a candidate each round",
    )
    tune.add_argument(
        "--rounds",
        type=int,
        metavar="N",
        help="rounds (default: config evals.iterations, 5)",
    )
    tune.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="seed of the train/test split (default: config evals.seed)",
    )
    tune.add_argument(
        "--holdout",
        type=float,
        metavar="X",
        help="share held out as the test set (default: config evals.holdout, 0.4)",
    )
    tune.add_argument(
        "--description",
        metavar="TEXT",
        help="start from TEXT instead of the description in SKILL.md (skill-creator's --description); "
        "nothing is written without --write",
    )
    tune.add_argument(
        "--trigger-threshold",
        type=float,
        metavar="X",
        help="share of runs at which a query counts as triggered in the skill-creator fields "
        "(default: config evals.trigger_rate, 0.5; the matcher makes one run per query)",
    )
    tune.add_argument(
        "--json",
        action="store_true",
        help="machine-readable report (ours and skill-creator's fields)",
    )
    tune.set_defaults(handler=_tune)


def _tune(args: argparse.Namespace) -> int:
    from aiq_tui.ranking.evaluate import EvalFileError
    from aiq_tui.ranking.trigger_eval import EVAL_FILE, EVAL_FOLDER, read_trigger_cases

    rounds, holdout = option(args, "rounds"), option(args, "holdout")
    if rounds is not None and rounds < 1:
        print("aiq-tui skills tune: --rounds must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    if holdout is not None and not 0 <= holdout < 1:
        print("aiq-tui skills tune: --holdout is a share: 0 ≤ X < 1", file=sys.stderr)
        return EXIT_USAGE
    threshold = option(args, "trigger_threshold")
    if threshold is not None and not 0 < threshold <= 1:
        print(
            "aiq-tui skills tune: --trigger-threshold is a share of runs: 0 < X ≤ 1",
            file=sys.stderr,
        )
        return EXIT_USAGE
    start = option(args, "description")
    if start is not None and not start.strip():
        print("aiq-tui skills tune: --description is empty", file=sys.stderr)
        return EXIT_USAGE
    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    catalog = workspace.catalog
    meta = catalog.get(args.name)
    if meta is None:
        close = catalog.close_names(args.name)
        hint = f" (did you mean: {', '.join(close)}?)" if close else ""
        print(
            f"aiq-tui skills tune: no active skill named {args.name!r}{hint}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    path = (
        Path(args.eval)
        if option(args, "eval")
        else meta.folder / EVAL_FOLDER / EVAL_FILE
    )
    try:
        cases = [
            case
            for case in read_trigger_cases(path, args.name)
            if case.skill == args.name
        ]
    except EvalFileError as exc:
        hint = "" if option(args, "eval") else " (give the eval set with --eval FILE)"
        print(f"aiq-tui skills tune: {exc}{hint}", file=sys.stderr)
        return EXIT_USAGE
    if not any(case.should_trigger for case in cases):
        print(
            f"aiq-tui skills tune: {path} has no should-trigger query for {args.name}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    settings = workspace.config.evals
    on_disk = meta.description
    if start is not None:
        meta = replace(meta, description=" ".join(start.split()))
    propose, close_model = (None, None)
    if option(args, "llm"):
        made = _model_proposer(args, workspace)
        if made is None:
            return EXIT_USAGE
        propose, close_model = made
    holdout = settings.holdout if holdout is None else holdout
    try:
        result, matcher_size = run_tune(
            workspace,
            meta,
            cases,
            rounds or settings.iterations,
            holdout,
            settings.seed if option(args, "seed") is None else args.seed,
            propose,
            progress=sys.stderr.isatty(),
        )
    finally:
        if close_model is not None:
            close_model()
    written = None
    code = EXIT_OK
    if option(args, "write") and result.best.description != on_disk.strip():
        from aiq_tui.skills.store import StoreError

        try:
            catalog.set_description(
                meta.name, result.best.description, expected=on_disk
            )
            written = str(meta.path)
        except (StoreError, OSError) as exc:
            print(f"aiq-tui skills tune: not written: {exc}", file=sys.stderr)
            code = EXIT_FAILED
    if (
        option(args, "llm")
        and result.rounds
        and len(result.proposals_failed) >= result.rounds
    ):
        # Every model call failed: the evidence candidates are reported, but what was asked for
        # (the model's proposals) did not happen.
        print(
            f"aiq-tui skills tune: --llm: {result.proposals_failed[-1]}",
            file=sys.stderr,
        )
        code = EXIT_FAILED
    if option(args, "json"):
        data = _result_json(
            result, path, matcher_size, written, bool(option(args, "write"))
        )
        share = settings.trigger_rate if threshold is None else threshold
        data.update(creator_json(result, holdout, share))
        has_test = bool(result.split.test)
        for number, (entry, scored) in enumerate(
            zip(data["history"], result.history), start=1
        ):
            entry.update(creator_history_entry(scored, number, share, has_test))
        print_json(data)
    else:
        _print_result(
            make_console(args),
            result,
            path,
            matcher_size,
            written,
            bool(option(args, "write")),
        )
    return code


def run_tune(
    workspace: Any,
    meta: SkillMeta,
    cases: list[Any],
    rounds: int,
    holdout: float,
    seed: int,
    propose: Any = None,
    progress: bool = False,
) -> tuple[TuneResult, int]:
    """:func:`aiq_tui.tuning.tune_skill`, with each round's train F1 on stderr for ``progress``."""
    from aiq_tui.tuning import tune_skill

    def on_round(number: int, scored: Scored) -> None:
        print(
            f"\rround {number}: train F1 {scored.train_f1:.2f}",
            end="",
            file=sys.stderr,
            flush=True,
        )

    found = tune_skill(
        workspace,
        meta,
        cases,
        rounds,
        holdout,
        seed,
        propose=propose,
        on_round=on_round if progress else None,
    )
    if progress:
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr, flush=True)
    return found


# -- --llm ----------------------------------------------------------------------------------------


def _model_proposer(
    args: argparse.Namespace, workspace: Any
) -> tuple[Callable[[ProposalRequest], str], Callable[[], None]] | None:
    """A proposer asking the configured provider (one event loop for every call), and its closer."""
    import asyncio

    from aiq_tui.conversation import Message, Role
    from aiq_tui.llm.base import ProviderError, TextDelta
    from aiq_tui.llm.factory import create_provider
    from aiq_tui.ranking.tune import proposal_prompt

    try:
        provider = create_provider(workspace.config, option(args, "provider"))
    except ValueError as exc:
        print(f"aiq-tui skills tune: {exc}", file=sys.stderr)
        return None
    if provider.is_demo:
        print(
            "aiq-tui skills tune: --llm with the offline demo provider proposes nothing useful; pass "
            "--provider with a configured model",
            file=sys.stderr,
        )
    loop = asyncio.new_event_loop()
    fatal: list[ProviderError] = []
    settings = workspace.config.llm.providers.get(provider.name)
    max_tokens = min(1024, settings.max_output_tokens) if settings is not None else 1024

    async def ask(request: ProposalRequest) -> str:
        parts = []
        prompt = proposal_prompt(request)
        async for item in provider.stream(
            "", [Message(Role.USER, prompt, id="m1")], [], max_tokens
        ):
            if isinstance(item, TextDelta):
                parts.append(item.text)
        return "".join(parts)

    def propose(request: ProposalRequest) -> str:
        if fatal:
            raise fatal[
                0
            ]  # a refused key or an unknown model: asking again would fail alike
        print(
            f"asking {provider.name} · {provider.model} for a description …",
            file=sys.stderr,
        )
        try:
            return loop.run_until_complete(ask(request))
        except ProviderError as exc:
            if not exc.retryable:
                fatal.append(exc)
            raise

    def close() -> None:
        loop.run_until_complete(provider.aclose())
        loop.close()

    return propose, close


# -- report ---------------------------------------------------------------------------------------


def _figures_json(figures: TriggerFigures) -> dict[str, Any]:
    data = figures.to_json()
    del data["skill"]
    return data


def _scored_json(scored: Scored) -> dict[str, Any]:
    return {
        "description": scored.description,
        "chars": len(scored.description),
        "origin": scored.candidate.origin,
        "round": scored.candidate.round,
        "train": _figures_json(scored.train.overall),
        "test": _figures_json(scored.test.overall),
    }


def creator_json(
    result: TuneResult, holdout: float, threshold: float
) -> dict[str, Any]:
    """The fields skill-creator's ``run_loop.py`` writes (and its ``generate_report.py`` reads),
    beside ours: each candidate scored is one row of its history, best by test score.

    ``history`` is shared with ours: each of our candidate entries gains skill-creator's keys
    (``iteration``, ``train_passed``/``test_passed``, ``train_results``/``test_results`` …)."""
    from aiq_tui.commands.trigger_report import creator_result, creator_summary

    best = result.best
    final = result.final or best
    has_test = bool(result.split.test)

    def score(results: list[dict[str, Any]]) -> str:
        summary = creator_summary(results)
        return f"{summary['passed']}/{summary['total']}"

    def results(scored: Scored, side: str) -> list[dict[str, Any]]:
        report = scored.train if side == "train" else scored.test
        return [creator_result(verdict, threshold) for verdict in report.verdicts]

    train, test = results(best, "train"), results(best, "test")
    every = train + test
    return {
        "skill_name": result.skill,
        "exit_reason": result.exit_reason,
        "original_description": result.original.description,
        "best_description": best.description,
        "best_score": score(test) if has_test else score(train),
        "best_train_score": score(train),
        "best_test_score": score(test) if has_test else None,
        "final_description": final.description,
        "iterations_run": len(result.history),
        "holdout": holdout,
        "train_size": len(result.split.train),
        "test_size": len(result.split.test),
        "trigger_threshold": threshold,
        # run_eval.py's shape for the best description, over train and test together.
        "description": best.description,
        "results": every,
        "summary": creator_summary(every),
    }


def creator_history_entry(
    scored: Scored, iteration: int, threshold: float, has_test: bool
) -> dict[str, Any]:
    """skill-creator's per-iteration history keys for one candidate."""
    from aiq_tui.commands.trigger_report import creator_result, creator_summary

    train = [creator_result(verdict, threshold) for verdict in scored.train.verdicts]
    test = [creator_result(verdict, threshold) for verdict in scored.test.verdicts]
    t, s = creator_summary(train), creator_summary(test)
    return {
        "iteration": iteration,
        "train_passed": t["passed"],
        "train_failed": t["failed"],
        "train_total": t["total"],
        "train_results": train,
        "test_passed": s["passed"] if has_test else None,
        "test_failed": s["failed"] if has_test else None,
        "test_total": s["total"] if has_test else None,
        "test_results": test if has_test else None,
        "passed": t["passed"],
        "failed": t["failed"],
        "total": t["total"],
        "results": train,
    }


def _result_json(
    result: TuneResult, path: Path, skills: int, written: str | None, write: bool
) -> dict[str, Any]:
    from aiq_tui.commands.trigger_report import verdict_json

    best = result.best
    return {
        "skill": result.skill,
        "eval": str(path),
        "skills_indexed": skills,
        "judge": "keyword",
        "train_queries": len(result.split.train),
        "test_queries": len(result.split.test),
        "rounds": result.rounds,
        "stopped": result.stopped,
        "candidates": len(result.history),
        "before": _scored_json(result.original),
        "after": _scored_json(best),
        "changed": result.changed,
        "diff": word_diff(result.original.description, best.description),
        "new_collisions": [],
        "rejected": [
            {**_scored_json(r.scored), "collisions": list(r.collisions)}
            for r in result.rejected
        ],
        "still_failing": [
            verdict_json(v) for v in best.train.failures + best.test.failures
        ],
        "model_proposals_failed": list(result.proposals_failed),
        "written": written,
        "write": write,
        "history": [_scored_json(scored) for scored in result.history],
    }


def _print_result(
    console: Console,
    result: TuneResult,
    path: Path,
    skills: int,
    written: str | None,
    write: bool,
) -> None:
    from rich.table import Table
    from rich.text import Text

    before, best = result.original, result.best
    console.print(
        f"tune {result.skill}: {len(result.split.train) + len(result.split.test)} queries from {path} "
        f"→ train {len(result.split.train)}, test {len(result.split.test)}; judged by the keyword "
        f"matcher over {skills} skills",
        soft_wrap=True,
    )
    console.print(
        f"{result.rounds} round(s), {len(result.history)} candidate(s) scored; stopped: {result.stopped}",
        soft_wrap=True,
    )
    table = Table(title_justify="left")
    table.add_column("")
    for column in ("train F1", "test F1", "recall", "@full", "false", "prec", "chars"):
        table.add_column(column, justify="right", no_wrap=True)
    for label, scored in (("before", before), ("after", best)):
        both = scored.train.overall + scored.test.overall
        table.add_row(
            label,
            f"{scored.train_f1:.2f}",
            f"{scored.test_f1:.2f}",
            f"{both.recall:.2f}",
            f"{both.recall_full:.2f}",
            f"{both.false_triggers}/{both.should_not}",
            f"{both.precision:.2f}",
            str(len(scored.description)),
        )
    console.print(table)
    console.print(
        "recall, @full, false and prec over train + test together", style="dim"
    )
    if not result.changed:
        console.print(
            "\nno candidate beat the current description on the test queries; nothing to change"
        )
    else:
        console.print(
            f"\nbest: {best.candidate.origin} (round {best.candidate.round})",
            soft_wrap=True,
        )
        console.print(
            Text("diff: ") + _diff_text(result.original.description, best.description),
            soft_wrap=True,
        )
        console.print(
            Text("after: ", style="bold") + Text(best.description), soft_wrap=True
        )
    if result.changed:
        console.print("new collisions: none (the doctor's routing check)")
    for rejected in result.rejected[:3]:
        console.print(
            f"rejected (test F1 {rejected.scored.test_f1:.2f}, {rejected.scored.candidate.origin}): "
            f"{'; '.join(rejected.collisions)}",
            soft_wrap=True,
        )
    failing = best.train.failures + best.test.failures
    if failing:
        console.print(f"\nstill failing ({len(failing)}):")
        for verdict in failing:
            expected = (
                "should trigger"
                if verdict.case.should_trigger
                else "should not trigger"
            )
            cause = _cause(verdict)
            console.print(
                f"  ✗ {expected}: {verdict.case.query!r}{cause}", soft_wrap=True
            )
    for failure in result.proposals_failed:
        console.print(f"model proposal unused — {failure}", soft_wrap=True)
    if written:
        console.print(f"\nwrote the description to {written}", soft_wrap=True)
    elif result.changed and not write:
        console.print(
            "\nnot written: pass --write to replace the description in SKILL.md",
            soft_wrap=True,
        )


def _cause(verdict: Any) -> str:
    """Why a failure may be out of the description's reach."""
    from aiq_tui.ranking.match import EXCLUSION_FIELD
    from aiq_tui.ranking.tokenize import name_terms

    match = verdict.match
    if match is None:
        return " — no query word is in its name or description"
    scored = {
        signal.term
        for signal in match.signals
        if signal.field not in ("rank-rule", EXCLUSION_FIELD)
    }
    if (
        not verdict.case.should_trigger
        and scored
        and scored <= set(name_terms(match.name))
    ):
        return (
            " — matched only by words of the skill's name: a \"Not for …\" boundary in this request's "
            "other words outweighs them"
        )
    excluded = [
        signal.term for signal in match.signals if signal.field == EXCLUSION_FIELD
    ]
    if excluded:
        state = (
            f"still loaded ({verdict.phase.label})"
            if verdict.loaded
            else f"ranked {verdict.rank}"
        )
        return f' — excluded by: "{excluded[0]}", {state}, confidence {match.confidence:.2f}'
    if verdict.loaded:
        return f" — loaded ({verdict.phase.label}), confidence {match.confidence:.2f}"
    return f" — ranked {verdict.rank}, confidence {match.confidence:.2f}"


def _diff_text(before: str, after: str) -> Any:
    from rich.text import Text

    text = Text()
    styles = {"=": "", "-": "red strike", "+": "green"}
    for index, (op, words) in enumerate(diff_ops(before, after)):
        if index:
            text.append(" ")
        shown = (
            words
            if op == "="
            else ("[-" + words + "-]" if op == "-" else "{+" + words + "+}")
        )
        text.append(shown, style=styles[op])
    return text
