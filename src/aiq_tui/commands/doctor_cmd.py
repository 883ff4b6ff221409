"""``aiq-tui skills doctor``: check a whole skill collection against the matcher and budget.

Registered under ``skills`` by :mod:`aiq_tui.commands.skills_cmd`. Exit 0 when there are no
errors, 1 when there are (for CI), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
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
    from rich.console import Console

    from aiq_tui.doctor.model import DoctorReport

MARKS = {"error": ("✗", "bold red"), "warning": ("!", "yellow"), "info": ("·", "cyan")}
TOP_COSTS = 5


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    doctor = sub.add_parser(
        "doctor",
        parents=parents,
        help="check the whole collection: collisions, reach, budget, risk, spec",
        description=(
            "One report over every discovered skill, checked with the matcher, prompt builder and "
            "token budget the agent uses: skills that steal each other's queries, skills their own "
            "description does not reach, budget hogs and catalog overflow, risky scripts and links, "
            "and every `skills validate --strict` problem; and a safety scan of every file "
            "(dangerous commands, prompt injection, instructions hidden in HTML comments or "
            "invisible characters, exfiltration, allowed-tools wider than the text needs), each "
            "finding with its rule, file:line, severity and why. --skills-dir DIR adds a folder of skills "
            "to the discovered ones (they are checked together, as the agent would route them). "
            "The collection is judged for a harness (--target): its context window, the character "
            "budget of the skill listing its model sees (Claude Code: 1 %% of the window, Codex: "
            "2 %%) and the fields it documents; by default the harness most skills live in "
            "(.claude/skills or a Claude Code plugin → claude-code), else aiq-tui with its "
            "configured window. aiq-tui's own limits (resource sizes) are notes. "
            "Exit 0 no errors, 1 errors found, 2 usage."
        ),
    )
    from aiq_tui.skills.harnesses import names

    doctor.add_argument(
        "--target",
        metavar="HARNESS",
        choices=("auto", *names()),
        default="auto",
        help="judge for this harness: auto (default), " + ", ".join(names()),
    )
    doctor.add_argument(
        "--format",
        choices=("text", "json", "sarif"),
        default=None,
        help="text (default), json (the same as --json) or sarif (SARIF 2.1.0 for code "
        "scanning: every finding with its rule, file and line)",
    )
    doctor.add_argument(
        "--json", action="store_true", help="machine-readable report (--format json)"
    )
    doctor.set_defaults(handler=_doctor)


def _doctor(args: argparse.Namespace) -> int:
    from aiq_tui.doctor.run import inputs_for_workspace, run_doctor

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    from aiq_tui.tools.permission_rules import of_permissions

    report = run_doctor(
        inputs_for_workspace(workspace, option(args, "target") or "auto")
    )
    config_warnings = of_permissions(
        workspace.problems
    )  # typos in tools.permissions: a silent no-op otherwise
    form = option(args, "format") or ("json" if option(args, "json") else "text")
    if option(args, "json") and form != "json":
        print("aiq-tui: --json is --format json; give one of them", file=sys.stderr)
        return EXIT_USAGE
    if form == "sarif":
        from aiq_tui.doctor.safety.sarif import to_sarif

        catalog = workspace.catalog
        print_json(
            to_sarif(
                report,
                lambda name: meta.path if (meta := catalog.get(name)) else None,
            )
        )
    elif form == "json":
        print_json(
            {
                **report.to_json(),
                "config_warnings": [p.to_json() for p in config_warnings],
            }
        )
    else:
        console = make_console(args)
        print_report(console, report)
        print_config_warnings(console, config_warnings)
    return EXIT_OK if report.ok else EXIT_FAILED


def print_config_warnings(console: Console, problems: list[Any]) -> None:
    """config.yaml keys that name nothing (``tools.permissions``), one line each."""
    from rich.text import Text

    mark, style = MARKS["warning"]
    for problem in problems:
        console.print(
            Text(f"{mark} warning ", style=style)
            + Text("[config] ", style="dim")
            + Text(f"{problem.path}: {problem.message}"),
            soft_wrap=True,
        )


def print_report(console: Console, report: DoctorReport) -> None:
    from rich.text import Text

    for finding in report.findings:
        mark, style = MARKS[finding.level.value]
        console.print(
            Text(f"{mark} {finding.level.value} ", style=style)
            + Text(
                f"[{finding.kind.value}{':' + finding.rule if finding.rule else ''}] ",
                style="dim",
            )
            + Text(finding.title, style="bold"),
            soft_wrap=True,
        )
        if finding.location is not None:
            console.print(Text(f"    at: {finding.location}"), soft_wrap=True)
        console.print(Text(f"    why: {finding.why}"), soft_wrap=True)
        console.print(Text(f"    fix: {finding.fix}"), soft_wrap=True)
        if finding.query and finding.kind.value in ("collision", "unreachable"):
            console.print(
                Text(f"    see: aiq-tui match {_quoted(finding.query)}", style="dim"),
                soft_wrap=True,
            )
    target, listing = report.target, report.listing
    if target is not None:
        console.print(
            Text(
                f"judged for {target.title} ({target.why}): {target.window:,}-token window — "
                f"{target.window_note}"
            ),
            soft_wrap=True,
        )
    if listing is not None:
        budget = (
            f"of {listing.budget:,} characters ({listing.why})"
            if listing.budget is not None
            else f"({listing.why})"
        )
        left = (
            f"; {listing.manual_only} only you run, not listed"
            if listing.manual_only
            else ""
        )
        console.print(
            Text(
                f"{listing.harness}'s skill listing: {listing.chars:,} characters {budget}, "
                f"{listing.listed} skills{left}",
                style="yellow" if listing.over else "",
            ),
            soft_wrap=True,
        )
    catalog = report.catalog
    if catalog is not None:
        console.print(
            Text(
                f"catalog: {catalog.catalog_tokens:,} of {catalog.catalog_limit:,} tokens "
                f"({catalog.counts()}) in a {catalog.window:,}-token window; "
                "projected "
                + ", ".join(f"{n:,} skills → {t:,}" for n, t in catalog.projections)
            ),
            soft_wrap=True,
        )
    if report.costs:
        top = ", ".join(f"{c.name} {c.full_tokens:,}" for c in report.costs[:TOP_COSTS])
        console.print(Text(f"largest full loads (tokens): {top}"), soft_wrap=True)
    counts = report.counts()
    console.print(
        Text(
            f"{report.skills} skill(s): {counts['error']} error(s), {counts['warning']} warning(s), "
            f"{counts['info']} note(s) in {report.seconds:.2f} s",
            style="bold red" if counts["error"] else "bold green",
        )
    )


def _quoted(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    flat = flat if len(flat) <= limit else flat[:limit].rsplit(" ", 1)[0]
    return "'" + flat.replace("'", "'\\''") + "'"
