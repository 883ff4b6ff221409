"""``aiq-tui skills …`` end to end through ``aiq_tui.cli.main``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home

Capsys = pytest.CaptureFixture[str]


def test_skills_list_json_shows_bundled_defaults(
    isolated_home: Home, capsys: Capsys
) -> None:
    assert main(["skills", "list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [skill["name"] for skill in data["skills"]]
    assert "sql-explorer" in names and "http-api" in names
    assert data["skills"][0]["path"].startswith(str(isolated_home.root))


def test_skills_list_table(capsys: Capsys) -> None:
    assert main(["skills", "list"]) == 0
    assert "sql-explorer" in capsys.readouterr().out


def test_skills_list_with_extra_skills_dir_and_warnings(
    tmp_path: Path, write_skill, capsys: Capsys
) -> None:
    write_skill(tmp_path, "mine")
    write_skill(tmp_path, "broken", description=None)
    assert main(["skills", "list", "--skills-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "mine" in out and "broken/SKILL.md" in out and "[description]" in out


def test_skills_show_prints_frontmatter_body_and_resources(capsys: Capsys) -> None:
    assert main(["skills", "show", "data-report"]) == 0
    out = capsys.readouterr().out
    assert "description" in out and "report-template.md" in out and "Steps" in out


def test_skills_show_json(capsys: Capsys) -> None:
    assert main(["skills", "show", "http-api", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (
        data["name"] == "http-api"
        and "http_request" in data["body"]
        and data["resources"] == []
    )


def test_skills_show_unknown_name_is_usage_error_with_suggestion(
    capsys: Capsys,
) -> None:
    assert main(["skills", "show", "sql-explorr"]) == 2
    assert "sql-explorer" in capsys.readouterr().err


def test_skills_validate_reports_every_problem_with_location(
    tmp_path: Path, write_skill, capsys: Capsys
) -> None:
    write_skill(
        tmp_path,
        "Bad_Folder",
        text="---\nname: Bad_Name\ndescription: x\ntags: [a]\n---\n",
    )
    assert main(["skills", "validate", str(tmp_path / "Bad_Folder"), "--strict"]) == 1
    out = capsys.readouterr().out
    assert "SKILL.md:2 [name]" in out and "SKILL.md:4 [tags]" in out and " — " in out


def test_skills_validate_accepts_skill_md_path_and_json(
    tmp_path: Path, write_skill, capsys: Capsys
) -> None:
    path = write_skill(tmp_path, "good")
    assert main(["skills", "validate", str(path), "--strict", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] and data["skills"][0]["name"] == "good"


def test_skills_validate_missing_path_is_a_usage_error(
    tmp_path: Path, capsys: Capsys
) -> None:
    assert main(["skills", "validate", str(tmp_path / "nope")]) == 2


def test_skills_validate_without_paths_checks_discovered_dirs(capsys: Capsys) -> None:
    assert main(["skills", "validate"]) == 0
    assert "9 valid, 0 invalid" in capsys.readouterr().out
    # --strict is exactly the Agent Skills specification: lango's executable types (type,
    # status, parameters, template) are outside it, the instruction skills pass.
    assert main(["skills", "validate", "--strict", "--json"]) == 1
    invalid = {
        s["name"]
        for s in json.loads(capsys.readouterr().out)["skills"]
        if not s["valid"]
    }
    assert invalid == {"disk-usage", "release-notes", "sales-report-pipeline"}


def test_skills_new_scaffold_passes_strict_validation(
    tmp_path: Path, capsys: Capsys
) -> None:
    assert (
        main(
            [
                "skills",
                "new",
                "pdf-tools",
                "--dir",
                str(tmp_path),
                "--description",
                "Work with PDFs",
            ]
        )
        == 0
    )
    assert (tmp_path / "pdf-tools" / "SKILL.md").is_file()
    capsys.readouterr()
    assert main(["skills", "validate", str(tmp_path / "pdf-tools"), "--strict"]) == 0
    assert (
        main(
            [
                "skills",
                "new",
                "pdf-tools",
                "--dir",
                str(tmp_path),
                "--description",
                "Again",
            ]
        )
        == 1
    )  # never overwrites


def test_skills_new_default_dir_is_home_skills(isolated_home: Home) -> None:
    assert (
        main(
            [
                "skills",
                "new",
                "my-skill",
                "--description",
                "Do my thing. Use when asked to.",
            ]
        )
        == 0
    )
    assert (isolated_home.skills_dir / "my-skill" / "SKILL.md").is_file()


@pytest.mark.parametrize("name", ["Bad", "x-", "a--b", "a_b", "x" * 65])
def test_skills_new_refuses_invalid_names(
    name: str, tmp_path: Path, capsys: Capsys
) -> None:
    assert main(["skills", "new", name, "--dir", str(tmp_path)]) == 2
    assert "invalid skill name" in capsys.readouterr().err


def test_config_error_is_shown_on_stderr_with_exit_2(
    isolated_home: Home, capsys: Capsys
) -> None:
    isolated_home.config_dir.mkdir(parents=True)
    isolated_home.config_file.write_text("skills:\n  enabled: [\n")
    assert main(["skills", "list"]) == 2
    err = capsys.readouterr().err
    assert "config.yaml" in err and ":" in err
