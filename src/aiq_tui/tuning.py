"""Tuning a skill's description over a workspace: the loop ``skills tune`` and the TUI's
trigger-eval view (``p``) both run, judged by the keyword matcher over the whole collection,
with the doctor's routing check as a guard, and the word diff both show."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiq_tui.ranking.tune import Scored, TuneResult
    from aiq_tui.skills.model import SkillMeta

BLOCKING_LEVELS = ("error", "warning")  # an overlap (info) is reported, not blocking


def tune_skill(
    workspace: Any,
    meta: SkillMeta,
    cases: list[Any],
    rounds: int,
    holdout: float,
    seed: int,
    propose: Any = None,
    on_round: Callable[[int, Scored], None] | None = None,
) -> tuple[TuneResult, int]:
    """The loop for ``meta`` over ``cases``, judged by the keyword matcher over ``workspace``'s
    collection (the CLI and the TUI's eval view both call it); (result, skills indexed)."""
    from aiq_tui.models import matcher_for
    from aiq_tui.ranking.match import SkillIndex
    from aiq_tui.ranking.tune import DescriptionJudge, tune

    config = workspace.config
    index = SkillIndex(workspace.catalog)
    # Keyword judge: a candidate's embedding would need the model for every candidate.
    matcher = matcher_for(workspace.home, config, index, None)
    judge = DescriptionJudge(
        index,
        meta,
        lambda query: matcher.rank(query, top_k=None),
        config.matching.top_k,
        config.disclosure,
    )
    try:
        body = workspace.catalog.load(meta.name).body
    except Exception:
        body = ""
    check = collision_check(list(workspace.catalog), index, meta, config)
    background = body_background(workspace.catalog, meta.name)

    result = tune(
        judge,
        cases,
        holdout=holdout,
        seed=seed,
        rounds=rounds,
        body=body,
        background=background,
        propose=propose,
        collisions=check,
        on_round=on_round,
    )
    return result, len(index)


BACKGROUND_SKILLS = (
    400  # other skills' instructions read to tell common words from distinctive ones
)


def body_background(catalog: Any, name: str) -> Callable[[str], float]:
    """The share of the other skills (up to ``BACKGROUND_SKILLS``, spread evenly over the names)
    whose instructions use a term."""
    from collections import Counter

    from aiq_tui.ranking.tokenize import tokenize

    names = [other for other in catalog.names() if other != name]
    step = max(1, len(names) // BACKGROUND_SKILLS)
    sample = names[::step][:BACKGROUND_SKILLS]
    counts: Counter[str] = Counter()
    read = 0
    for other in sample:
        try:
            counts.update(set(tokenize(catalog.load(other).body)))
        except Exception:
            continue
        read += 1
    return lambda term: counts[term] / read if read else 0.0


def collision_check(
    metas: list[SkillMeta], index: Any, meta: SkillMeta, config: Any
) -> Callable[[str], tuple[str, ...]]:
    """The doctor's routing findings that involve ``meta``'s skill and appear only with the new
    description (collisions and unreachable skills; overlaps do not block).

    The skill is asked with what its description says it is for: a boundary ("Not for applying
    Anthropic's brand colors") names what users of *other* skills type, so asking with it
    would find the very collision the boundary prevents."""
    from aiq_tui.doctor.routing import routing_findings
    from aiq_tui.ranking.exclusions import parse_exclusions

    doctor = config.doctor

    def findings(description: str) -> set[tuple[str, str]]:
        index.upsert(replace(meta, description=description))
        asked = replace(meta, description=parse_exclusions(description).positive)
        try:
            found = routing_findings(
                [asked if m.name == meta.name else m for m in metas],
                index,
                doctor.collision_margin,
                doctor.overlap_share,
            )
        finally:
            index.upsert(meta)
        return {
            (f.kind.value, f.title)
            for f in found
            if meta.name in f.skills and f.level.value in BLOCKING_LEVELS
        }

    before = findings(meta.description)

    def check(description: str) -> tuple[str, ...]:
        return tuple(sorted(title for _kind, title in findings(description) - before))

    return check


def diff_ops(before: str, after: str) -> list[tuple[str, str]]:
    """``before`` → ``after`` word by word: ("=" | "-" | "+", words)."""
    a, b = before.split(), after.split()
    ops: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(
        a=a, b=b, autojunk=False
    ).get_opcodes():
        if op == "equal":
            ops.append(("=", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            ops.append(("-", " ".join(a[i1:i2])))
        if j2 > j1:
            ops.append(("+", " ".join(b[j1:j2])))
    return ops


def word_diff(before: str, after: str) -> str:
    """The word diff as text: ``[-removed-]`` and ``{+added+}`` (git's ``--word-diff`` marks)."""
    marks = {"=": "{}", "-": "[-{}-]", "+": "{{+{}+}}"}
    return " ".join(marks[op].format(words) for op, words in diff_ops(before, after))
