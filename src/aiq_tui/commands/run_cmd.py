"""``aiq-tui run "INTENT"``: execution by intent (seed 003) — rank, then run the best executable skill.

The engine ranks every active skill for INTENT (the same index ``match`` and the agent use).
The best *executable* one (script, template or composite) runs when its confidence reaches
``--min-confidence`` (default ``matching.run_min_confidence``): through the engine's tool
registry, so the permission policy applies exactly as for the agent (scripts ask under
``execute_skill_script``; ``--yes`` approves, ``--deny-all`` refuses). Otherwise the command
says which skill came closest and why, and exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from aiq_tui.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    make_console,
    open_engine,
    option,
    print_json,
)
from aiq_tui.figures import decisive
from aiq_tui.skills.invocation import model_invocable


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    parser = subparsers.add_parser(
        "run",
        parents=parents,
        help="run the skill that best matches an intent",
        description=(
            "Rank skills for INTENT and run the best executable one (script, template or composite) "
            "when its confidence reaches --min-confidence; otherwise say which skill came closest "
            "and why (exit 1). Scripts run sandboxed under the execute_skill_script permission."
        ),
    )
    parser.add_argument("intent", metavar="INTENT", help="what you want done, quoted")
    parser.add_argument(
        "--min-confidence",
        type=float,
        metavar="X",
        help="confidence in [0, 1] the skill needs (default: matching.run_min_confidence)",
    )
    parser.add_argument(
        "--param",
        "-p",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a skill parameter (repeatable); VALUE may be JSON, e.g. -p count=3",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    approval = parser.add_mutually_exclusive_group()
    approval.add_argument(
        "--yes", action="store_true", help="approve the script without asking"
    )
    approval.add_argument(
        "--deny-all", action="store_true", help="refuse anything that asks"
    )
    parser.set_defaults(handler=_run)


def _params(pairs: list[str]) -> dict[str, str] | str:
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            return f"--param {pair!r}: write KEY=VALUE"
        params[key] = value
    return params


def _typed(params: dict[str, str], schema: dict[str, Any]) -> dict[str, Any]:
    """VALUEs as JSON (numbers, lists, true/false) unless the skill declares the parameter a string."""
    properties = schema.get("properties") or {}
    typed: dict[str, Any] = {}
    for key, value in params.items():
        if (properties.get(key) or {}).get("type") == "string":
            typed[key] = value
            continue
        try:
            typed[key] = json.loads(value)
        except ValueError:
            typed[key] = value
    return typed


def _run(args: argparse.Namespace) -> int:
    minimum = option(args, "min_confidence")
    if minimum is not None and not 0 <= minimum <= 1:
        print("aiq-tui run: --min-confidence must be between 0 and 1", file=sys.stderr)
        return EXIT_USAGE
    params = _params(option(args, "param") or [])
    if isinstance(params, str):
        print(f"aiq-tui run: {params}", file=sys.stderr)
        return EXIT_USAGE
    if not args.intent.strip():
        print("aiq-tui run: the intent is empty", file=sys.stderr)
        return EXIT_USAGE
    engine = open_engine(args)
    if engine is None:
        return EXIT_USAGE
    if minimum is None:
        minimum = engine.config.matching.run_min_confidence
    return asyncio.run(_execute(args, engine, args.intent.strip(), minimum, params))


async def _execute(
    args: argparse.Namespace,
    engine: Any,
    intent: str,
    minimum: float,
    params: dict[str, Any],
) -> int:
    from aiq_tui.commands.ask_cmd import _approver
    from aiq_tui.conversation import ToolCall
    from aiq_tui.skills.tool_names import tool_name_for

    as_json = bool(option(args, "json"))
    console = make_console(args, stderr=True)
    try:
        ranking = engine.rank(intent)
        catalog = engine.workspace.catalog
        ranked = [
            (m, catalog.get(m.name))
            for m in ranking.matches
            if catalog.get(m.name) is not None
        ]
        # A match never runs a skill only the user runs by name (disable-model-invocation).
        executable = [
            (m, meta)
            for m, meta in ranked
            if meta.type != "instruction" and model_invocable(meta.extras)
        ]
        best = executable[0] if executable else None
        report: dict[str, Any] = {
            "intent": intent,
            "min_confidence": minimum,
            "ranking": [
                {
                    "name": m.name,
                    "type": meta.type,
                    "score": round(m.score, 4),
                    "confidence": round(m.confidence, 4),
                }
                for m, meta in ranked[:5]
            ],
        }
        if best is None or best[0].confidence < minimum:
            closest = best or (ranked[0] if ranked else None)
            if closest is None:
                why = "no skill matches any word of the intent"
            else:
                kind = (
                    ""
                    if closest[1].type != "instruction"
                    else " (an instruction skill: nothing to run)"
                )
                why = (
                    f"closest: {closest[0].name}{kind}, confidence "
                    f"{decisive(closest[0].confidence, (minimum,))} < {decisive(minimum, (closest[0].confidence,))} — "
                    + engine.explain(intent, closest[0].name)
                )
            report.update(ran=None, reason=why)
            if as_json:
                print_json(report)
            else:
                console.print(
                    f"no executable skill is confident enough to run; {why}",
                    markup=False,
                )
            return EXIT_FAILED
        match, meta = best
        tool_name = tool_name_for(meta.name)
        if (
            engine.skill_for_tool(tool_name) != meta.name
        ):  # the one mapping agrees, or we refuse
            print(f"aiq-tui run: no tool for skill {meta.name!r}", file=sys.stderr)
            return EXIT_FAILED
        params = _typed(params, engine.tools.get(tool_name).spec.parameters)
        await engine.activate(meta.name)
        events: list[Any] = []
        result = await engine.tools.invoke(
            ToolCall("run-1", tool_name, params),
            _approver(args, console, as_json),
            events.append,
        )
        report.update(
            ran=meta.name,
            type=meta.type,
            confidence=round(match.confidence, 4),
            ok=result.ok,
            result=result.content if result.ok else None,
            error=result.error,
        )
        if as_json:
            print_json(report)
        else:
            console.print(
                f"running {meta.name} ({meta.type}, confidence {match.confidence:.2f})",
                markup=False,
            )
            _print_result(meta.type, result)
        return EXIT_OK if result.ok else EXIT_FAILED
    finally:
        await engine.aclose()


def _print_result(kind: str, result: Any) -> None:
    content = result.content if isinstance(result.content, dict) else {}
    if not result.ok and not content:
        print(f"aiq-tui run: {result.error}", file=sys.stderr)
        return
    if kind == "script":
        sys.stdout.write(content.get("stdout", ""))
        sys.stderr.write(content.get("stderr", ""))
        if not result.ok:
            print(f"aiq-tui run: {result.error}", file=sys.stderr)
    elif kind == "template":
        sys.stdout.write(content.get("output", ""))
        if not content.get("output", "").endswith("\n"):
            sys.stdout.write("\n")
    elif kind == "composite":
        from aiq_tui.skills.executor import format_plan

        print(format_plan(content) or "")
