"""The catalog cache: a start parses only what changed, and the cache can never make the
catalog wrong — deleted skills vanish, changed ones show their new text, a corrupt or
half-written cache is ignored and rebuilt, concurrent writers leave a complete file."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from aiq_tui.config import SkillsSettings
from aiq_tui.skills.catalog import SkillCatalog
from aiq_tui.skills.catalog_cache import FORMAT, CatalogCache
from aiq_tui.skills.discover import SkillDir, scan
from aiq_tui.workspace import Workspace

AN_HOUR_AGO = time.time() - 3600


def write_skill(
    root: Path,
    name: str,
    description: str = "Does a thing.",
    *,
    extra: str = "",
    age: bool = True,
) -> Path:
    """A valid skill; dated an hour ago (like an existing catalog) unless ``age`` is False."""
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\n",
        encoding="utf-8",
    )
    if age:
        os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))
    return path


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for index in range(5):
        write_skill(root, f"skill-{index}", f"Skill number {index}.")
    return root


@pytest.fixture
def cache(tmp_path: Path) -> CatalogCache:
    return CatalogCache(tmp_path / "data" / "catalog-cache.json")


def dirs(*roots: Path) -> list[SkillDir]:
    return [SkillDir(root, "flag") for root in roots]


def descriptions(catalog: SkillCatalog) -> dict[str, str]:
    return {meta.name: meta.description for meta in catalog}


def test_a_second_scan_parses_nothing_and_finds_exactly_what_a_plain_scan_finds(
    skills: Path, cache: CatalogCache
) -> None:
    settings = SkillsSettings()
    first = cache.scan(dirs(skills), settings)
    assert (cache.last.loaded, cache.last.parsed, cache.last.written) == (
        False,
        5,
        True,
    )
    second = cache.scan(dirs(skills), settings)
    assert (
        cache.last.loaded,
        cache.last.hits,
        cache.last.parsed,
        cache.last.written,
    ) == (True, 5, 0, False)
    plain = scan(dirs(skills), settings)
    assert second.metas == first.metas == plain.metas


def test_a_deleted_skill_is_never_shown(skills: Path, cache: CatalogCache) -> None:
    SkillCatalog(dirs(skills), cache=cache)
    (skills / "skill-2" / "SKILL.md").unlink()
    (skills / "skill-2").rmdir()
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert "skill-2" not in catalog
    assert len(catalog) == 4
    assert not any(
        "skill-2" in path for path in json.loads(cache.path.read_text())["skills"]
    )


def test_a_changed_skill_shows_its_new_text(skills: Path, cache: CatalogCache) -> None:
    SkillCatalog(dirs(skills), cache=cache)
    write_skill(skills, "skill-1", "Rewritten description.")
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert descriptions(catalog)["skill-1"] == "Rewritten description."
    assert cache.last.parsed == 1


def test_a_same_size_edit_with_the_old_mtime_put_back_is_still_seen(
    skills: Path, cache: CatalogCache
) -> None:
    SkillCatalog(dirs(skills), cache=cache)
    path = skills / "skill-3" / "SKILL.md"
    before = path.stat()
    path.write_text(
        path.read_text().replace("Skill number 3.", "Skill NUMBER 3."), encoding="utf-8"
    )
    os.utime(
        path, ns=(before.st_atime_ns, before.st_mtime_ns)
    )  # size and mtime as cached; ctime is not
    assert (
        path.stat().st_size == before.st_size
        and path.stat().st_mtime_ns == before.st_mtime_ns
    )
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert descriptions(catalog)["skill-3"] == "Skill NUMBER 3."


def test_a_new_skill_appears(skills: Path, cache: CatalogCache) -> None:
    SkillCatalog(dirs(skills), cache=cache)
    write_skill(skills, "brand-new", "Just added.")
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert descriptions(catalog)["brand-new"] == "Just added."
    assert (cache.last.hits, cache.last.parsed) == (5, 1)


def written_settings(cache: CatalogCache) -> str:
    """The settings fingerprint the cache file was written with (whatever its spelling)."""
    return json.loads(cache.path.read_text(encoding="utf-8"))["settings"]


@pytest.mark.parametrize(
    "damage",
    [
        b"not json at all",
        b'{"format": %d, "settings": SETTINGS, "skills": {"x": [1, 2]}}'
        % FORMAT,  # right header, bad rows
        b'{"format": %d, "settings": SETTINGS, "skills": ['
        % FORMAT,  # a write cut short
        b"",
        b'["a", "list"]',
    ],
)
def test_a_corrupt_or_half_written_cache_is_ignored_and_rebuilt(
    skills: Path, cache: CatalogCache, damage: bytes
) -> None:
    SkillCatalog(dirs(skills), cache=cache)
    cache.path.write_bytes(
        damage.replace(b"SETTINGS", json.dumps(written_settings(cache)).encode())
    )
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert len(catalog) == 5
    assert (cache.last.loaded, cache.last.parsed, cache.last.written) == (
        False,
        5,
        True,
    )
    SkillCatalog(dirs(skills), cache=cache)
    assert (cache.last.loaded, cache.last.hits) == (True, 5)


def test_a_cache_with_wrong_types_cannot_inject_a_skill(
    skills: Path, cache: CatalogCache
) -> None:
    SkillCatalog(dirs(skills), cache=cache)
    data = json.loads(cache.path.read_text())
    path = next(iter(data["skills"]))
    data["skills"][path][4] = ["not", "a", "name"]
    cache.path.write_text(json.dumps(data))
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert sorted(catalog.names()) == [f"skill-{i}" for i in range(5)]
    assert cache.last.loaded is False


def test_concurrent_writers_leave_one_complete_cache_and_no_temp_files(
    skills: Path, cache: CatalogCache
) -> None:
    for index in range(5, 60):
        write_skill(skills, f"skill-{index}")
    start = threading.Barrier(6)
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            start.wait()
            for _ in range(3):
                cache.path.unlink(missing_ok=True)
                CatalogCache(cache.path).scan(dirs(skills), SkillsSettings())
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    CatalogCache(cache.path).scan(
        dirs(skills), SkillsSettings()
    )  # rebuilds if the last unlink won
    final = CatalogCache(cache.path)
    result = final.scan(dirs(skills), SkillsSettings())
    assert (final.last.loaded, final.last.hits, len(result.metas)) == (True, 60, 60)
    assert [p.name for p in cache.path.parent.iterdir()] == [cache.path.name]


def test_a_failed_write_keeps_the_previous_cache(
    skills: Path, cache: CatalogCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    SkillCatalog(dirs(skills), cache=cache)
    before = cache.path.read_bytes()
    write_skill(skills, "skill-9")

    def refuse(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert "skill-9" in catalog and cache.last.written is False
    assert cache.path.read_bytes() == before
    assert [p.name for p in cache.path.parent.iterdir()] == [cache.path.name]


def test_a_killed_writers_temp_file_is_swept_but_a_live_one_is_not(
    skills: Path, cache: CatalogCache
) -> None:
    cache.path.parent.mkdir(parents=True)
    old = cache.path.parent / f".{cache.path.name}.dead.tmp"
    live = cache.path.parent / f".{cache.path.name}.live.tmp"
    for leftover in (old, live):
        leftover.write_text("{half a cache")
    os.utime(old, (AN_HOUR_AGO - 60, AN_HOUR_AGO - 60))
    SkillCatalog(dirs(skills), cache=cache)
    assert not old.exists() and live.exists()


def test_files_written_just_now_are_parsed_again_not_trusted(
    tmp_path: Path, cache: CatalogCache
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "old-one")
    write_skill(
        root, "fresh-one", age=False
    )  # could still change within the same timestamp tick
    SkillCatalog(dirs(root), cache=cache)
    SkillCatalog(dirs(root), cache=cache)
    assert (cache.last.hits, cache.last.parsed) == (1, 1)


def test_warnings_are_reported_on_every_start(
    skills: Path, cache: CatalogCache
) -> None:
    bad = skills / "broken" / "SKILL.md"
    bad.parent.mkdir()
    bad.write_text("---\nname: broken\n---\nno description\n", encoding="utf-8")
    first = SkillCatalog(dirs(skills), cache=cache)
    second = SkillCatalog(dirs(skills), cache=cache)
    assert first.problems and second.problems == first.problems
    assert "broken" not in second


def test_name_clashes_and_include_exclude_match_a_plain_scan(
    tmp_path: Path, cache: CatalogCache
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for root in (first, second):
        write_skill(root, "shared", f"From {root.name}.")
    write_skill(second, "only-here")
    write_skill(second, "left-out")
    settings = SkillsSettings(exclude=["left-out"])
    cache.scan(dirs(first, second), settings)
    cached = cache.scan(dirs(first, second), settings)
    assert cache.last.hits == 4
    plain = scan(dirs(first, second), settings)
    assert cached.metas == plain.metas
    assert cached.problems == plain.problems
    assert cached.metas["shared"].description == "From first."
    assert "left-out" not in cached.metas


def test_a_setting_that_shapes_parsing_changed_between_two_starts_rebuilds_the_cache(
    skills: Path, cache: CatalogCache
) -> None:
    big = write_skill(skills, "big-one", "Large.", extra=f"notes: {'x' * 2000}\n")
    first = cache.scan(dirs(skills), SkillsSettings())
    assert "big-one" in first.metas and cache.last.written
    smaller = SkillsSettings(
        max_skill_md_bytes=big.stat().st_size - 1
    )  # the user lowered the limit
    second = cache.scan(dirs(skills), smaller)
    assert (cache.last.loaded, cache.last.hits) == (
        False,
        0,
    )  # nothing taken from the old cache
    assert "big-one" not in second.metas
    assert any(
        "big-one" in str(problem.path) and "limit" in problem.message
        for problem in second.problems
    )
    plain = scan(dirs(skills), smaller)
    assert second.metas == plain.metas and second.problems == plain.problems
    cache.scan(
        dirs(skills), smaller
    )  # the rebuilt cache serves the next start under the new limit
    assert (cache.last.loaded, cache.last.hits) == (True, 5)


def test_a_skill_md_deleted_from_a_folder_that_stays_hides_none_of_the_skills_after_it(
    skills: Path, cache: CatalogCache
) -> None:
    # The skills directory itself is unchanged (its listing comes from the cache), so the
    # cached row of skill-1 meets a missing file: it is dropped, and the walk goes on.
    cache.scan(dirs(skills), SkillsSettings())
    (skills / "skill-1" / "SKILL.md").unlink()
    result = cache.scan(dirs(skills), SkillsSettings())
    assert sorted(result.metas) == ["skill-0", "skill-2", "skill-3", "skill-4"]
    assert result.metas == scan(dirs(skills), SkillsSettings()).metas


def test_a_setting_applied_after_parsing_keeps_the_cache(
    skills: Path, cache: CatalogCache
) -> None:
    cache.scan(dirs(skills), SkillsSettings())
    settings = SkillsSettings(
        exclude=["skill-1"]
    )  # include/exclude apply to what the parse gave
    result = cache.scan(dirs(skills), settings)
    assert cache.last.loaded and cache.last.parsed == 0
    assert (
        result.metas == scan(dirs(skills), settings).metas
        and "skill-1" not in result.metas
    )


def test_yaml_values_arrive_json_safe_so_the_cache_returns_exactly_what_a_parse_does(
    tmp_path: Path, cache: CatalogCache
) -> None:
    # The parser makes every value JSON-safe (a YAML date becomes its ISO text), so a cached
    # skill is the same as a freshly parsed one and need not be parsed again.
    root = tmp_path / "skills"
    write_skill(root, "dated", extra="created: 2024-05-01\n")
    first = cache.scan(dirs(root), SkillsSettings())
    second = cache.scan(dirs(root), SkillsSettings())
    assert first.metas["dated"].extras["created"] == "2024-05-01"
    assert second.metas["dated"].extras == first.metas["dated"].extras
    assert cache.last.hits == 1 and cache.last.parsed == 0


def test_the_workspace_keeps_its_cache_in_the_config_home(isolated_home) -> None:
    mine = write_skill(isolated_home.skills_dir, "my-skill", "Mine.")
    workspace = Workspace.open()
    assert str(mine) in json.loads(isolated_home.catalog_cache.read_text())["skills"]
    mine.write_text(mine.read_text().replace("Mine.", "Still mine."), encoding="utf-8")
    again = Workspace.open()
    assert again.catalog.names() == workspace.catalog.names()
    assert again.catalog.get("my-skill").description == "Still mine."


def test_live_reload_through_the_cache_reports_what_changed(
    skills: Path, cache: CatalogCache
) -> None:
    catalog = SkillCatalog(dirs(skills), cache=cache)
    write_skill(skills, "skill-0", "Changed on disk.")
    write_skill(skills, "added-later")
    diff = catalog.rescan()
    assert diff.added == ("added-later",)
    assert diff.changed == ("skill-0",)
    assert descriptions(catalog)["skill-0"] == "Changed on disk."


DANGEROUS = "type: script\n"
DANGEROUS_BODY = "```sh\necho cleaning\nrm -rf /\n```\n"


def write_script_skill(root: Path, name: str, body: str) -> Path:
    path = write_skill(root, name, "Cleans up.", extra=DANGEROUS)
    path.write_text(path.read_text(encoding="utf-8") + body, encoding="utf-8")
    os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))
    return path


def test_a_dangerous_body_script_is_blocked_on_every_start_and_never_cached(
    skills: Path, cache: CatalogCache
) -> None:
    write_script_skill(skills, "wipe", DANGEROUS_BODY)
    for start in range(2):
        catalog = SkillCatalog(dirs(skills), cache=cache)
        assert "wipe" not in catalog and "wipe" not in {
            meta.name for meta in catalog.listing()
        }
        assert [p.field for p in catalog.problems] == ["script"], start
        assert "dangerous pattern" in catalog.problems[0].message
    assert cache.last.parsed == 1  # read again, not trusted from the cache


def test_a_safe_body_script_is_cached_like_any_skill(
    skills: Path, cache: CatalogCache
) -> None:
    write_script_skill(skills, "tidy", "```sh\necho tidy\n```\n")
    SkillCatalog(dirs(skills), cache=cache)
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert "tidy" in catalog and not catalog.problems
    assert (cache.last.hits, cache.last.parsed) == (6, 0)


def test_a_cache_written_before_the_danger_check_moved_into_the_parse_is_not_trusted(
    skills: Path, cache: CatalogCache
) -> None:
    # A format-1 cache held script skills that had never been checked: with a matching stat
    # its row would let a dangerous one in without a look at its body.
    cache.scan(
        dirs(skills), SkillsSettings()
    )  # only for the fingerprint of these settings
    path = write_script_skill(skills, "wipe", DANGEROUS_BODY)
    info = path.stat()
    cache.path.write_text(
        json.dumps(
            {
                "format": FORMAT - 1,
                "settings": written_settings(cache),
                "skills": {
                    str(path): [
                        info.st_size,
                        info.st_mtime_ns,
                        info.st_ctime_ns,
                        info.st_ino,
                        "wipe",
                        "Cleans up.",
                        {"type": "script"},
                        0,
                    ]
                },
            }
        ),
        encoding="utf-8",
    )
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert "wipe" not in catalog and not cache.last.loaded


def test_a_skill_edited_into_a_dangerous_one_is_blocked_by_live_reload(
    skills: Path, cache: CatalogCache
) -> None:
    path = write_script_skill(skills, "tidy", "```sh\necho tidy\n```\n")
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert "tidy" in catalog
    path.write_text(
        path.read_text(encoding="utf-8").replace("echo tidy", "rm -rf ~"),
        encoding="utf-8",
    )
    diff = catalog.rescan()
    assert diff.removed == ("tidy",) and "tidy" not in catalog
    assert any(p.field == "script" for p in diff.problems)


def age(path: Path) -> None:
    os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))


def test_an_unchanged_skills_directory_is_not_listed_again(
    skills: Path, cache: CatalogCache
) -> None:
    age(skills)
    SkillCatalog(dirs(skills), cache=cache)
    assert cache.last.listed == 1
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert (cache.last.listed, cache.last.hits, len(catalog)) == (0, 5, 5)


@pytest.mark.parametrize("change", ["add", "remove", "disable"])
def test_a_skills_directory_whose_entries_changed_is_listed_again_even_with_its_old_mtime_put_back(
    skills: Path, cache: CatalogCache, change: str
) -> None:
    age(skills)
    SkillCatalog(dirs(skills), cache=cache)
    if change == "add":
        write_skill(skills, "brand-new")
    elif change == "remove":
        (skills / "skill-0" / "SKILL.md").unlink()
        (skills / "skill-0").rmdir()
    else:
        (skills / "skill-0").rename(skills / "skill-0.disabled")
    age(skills)  # the ctime still moved: it cannot be set back
    catalog = SkillCatalog(dirs(skills), cache=cache)
    assert cache.last.listed == 1
    assert ("brand-new" in catalog) == (change == "add")
    assert ("skill-0" in catalog) == (change == "add")


def test_a_skills_directory_changed_just_now_is_listed_every_time(
    skills: Path, cache: CatalogCache
) -> None:
    for _ in range(2):  # its mtime could still move within the same timestamp tick
        SkillCatalog(dirs(skills), cache=cache)
        assert cache.last.listed == 1
