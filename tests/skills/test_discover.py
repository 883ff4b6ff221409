"""Discovery and the catalog: seed 000 directory/loading/lifecycle, seed 004 directories and filters."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aiq_tui.config import AppConfig, SkillsSettings
from aiq_tui.locations import Home
from aiq_tui.problems import Severity
from aiq_tui.skills.catalog import SkillCatalog, UnknownSkillError
from aiq_tui.skills.discover import SkillDir, discover, skill_directories


def catalog_of(*dirs: Path, origin: str = "flag", **settings: object) -> SkillCatalog:
    return discover([SkillDir(d, origin) for d in dirs], SkillsSettings(**settings))


def test_skills_directory_organization_one_subdirectory_per_skill(
    tmp_path: Path, write_skill
) -> None:
    write_skill(tmp_path, "sql-helper")
    catalog = catalog_of(tmp_path)
    meta = catalog.get("sql-helper")
    assert meta is not None and meta.path == tmp_path / "sql-helper" / "SKILL.md"
    assert meta.folder == tmp_path / "sql-helper" and meta.source_dir == tmp_path


def test_multiple_skills_support(tmp_path: Path, write_skill) -> None:
    for name in ("a", "b", "c"):
        write_skill(tmp_path, name)
    catalog = catalog_of(tmp_path)
    assert catalog.names() == ["a", "b", "c"] and len(catalog) == 3 and "b" in catalog


def test_load_skills_metadata_on_startup_without_body(
    tmp_path: Path, write_skill
) -> None:
    write_skill(tmp_path, "a", body="SECRET BODY\n", extra="tags: [x]\n")
    meta = catalog_of(tmp_path).get("a")
    assert meta.description == "A demo skill" and meta.tags == ("x",)
    assert "SECRET BODY" not in repr(meta)


def test_handle_invalid_skill_format_logs_and_skips_without_crashing(
    tmp_path: Path, write_skill
) -> None:
    write_skill(tmp_path, "good")
    write_skill(tmp_path, "bad-yaml", text="---\nname: [oops\n---\n")
    write_skill(tmp_path, "no-description", description=None)
    catalog = catalog_of(tmp_path)
    assert catalog.names() == ["good"]
    paths = {p.path for p in catalog.problems}
    assert (
        tmp_path / "bad-yaml" / "SKILL.md" in paths
        and tmp_path / "no-description" / "SKILL.md" in paths
    )
    assert all(p.severity is Severity.WARNING for p in catalog.problems)


def test_skill_without_description_is_skipped_with_warning(
    tmp_path: Path, write_skill
) -> None:
    write_skill(tmp_path, "x", description=None)
    catalog = catalog_of(tmp_path)
    assert len(catalog) == 0
    [problem] = catalog.problems
    assert problem.field == "description" and "skipped" in problem.message


def test_skill_without_frontmatter_is_reported_not_guessed(
    tmp_path: Path, write_skill
) -> None:
    write_skill(tmp_path, "plain", text="# Only instructions\n")
    catalog = catalog_of(tmp_path)
    assert len(catalog) == 0
    assert {p.field for p in catalog.problems} == {"name", "description"}


def test_explicit_skill_folder_with_skill_md_directly(
    tmp_path: Path, write_skill
) -> None:
    write_skill(tmp_path, "solo")
    catalog = catalog_of(tmp_path / "solo")
    assert catalog.names() == ["solo"]


def test_handle_missing_configured_directory_warns_and_continues(
    tmp_path: Path, write_skill
) -> None:
    write_skill(tmp_path / "real", "a")
    catalog = discover(
        [SkillDir(tmp_path / "missing", "config"), SkillDir(tmp_path / "real", "flag")],
        SkillsSettings(),
    )
    assert catalog.names() == ["a"]
    [problem] = catalog.problems
    assert problem.path == tmp_path / "missing" and "does not exist" in problem.message


def test_missing_default_directories_are_skipped_silently(tmp_path: Path) -> None:
    catalog = discover(
        [SkillDir(tmp_path / "nope", "project"), SkillDir(tmp_path / "no", "user")],
        SkillsSettings(),
    )
    assert len(catalog) == 0 and catalog.problems == ()


def test_hidden_directories_are_skipped_silently(tmp_path: Path, write_skill) -> None:
    write_skill(tmp_path, ".disabled-skill", name="hidden")
    write_skill(tmp_path, ".placeholder", text="not a skill")
    catalog = catalog_of(tmp_path)
    assert len(catalog) == 0 and catalog.problems == ()


def test_same_name_in_two_directories_higher_precedence_wins_with_warning(
    tmp_path: Path, write_skill
) -> None:
    first = write_skill(tmp_path / "high", "dup", description="from high")
    second = write_skill(tmp_path / "low", "dup", description="from low")
    catalog = catalog_of(tmp_path / "high", tmp_path / "low")
    assert catalog.get("dup").description == "from high"
    [problem] = catalog.problems
    assert str(first) in problem.message and problem.path == second


def test_configure_skill_inclusion_filter(tmp_path: Path, write_skill) -> None:
    for name in ("deploy-staging", "run-tests", "other"):
        write_skill(tmp_path, name)
    assert catalog_of(tmp_path, include=["deploy-staging", "run-tests"]).names() == [
        "deploy-staging",
        "run-tests",
    ]


def test_configure_skill_exclusion_filter(tmp_path: Path, write_skill) -> None:
    for name in ("legacy-deploy", "deploy"):
        write_skill(tmp_path, name)
    assert catalog_of(tmp_path, exclude=["legacy-deploy"]).names() == ["deploy"]


def test_huge_skill_md_is_skipped_with_warning(tmp_path: Path, write_skill) -> None:
    write_skill(tmp_path, "huge", body="x" * 2000)
    catalog = catalog_of(tmp_path, max_skill_md_bytes=1000)
    assert len(catalog) == 0 and "limit" in catalog.problems[0].message


def test_symlink_loop_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "loop").mkdir()
    os.symlink(tmp_path / "loop" / "SKILL.md", tmp_path / "loop" / "SKILL.md")
    catalog = catalog_of(tmp_path)
    assert (
        len(catalog) == 0
        and catalog.problems
        and catalog.problems[0].severity is Severity.WARNING
    )


def test_skill_md_symlink_whose_target_is_gone_is_skipped_with_a_warning(
    tmp_path: Path, write_skill
) -> None:
    write_skill(tmp_path, "fine")
    (tmp_path / "gone").mkdir()
    os.symlink(tmp_path / "elsewhere" / "SKILL.md", tmp_path / "gone" / "SKILL.md")
    os.symlink(tmp_path / "moved-away", tmp_path / "gone-folder")
    (tmp_path / "not-a-skill").mkdir()  # a plain folder without SKILL.md stays silent
    catalog = catalog_of(tmp_path)
    assert catalog.names() == ["fine"]
    by_path = {problem.path: problem for problem in catalog.problems}
    assert set(by_path) == {tmp_path / "gone" / "SKILL.md", tmp_path / "gone-folder"}
    assert all(
        p.severity is Severity.WARNING and "does not exist" in p.message
        for p in by_path.values()
    )
    assert "elsewhere" in by_path[tmp_path / "gone" / "SKILL.md"].message


def test_validate_reports_a_dangling_skill_md_link_as_invalid(tmp_path: Path) -> None:
    from aiq_tui.skills.check import check_paths

    (tmp_path / "gone").mkdir()
    os.symlink(tmp_path / "elsewhere.md", tmp_path / "gone" / "SKILL.md")
    [report] = check_paths([tmp_path], SkillsSettings())
    assert not report.valid and report.path == tmp_path / "gone" / "SKILL.md"
    assert [
        report.valid for report in check_paths([tmp_path / "gone"], SkillsSettings())
    ] == [False]


def test_resolve_relative_paths_from_cwd_and_precedence_order(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    config = AppConfig(skills=SkillsSettings(dirs=["cfg-skills"]))
    dirs = skill_directories(
        config, home, tmp_path / "project", ["flag-skills"], project_trusted=True
    )
    assert [(d.path, d.origin) for d in dirs] == [
        (tmp_path / "project" / "flag-skills", "flag"),
        (tmp_path / "project" / "cfg-skills", "config"),
        (tmp_path / "project" / ".agents" / "skills", "project"),
        (tmp_path / "project" / ".aiq" / "skills", "project"),
        (
            tmp_path / "project" / ".claude" / "skills",
            "project",
        ),  # Claude Code's project skills
        (home.skills_dir, "home"),
        (Path.home() / ".claude" / "skills", "user"),
        (Path.home() / ".agents" / "skills", "user"),
    ]
    assert all(d.trusted for d in dirs)


def test_an_untrusted_projects_dirs_come_last_and_untrusted(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    dirs = skill_directories(
        AppConfig(), home, tmp_path / "project"
    )  # undecided: untrusted
    assert [d.origin for d in dirs] == [
        "home",
        "user",
        "user",
        "project",
        "project",
        "project",
    ]
    assert [d.trusted for d in dirs] == [True, True, True, False, False, False]


def test_started_in_home_the_project_dirs_are_the_users_own(tmp_path: Path) -> None:
    dirs = skill_directories(AppConfig(), Home(tmp_path / "cfg"), Path.home())
    assert ("user", Path.home() / ".agents" / "skills") in [
        (d.origin, d.path) for d in dirs
    ]
    assert all(d.trusted for d in dirs if d.origin != "project")


def test_a_project_dir_inside_the_config_home_is_trusted_with_it(
    tmp_path: Path,
) -> None:
    home = Home(tmp_path / "cfg")
    dirs = skill_directories(AppConfig(), home, home.root / "work")
    assert all(d.trusted for d in dirs)


def test_user_agent_dirs_are_opt_out(tmp_path: Path) -> None:
    config = AppConfig(skills=SkillsSettings(include_user_agent_dirs=False))
    assert all(
        d.origin != "user" for d in skill_directories(config, Home(tmp_path), tmp_path)
    )


def test_load_matched_skills_content_and_cache_it(tmp_path: Path, write_skill) -> None:
    path = write_skill(tmp_path, "a", body="first body\n")
    catalog = catalog_of(tmp_path)
    skill = catalog.load("a")
    assert skill.body == "first body\n" and skill.name == "a"
    assert catalog.load("a") is skill  # cached: not re-read
    path.write_text(path.read_text().replace("first", "second"))
    os.utime(path, ns=(1, 10**18))
    assert catalog.load("a").body == "second body\n"


def test_unknown_skill_suggests_close_names(tmp_path: Path, write_skill) -> None:
    write_skill(tmp_path, "http-api")
    catalog = catalog_of(tmp_path)
    assert catalog.close_names("htp-api") == ["http-api"]
    with pytest.raises(UnknownSkillError, match="http-api"):
        catalog.load("htp-api")


def test_catalog_resources_are_listed_lazily_and_read_on_demand(
    tmp_path: Path, write_skill
) -> None:
    path = write_skill(tmp_path, "a")
    (path.parent / "ref.md").write_text("reference")
    catalog = catalog_of(tmp_path)
    assert [r.relpath for r in catalog.resources("a")] == ["ref.md"]
    assert catalog.read_resource("a", "ref.md") == "reference"


def test_rescan_reports_added_changed_removed(tmp_path: Path, write_skill) -> None:
    write_skill(tmp_path, "keep")
    changed = write_skill(tmp_path, "edit")
    write_skill(tmp_path, "gone")
    catalog = catalog_of(tmp_path)
    write_skill(tmp_path, "new")
    changed.write_text(changed.read_text().replace("A demo skill", "Edited"))
    os.utime(changed, ns=(1, 10**18))
    (tmp_path / "gone" / "SKILL.md").unlink()
    diff = catalog.rescan()
    assert (diff.added, diff.changed, diff.removed) == (("new",), ("edit",), ("gone",))
    assert catalog.get("edit").description == "Edited"


def test_broken_edit_keeps_last_good_version_and_reports(
    tmp_path: Path, write_skill
) -> None:
    path = write_skill(tmp_path, "a", body="good body\n")
    catalog = catalog_of(tmp_path)
    assert catalog.load("a").body == "good body\n"
    path.write_text("---\nname: [broken\n---\n")
    os.utime(path, ns=(1, 10**18))
    diff = catalog.rescan()
    assert diff.removed == () and "a" in catalog
    assert any(p.path == path for p in diff.problems)
    assert catalog.load("a").body == "good body\n"


def test_from_metas_builds_a_catalog_without_scanning(tmp_path: Path) -> None:
    from aiq_tui.skills.model import SkillMeta

    catalog = SkillCatalog.from_metas(
        [SkillMeta("b", "d", tmp_path / "b" / "SKILL.md", tmp_path)]
    )
    assert catalog.names() == ["b"] and catalog.rescan().empty
