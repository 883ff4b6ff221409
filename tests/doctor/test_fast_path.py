"""The doctor's fast path reports exactly what ranking every skill in full reports.

Routing screens each skill with ``SkillIndex.top_scores`` and explains only the few that can
make a finding; the spec check reuses the catalog's resource listing. These tests hold both to
the straightforward path on a crafted collection (collisions, unreachable skills, hogs) plus
filler skills that share a vocabulary, so the matcher's pruning is exercised too.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from aiq_tui.doctor.model import Kind
from aiq_tui.doctor.routing import own_query, routing_findings
from aiq_tui.doctor.run import inputs_for_workspace, run_doctor
from aiq_tui.doctor.spec import spec_findings
from aiq_tui.locations import Home
from aiq_tui.ranking.match import LIFT_WINDOW, SkillIndex
from aiq_tui.workspace import Workspace
from tests.doctor.test_doctor import skill

WORDS = [
    "chart",
    "invoice",
    "ledger",
    "render",
    "parse",
    "upload",
    "sync",
    "backup",
    "deploy",
    "review",
    "translate",
    "summarise",
    "schedule",
    "archive",
    "encrypt",
    "compress",
    "monitor",
    "notify",
    "export",
    "import",
    "audit",
    "migrate",
]


def crafted(root: Path, filler: int = 120) -> None:
    skill(root, "combine-docs", "Merge PDF files into one document.")
    skill(
        root,
        "pdf-merge",
        "Merge PDF files into one document, fast.",
        triggers='["merge pdf files"]',
    )
    skill(
        root, "sales-charts", "Draw sales charts from quarterly revenue spreadsheets."
    )
    skill(
        root,
        "revenue-plots",
        "Draw sales charts from quarterly revenue spreadsheets and tables.",
    )
    skill(root, "zebra-tool", "Convert Markdown notes to HTML pages.")
    skill(
        root,
        "huge-manual",
        "Explain the huge manual.",
        body="alpha beta gamma delta " * 1500,
    )
    skill(
        root,
        "long-guide",
        "Explain the long guide.",
        body="alpha beta gamma delta " * 300,
    )
    rng = random.Random(17)
    for i in range(filler):
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{i}"
        words = rng.sample(WORDS, 6)
        skill(
            root,
            name,
            f"{' '.join(words)} for the team. Use when the user asks about {words[0]} {words[1]}.",
        )


@pytest.fixture
def collection(tmp_path: Path, isolated_home: Home) -> Path:
    isolated_home.root.mkdir(
        parents=True, exist_ok=True
    )  # a small window: hogs and a too-big skill
    (isolated_home.root / "config.yaml").write_text(
        "context:\n  window: 4000\n  reserve_output: 500\n"
    )
    root = tmp_path / "skills"
    crafted(root)
    return root


@pytest.mark.parametrize(
    "margin, overlap", [(0.1, 0.4), (0.1, 0.1), (0.3, 0.9), (0.0, 0.99)]
)
def test_screened_routing_equals_ranking_every_skill_in_full(
    collection: Path, margin: float, overlap: float
) -> None:
    metas = list(Workspace.open(skills_dirs=(str(collection),)).catalog)
    index = SkillIndex(metas)
    screened = routing_findings(metas, index, margin, overlap)
    reference = routing_findings(metas, index, margin, overlap, screen=False)
    assert screened == reference
    kinds = {f.kind for f in reference}
    assert {
        Kind.COLLISION,
        Kind.UNREACHABLE,
    } <= kinds  # the crafted problems are found at all


def test_top_scores_are_the_scores_rank_returns(collection: Path) -> None:
    metas = list(Workspace.open(skills_dirs=(str(collection),)).catalog)
    index = SkillIndex(metas)
    queries = [own_query(meta) for meta in metas] + [
        "merge pdf files",
        "chart",
        "pdf merge please",
        "",
    ]
    for i, query in enumerate(queries):
        context = (queries[i - 1],) if i % 5 == 0 else ()
        for top_k in (None, 1, 2, 5, LIFT_WINDOW + 3):
            ranking = index.rank(query, context, top_k=top_k)
            scored = index.top_scores(query, context, top_k=top_k)
            assert scored.ranked == tuple((m.name, m.score) for m in ranking.matches)
            assert scored.terms == ranking.terms


def test_pruning_keeps_the_lift_window_exact(collection: Path) -> None:
    """Seen skills that can no longer reach the best ``window`` are dropped: the best ``window``
    and their scores are those of the sum without dropping."""
    metas = list(Workspace.open(skills_dirs=(str(collection),)).catalog)
    index = SkillIndex(metas)
    for meta in metas:
        weights = index.scoring_weights(index.query_weights(own_query(meta)))
        boosts = index._boosts(own_query(meta))
        full = index._scores(weights, boosts, keep=2)
        dropped = index._scores(weights, boosts, keep=2, window=LIFT_WINDOW)
        best = sorted(full.items(), key=lambda kv: (-kv[1], kv[0]))[:LIFT_WINDOW]
        assert (
            sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0]))[:LIFT_WINDOW]
            == best
        )


def test_spec_check_with_the_catalogs_listing_equals_listing_again(
    collection: Path,
) -> None:
    (collection / "huge-manual" / "notes.md").write_text("x" * 10, encoding="utf-8")
    (collection / "long-guide" / "SKILL.md").write_text(
        "---\nname: long-guide\n---\nno description\n"
    )
    workspace = Workspace.open(skills_dirs=(str(collection),))
    inputs = inputs_for_workspace(workspace)
    from aiq_tui.doctor.run import _listed_by

    listed = _listed_by(inputs, list(inputs.catalog))
    assert listed is not None
    assert spec_findings(
        inputs.skill_dirs, inputs.config.skills, listed
    ) == spec_findings(inputs.skill_dirs, inputs.config.skills)


def test_the_whole_report_is_stable_across_runs(collection: Path) -> None:
    first = run_doctor(
        inputs_for_workspace(Workspace.open(skills_dirs=(str(collection),)))
    )
    second = run_doctor(
        inputs_for_workspace(Workspace.open(skills_dirs=(str(collection),)))
    )
    assert first.findings == second.findings and first.costs == second.costs
    assert {Kind.COLLISION, Kind.UNREACHABLE, Kind.BUDGET} <= {
        f.kind for f in first.findings
    }
