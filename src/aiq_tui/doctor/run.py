"""Run every doctor check over one collection with the engine's own matcher, builder and budget.

:func:`inputs_for_engine` hands the doctor the running engine's index, prompt builder, disclosure
texts and window (the TUI: judged for the model it runs); :func:`inputs_for_workspace` builds the
same parts exactly as :class:`~aiq_tui.agent.engine.Engine` does, without a model (the CLI),
judged for a *target* harness (:func:`choose_target`): its window, its skill listing's budget and
the fields it documents — by default the harness most of the skills live in, else aiq-tui itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiq_tui.config import AppConfig
from aiq_tui.context.prompt import PromptBuilder
from aiq_tui.doctor.budget import (
    budget_findings,
    listing_figures,
    listing_findings,
    skill_costs,
)
from aiq_tui.doctor.content import skill_findings
from aiq_tui.doctor.model import DoctorReport, Finding, SkillCost, Target, ordered
from aiq_tui.doctor.routing import routing_findings
from aiq_tui.doctor.spec import spec_findings
from aiq_tui.llm.windows import resolve_window
from aiq_tui.problems import Problem
from aiq_tui.ranking.match import Calibration, SkillIndex
from aiq_tui.skills.check import ListedProblems
from aiq_tui.skills.model import Phase, SkillMeta

CHECKS = ("routing", "budget", "content", "spec")


@dataclass(frozen=True)
class DoctorInputs:
    catalog: Any  # SkillCatalog: iterable of SkillMeta with load() and resources()
    config: AppConfig
    index: SkillIndex
    builder: PromptBuilder
    window: int
    full_text: Callable[[str], str]  # the engine's full-phase text of a skill
    skill_dirs: tuple[Path, ...] = ()
    target: Target | None = None
    """The harness judged for (None: the running engine's own model, the TUI)."""
    spec_target: str | None = None
    """What the spec check judges by: a harness name, "auto" (each skill by its folder) or
    None (the Agent Skills specification)."""
    layout_dirs: tuple[Path, ...] = ()
    """The ``skill_dirs`` the user named: searched in the layouts collections use."""


def inputs_for_engine(engine: Any) -> DoctorInputs:
    """The running engine's own parts (what the TUI's Doctor screen checks with)."""
    workspace = engine.workspace
    return DoctorInputs(
        catalog=workspace.catalog,
        config=engine.config,
        index=engine.index,
        builder=engine.builder,
        window=engine.window,
        full_text=lambda name: engine.skills.texts.text_for(name, Phase.FULL),
        skill_dirs=tuple(d.path for d in workspace.skill_dirs if d.path.is_dir()),
    )


def choose_target(
    metas: list[SkillMeta], requested: str | None, config: AppConfig
) -> Target:
    """The harness to judge ``metas`` for: ``requested`` (a profile name), else ("auto") the
    harness most of them live in (``.claude/skills``, a Claude Code plugin, ``.github/skills``…),
    else aiq-tui itself — whose window is the configured one."""
    from collections import Counter

    from aiq_tui.skills.harnesses import infer_harness, profile

    if requested and requested != "auto":
        chosen, why = profile(requested), "--target"
    else:
        by_folder: dict[Path, str] = {}
        counts: Counter[str] = Counter()
        for meta in metas:
            parent = meta.folder.parent  # the skills of one folder share their harness
            name = by_folder.get(parent)
            if name is None:
                name = by_folder[parent] = infer_harness(meta.folder).name
            counts[name] += 1
        harnesses = [
            (n, c) for n, c in counts.most_common() if n not in ("agentskills", "aiq")
        ]
        if harnesses:
            name, count = harnesses[0]
            chosen = profile(name)
            why = f"{count} of {len(metas)} skills live in its folders or plugins"
        else:
            chosen, why = profile("aiq"), "no skill lives in a harness's folder"
    window = chosen.window or resolve_window(config).tokens
    note = chosen.window_note if chosen.window else window_note(config)
    return Target(chosen.name, chosen.title, window, note, why)


def window_note(config: AppConfig) -> str:
    return f"the configured window ({resolve_window(config).label})"


def inputs_for_workspace(workspace: Any, target: str | None = "auto") -> DoctorInputs:
    """The parts an engine on this workspace would use, built the way the engine builds them,
    for the harness ``target`` names (see :func:`choose_target`)."""
    from aiq_tui.agent.skillset import LoadedSkills
    from aiq_tui.context.tokens import TokenCounter

    config: AppConfig = workspace.config
    counter = TokenCounter.for_config(config, workspace.home.tokenizer_cache_dir)
    builder = PromptBuilder(counter, config.context, config.disclosure)
    skills = LoadedSkills(
        workspace.catalog,
        config,
        counter,
        builder.catalog_line,
        line_cap=lambda: builder.line_cap,
    )
    chosen = choose_target(list(workspace.catalog), target, config)
    return DoctorInputs(
        catalog=workspace.catalog,
        config=config,
        index=SkillIndex(workspace.catalog, Calibration.from_config(config.matching)),
        builder=builder,
        window=chosen.window,
        full_text=lambda name: skills.texts.text_for(name, Phase.FULL),
        skill_dirs=tuple(d.path for d in workspace.skill_dirs if d.path.is_dir()),
        target=chosen,
        spec_target=target if target == "auto" else chosen.name,
        layout_dirs=tuple(
            d.path
            for d in workspace.skill_dirs
            if d.explicit and d.path.is_dir() and config.skills.search_layouts
        ),
    )


def _listed_by(inputs: DoctorInputs, metas: list[SkillMeta]) -> ListedProblems | None:
    """The catalog's resource listing (made for the budget and content checks) by folder, so the
    spec check does not list every folder again; None when the catalog lists with other limits."""
    catalog = inputs.catalog
    if getattr(catalog, "settings", None) != inputs.config.skills or not hasattr(
        catalog, "resource_problems"
    ):
        return None
    names = {meta.folder: meta.name for meta in metas}

    def listed(folder: Path) -> tuple[Problem, ...] | None:
        name = names.get(folder)
        return catalog.resource_problems(name) if name is not None else None

    return listed


def run_doctor(inputs: DoctorInputs, checks: tuple[str, ...] = CHECKS) -> DoctorReport:
    """Every finding over the collection, errors first."""
    started = time.perf_counter()
    metas = list(inputs.catalog)
    found: dict[str, list[Finding]] = {check: [] for check in CHECKS}
    costs: list[SkillCost] = []
    catalog = None
    listing = None
    with ThreadPoolExecutor(max_workers=1) as pool:
        # Token counting (tiktoken) releases the GIL: cost the skills while the other checks run.
        costing = (
            pool.submit(
                skill_costs, metas, inputs.builder, inputs.full_text, inputs.window
            )
            if "budget" in checks
            else None
        )
        if "routing" in checks:
            doctor = inputs.config.doctor
            found["routing"] = routing_findings(
                metas, inputs.index, doctor.collision_margin, doctor.overlap_share
            )
        if "content" in checks:
            for meta in metas:
                # Each file read once, for the content checks and the safety scan together.
                found["content"] += skill_findings(
                    meta, inputs.catalog.resources(meta.name)
                )
        if "spec" in checks:
            found["spec"] = spec_findings(
                inputs.skill_dirs,
                inputs.config.skills,
                _listed_by(inputs, metas),
                target=inputs.spec_target,
                layout_dirs=inputs.layout_dirs,
            )
        if costing is not None:
            costs, _unreadable = costing.result()
            found["budget"], catalog = budget_findings(
                metas, costs, inputs.builder, inputs.config, inputs.window
            )
            if inputs.target is not None and inputs.target.name != "aiq":
                from aiq_tui.skills.harnesses import profile

                harness = profile(inputs.target.name)
                listing = listing_figures(metas, harness, inputs.window)
                found["budget"] += listing_findings(listing, harness)
    findings = [finding for check in CHECKS for finding in found[check]]
    costs = sorted(costs, key=lambda c: (-c.full_tokens, c.name))
    return DoctorReport(
        skills=len(metas),
        findings=ordered(findings),
        costs=tuple(costs),
        catalog=catalog,
        seconds=time.perf_counter() - started,
        checks=checks,
        target=inputs.target,
        listing=listing,
    )
