"""Trigger evals in the ecosystem's format: does a skill load when it should, and only then?

The input is skill-creator's trigger eval set (its "Description Optimization" step): a JSON
list of ``{"query": "...", "should_trigger": true|false}``, about half of them near-misses
that should *not* trigger. The skill is named by the caller (``--skill NAME``), by a
``"skill"`` key per item, or by where the file lives (``<skill>/evals/trigger_eval.json``,
the layout skill-creator uses).

Each query is ranked as the first message of a conversation and the skill's fate is read
from :func:`~aiq_tui.ranking.disclose.assign_states` — the function the engine loads skills
with — so "loaded" means exactly what a turn would do: the skill is in the top-k with at
least brief confidence (recall), or at full (recall at full). A should-not query for which
it loads is a false trigger. Per skill and overall (summed over skills):

    recall = loaded should-trigger / should-trigger     false rate = false triggers / should-not
    precision = loaded should-trigger / every load      F1 = 2·P·R / (P + R)

As in skill-creator's loop, precision is 1 when nothing loaded and recall is 1 when nothing
should trigger, so a set without negatives (or positives) still has an F1.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from aiq_tui.ranking.disclose import Thresholds, assign_states
from aiq_tui.ranking.evaluate import EvalFileError, read_eval_file
from aiq_tui.skills.model import Match, Phase, Ranking

EVAL_FOLDER = "evals"
EVAL_FILE = "trigger_eval.json"  # beside the skill: <skill>/evals/trigger_eval.json
SHOWN_AHEAD = 3  # skills named as ranked above a failing one


class TriggerItem(msgspec.Struct, forbid_unknown_fields=False):
    """One item of skill-creator's trigger eval set (other keys are kept on disk, ignored here)."""

    query: str
    should_trigger: bool
    skill: str | None = None


@dataclass(frozen=True)
class TriggerCase:
    query: str
    should_trigger: bool
    skill: str
    where: str = ""  # "file[3]" (JSON item) — how a report points back at the case


@dataclass(frozen=True)
class TriggerVerdict:
    """What the matcher does with one case's skill for its query."""

    case: TriggerCase
    phase: Phase  # METADATA: not loaded
    rank: int | None  # 1-based rank of the skill, None when it scored 0
    match: Match | None
    ahead: tuple[str, ...] = ()  # skills ranked above it
    reasons: tuple[str, ...] = ()  # the matcher's explanation (failures only)

    @property
    def loaded(self) -> bool:
        return self.phase is not Phase.METADATA

    @property
    def passed(self) -> bool:
        return self.loaded == self.case.should_trigger


@dataclass(frozen=True)
class TriggerFigures:
    """Counts for one skill (or, with ``skill == ""``, summed over every skill)."""

    skill: str
    should: int = 0
    should_not: int = 0
    loaded: int = (
        0  # should-trigger queries it loads for, brief or full (true positives)
    )
    loaded_full: int = 0  # … of which at full
    false_triggers: int = 0  # should-not queries it loads for

    @property
    def queries(self) -> int:
        return self.should + self.should_not

    @property
    def passed(self) -> int:
        return self.loaded + self.should_not - self.false_triggers

    @property
    def recall(self) -> float:
        return self.loaded / self.should if self.should else 1.0

    @property
    def recall_full(self) -> float:
        return self.loaded_full / self.should if self.should else 1.0

    @property
    def false_rate(self) -> float:
        return self.false_triggers / self.should_not if self.should_not else 0.0

    @property
    def precision(self) -> float:
        fired = self.loaded + self.false_triggers
        return self.loaded / fired if fired else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: TriggerFigures) -> TriggerFigures:
        return TriggerFigures(
            "",
            self.should + other.should,
            self.should_not + other.should_not,
            self.loaded + other.loaded,
            self.loaded_full + other.loaded_full,
            self.false_triggers + other.false_triggers,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "skill": self.skill or None,
            "queries": self.queries,
            "should_trigger": self.should,
            "should_not_trigger": self.should_not,
            "passed": self.passed,
            "recall": round(self.recall, 4),
            "recall_full": round(self.recall_full, 4),
            "false_triggers": self.false_triggers,
            "false_rate": round(self.false_rate, 4),
            "precision": round(self.precision, 4),
            "f1": round(self.f1, 4),
        }


