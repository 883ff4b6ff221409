"""Evaluate a matcher on labelled queries: hit@1, hit@3, MRR@10, latency and each miss.

The input is a TSV of ``query<TAB>expected skill name`` (blank lines and ``#`` lines are
comments; a first row of column names such as ``query<TAB>skill`` is a header, not a query). ``aiq-tui match --eval FILE`` runs it against the discovered skills and
``make bench`` runs the same :func:`evaluate` on MetaTool, so the two report the same
figures the same way.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from aiq_tui.skills.model import Ranking

MRR_DEPTH = 10  # MRR@10: a rank beyond 10 counts 0


class EvalFileError(ValueError):
    """The labelled-queries file cannot be read; the message names the file and line."""


def read_eval_file(path: Path, max_bytes: int | None = None) -> bytes:
    """The bytes of an eval file (a TSV or a trigger set), read as a SKILL.md is: a regular
    file only, opened without blocking, at most ``max_bytes`` (default ``evals.max_file_bytes``).
    An eval set comes with a cloned skill: a FIFO or a link to ``/dev/zero`` is refused, never
    waited on or read into memory. Raises :class:`EvalFileError`."""
    from aiq_tui.config import EvalSettings
    from aiq_tui.file_io import read_regular

    try:
        return read_regular(path, max_bytes or EvalSettings().max_file_bytes)
    except OSError as exc:
        raise EvalFileError(f"{path}: cannot read ({exc.strerror or exc})") from None


@dataclass(frozen=True)
class Case:
    query: str
    expected: str
    line: int = 0


@dataclass(frozen=True)
class Miss:
    """A query whose expected skill was not in the top K."""

    query: str
    expected: str
    rank: (
        int | None
    )  # 1-based rank of the expected skill, None when it did not match at all
    beaten_by: tuple[str, ...]  # the skills ranked above it (at most K)
    line: int = 0


@dataclass(frozen=True)
class Report:
    cases: int
    top: int
    hit1: float
    hit3: float
    hit_top: float  # hit@K for the --top K asked (same as hit3 when K = 3)
    mrr: float  # MRR@10
    latency_ms_mean: float
    latency_ms_p50: float
    latency_ms_p95: float
    misses: tuple[Miss, ...]
    unknown: tuple[str, ...]  # expected names no indexed skill has (typos in the file)

    def figures(self) -> dict[str, float | int]:
        return {
            "queries": self.cases,
            "hit@1": self.hit1,
            "hit@3": self.hit3,
            f"hit@{self.top}": self.hit_top,
            "mrr@10": self.mrr,
            "latency_ms_mean": self.latency_ms_mean,
            "latency_ms_p50": self.latency_ms_p50,
            "latency_ms_p95": self.latency_ms_p95,
        }


def read_cases(path: Path) -> list[Case]:
    """Parse a TSV of labelled queries; a malformed line raises :class:`EvalFileError`."""
    try:
        text = read_eval_file(Path(path)).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EvalFileError(f"{path}: cannot read ({exc})") from None
    cases = []
    first = True
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = raw.rstrip("\r\n").split("\t")
        if first and is_header(parts):
            first = False
            continue
        first = False
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise EvalFileError(
                f"{path}:{number}: expected 'query<TAB>skill name', got {raw[:60]!r} "
                "(separate the two columns with one tab)"
            )
        cases.append(Case(parts[0].strip(), parts[1].strip(), number))
    if not cases:
        raise EvalFileError(
            f"{path}: no labelled queries (lines of 'query<TAB>skill name')"
        )
    return cases


# Column names a TSV's first row may carry (``query<TAB>skill``, ``prompt<TAB>expected``, …).
QUERY_COLUMNS = frozenset(
    {"query", "queries", "prompt", "question", "request", "input", "text", "utterance"}
)
SKILL_COLUMNS = frozenset(
    {
        "skill",
        "skills",
        "expected",
        "expected_skill",
        "expected skill",
        "skill_name",
        "name",
        "tool",
        "label",
        "target",
    }
)


def is_header(parts: Sequence[str]) -> bool:
    """Whether a TSV row names the columns (``query<TAB>skill``) rather than being a case."""
    if len(parts) != 2:
        return False
    first, second = (part.strip().lower().lstrip("#").strip() for part in parts)
    return first in QUERY_COLUMNS and second in SKILL_COLUMNS


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def score_ranks(
    ranks: Iterable[int | None], top: int = 3
) -> tuple[float, float, float, float]:
    """(hit@1, hit@3, hit@top, MRR@10) from 1-based ranks (None = not ranked)."""
    ranks = list(ranks)
    total = max(len(ranks), 1)
    hit1 = sum(1 for r in ranks if r is not None and r <= 1) / total
    hit3 = sum(1 for r in ranks if r is not None and r <= 3) / total
    hit_top = sum(1 for r in ranks if r is not None and r <= top) / total
    mrr = sum(1 / r for r in ranks if r is not None and r <= MRR_DEPTH) / total
    return round(hit1, 4), round(hit3, 4), round(hit_top, 4), round(mrr, 4)


def evaluate(
    rank: Callable[[str], Ranking],
    cases: Sequence[Case],
    *,
    top: int = 3,
    known: Callable[[str], bool] = lambda name: True,
) -> Report:
    """Rank every case's query with ``rank`` (the same function the app ranks with)."""
    ranks: list[int | None] = []
    latencies: list[float] = []
    misses: list[Miss] = []
    for case in cases:
        started = time.perf_counter()
        ranking = rank(case.query)
        latencies.append((time.perf_counter() - started) * 1000)
        names = [match.name for match in ranking.matches]
        position = names.index(case.expected) + 1 if case.expected in names else None
        ranks.append(position)
        if position is None or position > top:
            misses.append(
                Miss(case.query, case.expected, position, tuple(names[:top]), case.line)
            )
    hit1, hit3, hit_top, mrr = score_ranks(ranks, top)
    return Report(
        cases=len(cases),
        top=top,
        hit1=hit1,
        hit3=hit3,
        hit_top=hit_top,
        mrr=mrr,
        latency_ms_mean=round(statistics.fmean(latencies), 3) if latencies else 0.0,
        latency_ms_p50=round(_percentile(latencies, 0.5), 3),
        latency_ms_p95=round(_percentile(latencies, 0.95), 3),
        misses=tuple(misses),
        unknown=tuple(
            sorted({case.expected for case in cases if not known(case.expected)})
        ),
    )


__all__ = [
    "MRR_DEPTH",
    "Case",
    "EvalFileError",
    "Miss",
    "Report",
    "evaluate",
    "is_header",
    "read_cases",
    "score_ranks",
]
