"""Budget checks: what each skill costs in the prompt the engine builds, and what overflows —
judged in the target harness's window, with the harness's own skill listing and its character
budget (:func:`listing_figures`: Claude Code's 1 % of the window, Codex's 2 %).

Costs come from the engine's own parts: the prompt builder's catalog fit, catalog line and
catalog section (bounded by ``context.catalog_share``), the disclosure texts and ``## Skill:``
section the engine loads at the full phase, and the token counter of the configured model. The
shortened descriptions are the builder's own cut (:func:`~aiq_tui.context.catalog_line.line_cuts`),
the figures ``aiq-tui prompt`` and the match inspector show.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from aiq_tui.config import AppConfig
from aiq_tui.context.catalog_line import CATALOG_HEADER, line_cuts
from aiq_tui.context.prompt import LoadedSkill, PromptBuilder, skill_section
from aiq_tui.doctor.model import (
    CatalogFigures,
    Finding,
    Kind,
    Level,
    ListingFigures,
    SkillCost,
)
from aiq_tui.harnesses import HarnessProfile, listing_budget
from aiq_tui.skills.invocation import model_invocable
from aiq_tui.skills.model import Phase, SkillMeta, SkillState

SHOWN_CUT = 8  # skills named in the overflow finding; the JSON lists them all


def skill_costs(
    metas: Sequence[SkillMeta],
    builder: PromptBuilder,
    full_text: Callable[[str], str],
    window: int,
) -> tuple[list[SkillCost], list[str]]:
    """Per-skill costs in a ``window``-token prompt, plus names whose full text could not be
    read (reported elsewhere)."""
    count = builder.counter.count
    costs: list[SkillCost] = []
    unreadable: list[str] = []
    fit = builder.fit_catalog([(meta.name, meta.description) for meta in metas], window)
    for meta in metas:
        line = builder.catalog_line(meta.name, meta.description, fit=fit)
        whole = f"- {meta.name}: {' '.join(meta.description.split())}\n"
        try:
            content = full_text(meta.name)
        except Exception:
            unreadable.append(meta.name)
            content = ""
        section = skill_section(
            LoadedSkill(
                meta.name, meta.description, content, SkillState.ACTIVE, Phase.FULL
            )
        )
        costs.append(
            SkillCost(
                meta.name, count(line), count(section) if content else 0, line != whole
            )
        )
    return costs, unreadable


def budget_findings(
    metas: Sequence[SkillMeta],
    costs: Sequence[SkillCost],
    builder: PromptBuilder,
    config: AppConfig,
    window: int,
) -> tuple[list[Finding], CatalogFigures]:
    findings: list[Finding] = []
    reserve = config.context.reserve_output
    room = window - reserve
    share = config.doctor.body_share
    for cost in costs:
        if cost.full_tokens > room:
            findings.append(
                Finding(
                    Kind.BUDGET,
                    Level.ERROR,
                    (cost.name,),
                    f"{cost.name} cannot be loaded in full",
                    why=(
                        f"its full instructions cost {cost.full_tokens:,} tokens; the {window:,}-token window "
                        f"leaves {room:,} after the {reserve:,}-token answer reserve, so a turn that needs it is refused"
                    ),
                    fix="move long material into resource files the agent reads on demand (references/, scripts/)",
                )
            )
        elif cost.full_tokens > share * window:
            findings.append(
                Finding(
                    Kind.BUDGET,
                    Level.WARNING,
                    (cost.name,),
                    f"{cost.name} is a budget hog",
                    why=(
                        f"loaded in full it takes {cost.full_tokens:,} tokens, {cost.full_tokens / window:.0%} of the "
                        f"{window:,}-token window (hog above {share:.0%}); it pushes out history and other skills"
                    ),
                    fix="keep SKILL.md to the steps; move references and examples into files it links to",
                )
            )
    catalog = catalog_figures(metas, costs, builder, config, window)
    shortened = catalog.shortened
    if shortened:
        cuts = "; ".join(cut.text() for cut in catalog.cuts[:SHOWN_CUT])
        findings.append(
            Finding(
                Kind.BUDGET,
                Level.INFO,
                shortened,
                f"{len(shortened)} description(s) are shortened in the catalog",
                why=(
                    f"{catalog.cut_why}; the model never sees the rest (exclusion clauses are kept): "
                    + cuts
                    + (" …" if len(shortened) > SHOWN_CUT else "")
                ),
                fix=(
                    "put what the skill does and when to use it in the first sentence"
                    + (
                        ""
                        if config.disclosure.metadata_tokens
                        else ", or raise disclosure.descriptions_share"
                    )
                ),
            )
        )
    if catalog.omitted:
        cut = ", ".join(catalog.omitted[:SHOWN_CUT]) + (
            " …" if len(catalog.omitted) > SHOWN_CUT else ""
        )
        findings.append(
            Finding(
                Kind.BUDGET,
                Level.WARNING,
                tuple(catalog.omitted),
                f"catalog overflows: {len(catalog.omitted)} skill(s) not listed",
                why=(
                    f"the catalog may take {catalog.catalog_limit:,} tokens ({config.context.catalog_share:.0%} of "
                    f"{window:,}); with nothing matched yet, these are cut first: {cut}"
                ),
                fix="shorten descriptions, raise context.catalog_share, or split the collection by project",
            )
        )
    over = [(n, t) for n, t in catalog.projections if t > catalog.catalog_limit]
    if over:
        n, t = over[0]
        findings.append(
            Finding(
                Kind.BUDGET,
                Level.INFO,
                (),
                f"catalog would overflow at {n:,} skills like these",
                why=(
                    f"at {catalog.average_line:.1f} tokens per catalog line, {n:,} skills cost {t:,} tokens "
                    f"against a {catalog.catalog_limit:,}-token catalog share"
                ),
                fix="shorter first sentences in descriptions keep large collections listable",
            )
        )
    return findings, catalog


def catalog_figures(
    metas: Sequence[SkillMeta],
    costs: Sequence[SkillCost],
    builder: PromptBuilder,
    config: AppConfig,
    window: int,
) -> CatalogFigures:
    entries = [
        (meta.name, meta.description) for meta in metas
    ]  # the engine's order before any match
    text, listed, omitted = builder.catalog_section(entries, window)
    count = builder.counter.count
    fit = builder.fit_catalog(entries, window)
    cuts = line_cuts(entries[:listed], fit, count)
    average = sum(c.catalog_tokens for c in costs) / len(costs) if costs else 0.0
    header = count(CATALOG_HEADER)
    projections = tuple(
        (n, round(header + n * average)) for n in config.doctor.catalog_scales
    )
    return CatalogFigures(
        window=window,
        catalog_limit=int(window * config.context.catalog_share),
        catalog_tokens=count(text),
        listed=listed,
        omitted=tuple(name for name, _ in entries[listed:]) if omitted else (),
        average_line=average,
        projections=projections,
        shortened=tuple(cut.name for cut in cuts),
        cuts=cuts,
        cut_why=fit.why(),
    )


# -- the harness's own skill listing ------------------------------------------------------------

SHOWN_LISTING = 5  # skills named in the "cut in the listing" note
ENTRY_FRAMING = 4  # "- ", ": " around each name in a listing line


def listing_figures(
    metas: Sequence[SkillMeta],
    harness: HarnessProfile,
    window: int,
    env: Mapping[str, str] | None = None,
) -> ListingFigures:
    """What the listing of ``metas`` costs in ``harness``'s characters: each skill the model
    may invoke, by name and description (with Claude Code's ``when_to_use``), each entry cut at
    the harness's per-entry cap."""
    budget = listing_budget(harness, window, env)
    cap = harness.entry_chars
    chars = listed = manual = 0
    cut: list[str] = []
    for meta in metas:
        if meta.extras and not model_invocable(meta.extras):
            manual += 1
            continue
        text = " ".join(meta.description.split())
        extra = (
            meta.extras.get("when_to_use") if harness.name == "claude-code" else None
        )
        if isinstance(extra, str) and extra.strip():
            text += " " + " ".join(extra.split())
        if cap is not None and len(text) > cap:
            cut.append(meta.name)
            text = text[:cap]
        chars += len(meta.name) + len(text) + ENTRY_FRAMING
        listed += 1
    return ListingFigures(
        harness.title, chars, budget.chars, budget.why, listed, manual, tuple(cut)
    )


def listing_findings(listing: ListingFigures, harness: HarnessProfile) -> list[Finding]:
    """The listing over the harness's budget (a warning that says what the harness does then),
    and descriptions the harness cuts (a note)."""
    findings: list[Finding] = []
    title = harness.title
    if listing.over and listing.budget is not None:
        findings.append(
            Finding(
                Kind.BUDGET,
                Level.WARNING,
                (),
                f"the skill listing is {listing.chars:,} characters, over {title}'s "
                f"{listing.budget:,}-character budget",
                why=(
                    f"{title} lists the {listing.listed:,} skills its model may invoke, by name and "
                    f"description, within {listing.budget:,} characters ({listing.why}); past "
                    "that it shortens or drops descriptions (Claude Code: those of the skills used "
                    "least), and a skill listed by name alone is rarely chosen"
                ),
                fix=(
                    "put each skill's key use case first and trim the rest; mark the skills only "
                    "you run `disable-model-invocation: true` (they leave the listing)"
                    + (
                        "; or raise skillListingBudgetFraction in settings.json, or "
                        f"{harness.listing_budget_variable}"
                        if harness.listing_budget_variable
                        else ""
                    )
                ),
            )
        )
    if listing.cut_entries and harness.entry_chars is not None:
        shown = ", ".join(listing.cut_entries[:SHOWN_LISTING]) + (
            " …" if len(listing.cut_entries) > SHOWN_LISTING else ""
        )
        findings.append(
            Finding(
                Kind.BUDGET,
                Level.INFO,
                listing.cut_entries,
                f"{len(listing.cut_entries)} description(s) are cut at {harness.entry_chars:,} "
                f"characters in {title}'s listing",
                why=f"{title} keeps the first {harness.entry_chars:,} characters of each: {shown}",
                fix="say what the skill does and when to use it first",
            )
        )
    return findings