@dataclass(frozen=True)
class TriggerReport:
    verdicts: tuple[TriggerVerdict, ...]
    skills: tuple[TriggerFigures, ...]  # one per skill, by name
    overall: TriggerFigures
    unknown: tuple[str, ...] = ()  # skills the eval names that no indexed skill has

    @property
    def failures(self) -> tuple[TriggerVerdict, ...]:
        return tuple(verdict for verdict in self.verdicts if not verdict.passed)

    def figures_of(self, skill: str) -> TriggerFigures:
        return next(
            (figures for figures in self.skills if figures.skill == skill),
            TriggerFigures(skill),
        )


# -- reading --------------------------------------------------------------------------------------


def is_trigger_file(path: Path, text: str) -> bool:
    """JSON (skill-creator's trigger set) rather than a TSV of ``query<TAB>skill``."""
    return Path(path).suffix.lower() == ".json" or text.lstrip("\ufeff \t\r\n")[:1] in (
        "[",
        "{",
    )


def skill_of_eval_file(path: Path) -> Path | None:
    """The skill folder an eval file sits in by skill-creator's layout (``<skill>/evals/…``)."""
    folder = Path(path).resolve().parent
    if folder.name == EVAL_FOLDER and (folder.parent / "SKILL.md").is_file():
        return folder.parent
    return None


def parse_trigger_items(data: bytes | str, where: str) -> list[TriggerItem]:
    """The items of a trigger eval set; :class:`EvalFileError` names the item and field."""
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise EvalFileError(f"{where}: not valid JSON ({exc})") from None
    except RecursionError:
        raise EvalFileError(
            f"{where}: nested too deeply to be a trigger eval set"
        ) from None
    if isinstance(raw, dict) and "evals" in raw:
        raise EvalFileError(
            f"{where}: this is skill-creator's evals.json (output evals with prompts and expectations); "
            'a trigger eval set is a JSON list of {"query": "...", "should_trigger": true|false}'
        )
    if not isinstance(raw, list):
        raise EvalFileError(
            f'{where}: expected a JSON list of {{"query": "...", "should_trigger": true|false}}'
        )
    try:
        items = msgspec.convert(raw, type=list[TriggerItem])
    except msgspec.ValidationError as exc:
        # msgspec names the place as ``$[3].should_trigger``: the item and the field.
        raise EvalFileError(
            f'{where}: {exc} (each item: {{"query": text, "should_trigger": true or false}})'
        ) from None
    for number, item in enumerate(items):
        if not item.query.strip():
            raise EvalFileError(f"{where}: item {number} has an empty query")
    return items


def read_trigger_cases(
    path: Path, skill: str | None = None, folder_skill: str | None = None
) -> list[TriggerCase]:
    """The cases of one trigger eval file.

    Each item's skill is its own ``skill`` key, else ``skill`` (``--skill NAME``), else
    ``folder_skill`` (the skill the file sits beside); with none, :class:`EvalFileError`.
    """
    items = parse_trigger_items(read_eval_file(Path(path)), str(path))
    if not items:
        raise EvalFileError(
            f'{path}: no queries (a JSON list of {{"query": "...", "should_trigger": true|false}})'
        )
    cases = []
    for number, item in enumerate(items):
        name = item.skill or skill or folder_skill
        if not name:
            raise EvalFileError(
                f'{path}[{number}]: which skill should it trigger? Give --skill NAME, add "skill": "NAME" '
                f"to the items, or keep the file as <skill folder>/{EVAL_FOLDER}/{EVAL_FILE}"
            )
        cases.append(
            TriggerCase(
                item.query.strip(),
                item.should_trigger,
                name,
                f"{Path(path).name}[{number}]",
            )
        )
    return cases


def add_trigger_query(path: Path, query: str, should_trigger: bool) -> str:
    """Add ``query`` to the eval file at ``path`` (created with its folder when missing), the
    way skill-creator stores it; items and keys already there are kept. Returns what was done:
    ``"added"``, ``"relabelled"`` (the query was there with the other label) or ``"kept"``.
    Raises :class:`EvalFileError` (and writes nothing) when the file is not a trigger set."""
    from aiq_tui.file_io import atomic_write

    query = query.strip()
    if not query:
        raise EvalFileError(f"{path}: an empty message cannot be a query")
    path = Path(path)
    items: list[Any] = []
    if path.exists():
        data = read_eval_file(path)
        parse_trigger_items(
            data, str(path)
        )  # refuse to rewrite a file that is not a trigger set
        items = json.loads(data)
    outcome = "added"
    for item in items:
        if item.get("query", "").strip() == query:
            if item.get("should_trigger") is should_trigger:
                return "kept"
            item["should_trigger"] = should_trigger
            outcome = "relabelled"
            break
    else:
        items.append({"query": query, "should_trigger": should_trigger})
    atomic_write(path, json.dumps(items, indent=2, ensure_ascii=False) + "\n")
    return outcome


