"""A skill folder of many tiny files: the walk stops at its bounds (entries, depth), the listing
in the prompt stays within its tokens and names the rest by count, and no loaded skill takes more
than its share of the window. (The issue's folder held 100,000 one-byte files; the bounds are
shown here with small settings and a few hundred files.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aiq_tui.config import DisclosureSettings, SkillsSettings
from aiq_tui.context.prompt import skill_section
from aiq_tui.ranking import disclose
from aiq_tui.ranking.disclose import resources_listing
from aiq_tui.skills.model import Phase, Resource, ResourceKind
from aiq_tui.skills.resources import list_resources
from tests.agent.helpers import demo_engine, write_config, write_skill


def _many_files(folder: Path, count: int, sub: str = "data") -> None:
    (folder / sub).mkdir(parents=True, exist_ok=True)
    for index in range(count):
        (folder / sub / f"f{index:05d}.txt").write_text("x")


@pytest.fixture
def crowded(tmp_path: Path) -> Path:
    folder = tmp_path / "crowded"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: crowded\ndescription: d\n---\nBody.\n")
    _many_files(folder, 400)
    return folder


def test_the_walk_stops_after_max_resource_entries_and_says_so(crowded: Path) -> None:
    settings = SkillsSettings(max_resource_entries=50)
    listing, problems = list_resources(crowded, settings)
    assert 0 < len(listing) <= 50
    assert (
        listing.stopped is not None and "skills.max_resource_entries" in listing.stopped
    )
    assert any("not all listed" in problem.message for problem in problems)
    whole, whole_problems = list_resources(crowded, SkillsSettings())
    assert len(whole) == 400 and whole.stopped is None and whole_problems == ()


def test_the_walk_examines_no_more_entries_than_its_bound(
    crowded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stop walking, not walk then cut: the entries taken from the directory iterators stay
    within the bound however many files the folder holds."""
    for extra in range(5):
        _many_files(crowded, 200, f"more{extra}")
    taken = [0]
    real_scandir = os.scandir

    class Counting:
        def __init__(self, path: str) -> None:
            self._inner = real_scandir(path)

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self._inner.close()

        def __iter__(self) -> Counting:
            return self

        def __next__(self) -> os.DirEntry[str]:
            entry = next(self._inner)
            taken[0] += 1
            return entry

    monkeypatch.setattr(os, "scandir", Counting)
    list_resources(crowded, SkillsSettings(max_resource_entries=60))
    assert (
        taken[0] <= 60 + 6
    )  # each directory may read one entry past the bound to stop


def test_folders_deeper_than_max_resource_depth_are_not_walked(tmp_path: Path) -> None:
    folder = tmp_path / "deep"
    deep = folder / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: deep\ndescription: d\n---\n")
    (folder / "a" / "top.md").write_text("t")
    (deep / "bottom.md").write_text("b")
    listing, _ = list_resources(folder, SkillsSettings(max_resource_depth=2))
    assert [r.relpath for r in listing] == ["a/top.md"]
    assert (
        listing.stopped is not None and "skills.max_resource_depth" in listing.stopped
    )
    assert [r.relpath for r in list_resources(folder, SkillsSettings())[0]] == [
        "a/b/c/d/bottom.md",
        "a/top.md",
    ]


def test_the_listing_keeps_to_its_tokens_and_names_the_rest_by_count() -> None:
    resources = [
        Resource(f"data/f{index:05d}.txt", ResourceKind.REFERENCE, 1)
        for index in range(5_000)
    ]
    text = resources_listing(resources, max_tokens=200)
    assert disclose.estimate_tokens(text) < 300
    shown = [line for line in text.splitlines() if line.startswith("- data/")]
    assert 0 < len(shown) < 5_000
    assert f"and {5_000 - len(shown):,} more not listed" in text


def test_a_stopped_walk_is_said_in_the_skills_full_text(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, "skills:\n  max_resource_entries: 20\n")
    path = write_skill(home / "skills", "crowded", "Crowded files", "Body.\n")
    _many_files(path.parent, 100)
    engine, _ = demo_engine(home)
    text = engine.skills.texts.text_for("crowded", Phase.FULL)
    assert "possibly more" in text and "skills.max_resource_entries" in text


def test_the_listing_bound_has_one_home() -> None:
    assert (
        DisclosureSettings().resource_listing_tokens == disclose.LISTING_TOKENS
    )  # the fallback of callers without settings is the config default


async def test_a_skill_of_many_files_loaded_in_full_takes_at_most_its_share_of_the_window(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    write_config(
        home,
        "context:\n  window: 8192\n  skill_share: 0.25\n"
        "disclosure:\n  resource_listing_tokens: 100000\n",
    )
    path = write_skill(
        home / "skills",
        "pytest-files",
        "How to test python code files",
        "Use pytest.\n",
    )
    _many_files(path.parent, 1_500)
    engine, _ = demo_engine(home)
    assert await engine.activate("pytest-files")
    loaded = {skill.name: skill for skill in engine.skills.loaded()}["pytest-files"]
    tokens = engine.counter.count(skill_section(loaded))
    assert tokens <= int(8192 * 0.25)
    assert "context.skill_share" in loaded.content
    assert engine.breakdown.skills["pytest-files"] == tokens
    assert engine.breakdown.total <= engine.window
