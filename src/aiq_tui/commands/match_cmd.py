"""``aiq-tui match "QUERY"``: rank the discovered skills and say why, headless."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from aiq_tui.commands.common import EXIT_OK, EXIT_USAGE, make_console, open_workspace, option, print_json

if TYPE_CHECKING:
    from aiq_tui.ranking.match import Explanation
    from aiq_tui.skills.model import Match

_NEAR_MISSES = 3  # with a bare --explain: how many skills below the top-k are explained


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "match", parents=parents, help="rank skills for a query, with the score breakdown",
        description=(
            "Rank every discovered skill for QUERY and show the top-k with score, confidence, "
            "the disclosure phase each would get, and which query terms hit which field. "
            "--explain NAME says why a skill did not match; --explain alone explains the "
            "top-k and the near misses."
        ),
    )
    parser.add_argument("query", metavar="QUERY", help="the user's request, quoted")
    parser.add_argument("--top", type=int, metavar="K", help="how many matches to show (default: config matching.top_k)")
    parser.add_argument("--explain", nargs="?", const="", metavar="NAME",
                        help="explain a skill's rank (without NAME: the top-k and near misses)")
    parser.add_argument("--context", action="append", default=[], metavar="TEXT",
                        help="an earlier user message, down-weighted (repeatable)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=_match)


def _match(args: argparse.Namespace) -> int:
    from aiq_tui.ranking.disclose import phase_for
    from aiq_tui.ranking.match import SkillIndex

    top = option(args, "top")
    if top is not None and top < 1:
        print("aiq-tui match: --top must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    config = workspace.config
    top_k = top or config.matching.top_k
    index = SkillIndex(workspace.catalog)
    context = tuple(option(args, "context") or ())
    ranking = index.rank(args.query, context=context, top_k=None)
    shown = ranking.matches[:top_k]
    explain = option(args, "explain")
    if explain:
        if explain not in index:
            close = workspace.catalog.close_names(explain)
            hint = f" (did you mean: {', '.join(close)}?)" if close else ""
            print(f"aiq-tui match: no skill named {explain!r}{hint}", file=sys.stderr)
            return EXIT_USAGE
        explained = [explain]
    elif explain == "":
        explained = [m.name for m in ranking.matches[: top_k + _NEAR_MISSES]]
    else:
        explained = []
    explanations = [index.explain(args.query, name, context=context, top_k=top_k) for name in explained]
    thresholds = config.disclosure

    if option(args, "json"):
        print_json({
            "query": ranking.query,
            "terms": list(ranking.terms),
            "considered": ranking.considered,
            "matched": len(ranking.matches),
            "top_k": top_k,
            "matches": [
                _match_json(rank + 1, match, phase_for(match.confidence, thresholds).label)
                for rank, match in enumerate(shown)
            ],
            "explanations": [_explanation_json(item) for item in explanations],
        })
        return EXIT_OK
    _print_table(args, ranking.query, ranking.terms, shown, len(ranking.matches), ranking.considered, thresholds)
    if explanations:
        _print_explanations(args, explanations)
    return EXIT_OK


def _signals_text(match: "Match") -> str:
    return ", ".join(f"{s.term}@{s.field} {s.weight:.2f}" for s in match.signals)


def _match_json(rank: int, match: "Match", phase: str) -> dict[str, Any]:
    return {
        "rank": rank, "name": match.name, "score": match.score, "confidence": match.confidence,
        "phase": phase, "explicit": match.explicit,
        "signals": [{"term": s.term, "field": s.field, "weight": s.weight} for s in match.signals],
    }


def _explanation_json(item: "Explanation") -> dict[str, Any]:
    return {
        "name": item.name, "rank": item.rank,
        "score": item.match.score if item.match else 0.0,
        "confidence": item.match.confidence if item.match else 0.0,
        "missing": list(item.missing), "reasons": list(item.reasons),
    }


def _print_table(args: argparse.Namespace, query: str, terms: tuple[str, ...], shown: tuple["Match", ...],
                 matched: int, considered: int, thresholds: Any) -> None:
    from rich.table import Table

    from aiq_tui.ranking.disclose import phase_for

    console = make_console(args)
    console.print(f"query terms: {' '.join(terms) or '(none after stop-words)'}")
    if not shown:
        console.print(f"no skill matched ({considered} considered)")
        return
    table = Table(title=f"top {len(shown)} of {matched} matching skill(s), {considered} considered",
                  title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("name", style="bold", no_wrap=True)
    table.add_column("score", justify="right")
    table.add_column("conf", justify="right")
    table.add_column("phase", no_wrap=True)
    table.add_column("signals (term@field weight)", overflow="fold")
    for rank, match in enumerate(shown, start=1):
        table.add_row(str(rank), match.name, f"{match.score:.2f}", f"{match.confidence:.2f}",
                      phase_for(match.confidence, thresholds).label, _signals_text(match))
    console.print(table)


def _print_explanations(args: argparse.Namespace, explanations: list["Explanation"]) -> None:
    console = make_console(args)
    for item in explanations:
        where = f"rank {item.rank}" if item.rank else "no match"
        console.print(f"\n{item.name} ({where}):")
        for reason in item.reasons:
            console.print(f"  - {reason}")