# -- scoring --------------------------------------------------------------------------------------


def phase_for_skill(
    ranking: Ranking, name: str, top_k: int, thresholds: Thresholds
) -> Phase:
    """The phase a first turn with this ranking loads ``name`` at (METADATA: not loaded)."""
    for transition in assign_states(ranking, top_k, thresholds):
        if transition.name == name:
            return transition.phase
    return Phase.METADATA


def evaluate_triggers(
    rank: Callable[[str], Ranking],
    cases: Sequence[TriggerCase],
    *,
    top_k: int,
    thresholds: Thresholds,
    explain: Callable[[str, str], Sequence[str]] | None = None,
    known: Callable[[str], bool] = lambda name: True,
) -> TriggerReport:
    """Rank each distinct query once with ``rank`` (every skill, as the engine ranks) and judge
    every case; ``explain(query, skill)`` gives the reasons shown with each failure."""
    rankings: dict[str, Ranking] = {}
    verdicts = []
    for case in cases:
        ranking = rankings.get(case.query)
        if ranking is None:
            ranking = rankings[case.query] = rank(case.query)
        verdict = judge(case, ranking, top_k, thresholds)
        if not verdict.passed and explain is not None:
            verdict = TriggerVerdict(
                verdict.case,
                verdict.phase,
                verdict.rank,
                verdict.match,
                verdict.ahead,
                tuple(explain(case.query, case.skill)),
            )
        verdicts.append(verdict)
    return summarise(verdicts, known)


def judge(
    case: TriggerCase, ranking: Ranking, top_k: int, thresholds: Thresholds
) -> TriggerVerdict:
    names = [match.name for match in ranking.matches]
    rank = names.index(case.skill) + 1 if case.skill in names else None
    ahead = tuple(names[: (rank - 1) if rank else len(names)][:SHOWN_AHEAD])
    return TriggerVerdict(
        case,
        phase_for_skill(ranking, case.skill, top_k, thresholds),
        rank,
        ranking.matches[rank - 1] if rank else None,
        ahead,
    )


def summarise(
    verdicts: Iterable[TriggerVerdict], known: Callable[[str], bool] = lambda name: True
) -> TriggerReport:
    verdicts = tuple(verdicts)
    counts: dict[str, dict[str, int]] = {}
    for verdict in verdicts:
        c = counts.setdefault(
            verdict.case.skill,
            dict.fromkeys(("should", "not", "loaded", "full", "false"), 0),
        )
        if verdict.case.should_trigger:
            c["should"] += 1
            c["loaded"] += verdict.loaded
            c["full"] += verdict.phase is Phase.FULL
        else:
            c["not"] += 1
            c["false"] += verdict.loaded
    skills = tuple(
        TriggerFigures(name, c["should"], c["not"], c["loaded"], c["full"], c["false"])
        for name, c in sorted(counts.items())
    )
    overall = sum(skills, TriggerFigures(""))
    return TriggerReport(
        verdicts,
        skills,
        overall,
        tuple(name for name in sorted(counts) if not known(name)),
    )


# -- the train / test split -----------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    train: tuple[TriggerCase, ...]
    test: tuple[TriggerCase, ...] = field(default_factory=tuple)


def split_cases(cases: Sequence[TriggerCase], holdout: float, seed: int) -> Split:
    """skill-creator's split: stratified by ``should_trigger``, each class shuffled with the
    seeded generator and ``holdout`` of it (at least one, never all) held out for the test."""
    import random

    generator = random.Random(seed)
    should = [case for case in cases if case.should_trigger]
    should_not = [case for case in cases if not case.should_trigger]
    generator.shuffle(should)
    generator.shuffle(should_not)

    def held(group: list[TriggerCase]) -> int:
        if holdout <= 0 or len(group) <= 1:
            return 0
        return min(len(group) - 1, max(1, int(len(group) * holdout)))

    a, b = held(should), held(should_not)
    return Split(
        train=tuple(should[a:] + should_not[b:]),
        test=tuple(should[:a] + should_not[:b]),
    )


__all__ = [
    "EVAL_FILE",
    "EVAL_FOLDER",
    "Split",
    "TriggerCase",
    "TriggerFigures",
    "TriggerItem",
    "TriggerReport",
    "TriggerVerdict",
    "add_trigger_query",
    "evaluate_triggers",
    "is_trigger_file",
    "judge",
    "parse_trigger_items",
    "phase_for_skill",
    "read_trigger_cases",
    "skill_of_eval_file",
    "split_cases",
    "summarise",
]
