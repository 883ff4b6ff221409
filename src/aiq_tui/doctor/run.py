"""Run every doctor check over one collection with the engine's own matcher, builder and budget.

:func:`inputs_for_engine` hands the doctor the running engine's index, prompt builder, disclosure
texts and window (the TUI); :func:`inputs_for_workspace` builds the same parts exactly as
:class:`~aiq_tui.agent.engine.Engine` does, without a model (the CLI).
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
from aiq_tui.doctor.budget import budget_findings, skill_costs
from aiq_tui.doctor.content import content_findings
from aiq_tui.doctor.model import DoctorReport, Finding, ordered
from aiq_tui.doctor.routing import routing_findings
from aiq_tui.doctor.spec import spec_findings
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


def inputs_for_workspace(workspace: Any) -> DoctorInputs:
    """The parts an engine on this workspace would use, built the way the engine builds them."""
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
    return DoctorInputs(
        catalog=workspace.catalog,
        config=config,
        index=SkillIndex(workspace.catalog, Calibration.from_config(config.matching)),
        builder=builder,
        window=config.context_window(),
        full_text=lambda name: skills.texts.text_for(name, Phase.FULL),
        skill_dirs=tuple(d.path for d in workspace.skill_dirs if d.path.is_dir()),
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
    costs = []
    catalog = None
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
                try:
                    body = inputs.catalog.load(meta.name).body
                except Exception:
                    body = None
                found["content"] += content_findings(
                    meta, body, inputs.catalog.resources(meta.name)
                )
        if "spec" in checks:
            found["spec"] = spec_findings(
                inputs.skill_dirs, inputs.config.skills, _listed_by(inputs, metas)
            )
        if costing is not None:
            costs, _unreadable = costing.result()
            found["budget"], catalog = budget_findings(
                metas, costs, inputs.builder, inputs.config, inputs.window
            )
    findings = [finding for check in CHECKS for finding in found[check]]
    costs = sorted(costs, key=lambda c: (-c.full_tokens, c.name))
    return DoctorReport(
        skills=len(metas),
        findings=ordered(findings),
        costs=tuple(costs),
        catalog=catalog,
        seconds=time.perf_counter() - started,
        checks=checks,
    )
