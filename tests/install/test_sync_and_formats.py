"""AGENTS.md's <available_skills> block (openskills' format), the lockfile model, SOURCE forms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.skills.install.agents_md import (
    END,
    START,
    ListedSkill,
    block,
    listed_names,
    replace_block,
)
from aiq_tui.skills.install.lockfile import LockFileError, read_lock, write_lock
from aiq_tui.skills.install.sources import SourceError, parse_source
from tests.install.conftest import skill_md

Capsys = pytest.CaptureFixture[str]
HASH = "a" * 64


def test_sync_writes_the_block_between_markers_and_is_idempotent(
    tmp_path: Path, project: Path, capsys: Capsys
) -> None:
    skills = project / ".agents" / "skills"
    for name, description in (("pdf", "Read <PDF> & forms"), ("docx", "Word files")):
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(skill_md(name, description))
    agents_md = project / "AGENTS.md"
    agents_md.write_text("# Project\n\nOur rules.\n")
    args = ["skills", "sync", "--skill", "pdf", "--skill", "docx", "--json"]
    assert main(args) == 0
    first = agents_md.read_text()
    assert first.startswith("# Project\n\nOur rules.\n\n<skills_system")
    assert START in first and END in first and "<available_skills>" in first
    assert "<description>Read &lt;PDF&gt; &amp; forms</description>" in first
    assert "<location>.agents/skills/pdf/SKILL.md</location>" in first
    assert json.loads(capsys.readouterr().out)["skills"] == ["docx", "pdf"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["changed"] is False
    assert agents_md.read_text() == first
    agents_md.write_text(first + "\n## After\n\nKept.\n")
    assert main(["skills", "sync", "--skill", "pdf"]) == 0
    text = agents_md.read_text()
    assert listed_names(text) == ["pdf"] and text.endswith("## After\n\nKept.\n")


def test_an_openskills_block_is_replaced_in_place() -> None:
    written_by_openskills = (
        '# AGENTS\n\n<skills_system priority="1">\n\n## Available Skills\n\n'
        f"{START}\n<available_skills>\n\n<skill>\n<name>old</name>\n<description>x</description>\n"
        f"<location>project</location>\n</skill>\n\n</available_skills>\n{END}\n\n</skills_system>\n\nTail.\n"
    )
    new = replace_block(
        written_by_openskills,
        block([ListedSkill("new", "New one", Path("/p/s/new/SKILL.md"))], Path("/p")),
    )
    assert (
        listed_names(new) == ["new"]
        and new.startswith("# AGENTS\n\n")
        and new.endswith("\n\nTail.\n")
    )
    only_markers = f"intro\n{START}\nold stuff\n{END}\noutro\n"
    replaced = replace_block(only_markers, block([], Path("/p")))
    assert replaced.startswith(f"intro\n{START}") and replaced.endswith(
        f"{END}\noutro\n"
    )


def test_sync_refuses_a_file_that_is_not_markdown(
    project: Path, capsys: Capsys
) -> None:
    assert main(["skills", "sync", "AGENTS.txt"]) == 2


def test_lockfile_keeps_fields_other_tools_wrote(tmp_path: Path) -> None:
    path = tmp_path / "skills-lock.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "skillsDir": ".agents/skills/",
                "skills": {
                    "b": {
                        "source": "o/r",
                        "sourceType": "github",
                        "computedHash": HASH,
                        "linkType": "copy",
                    },
                    "a": {
                        "source": "o/r",
                        "sourceType": "github",
                        "computedHash": HASH,
                    },
                },
            }
        )
    )
    lock = read_lock(path)
    write_lock(lock)
    again = json.loads(path.read_text())
    assert list(again["skills"]) == ["a", "b"]
    assert (
        again["skills"]["b"]["linkType"] == "copy"
        and again["skillsDir"] == ".agents/skills/"
    )


def test_lockfile_with_git_conflict_markers_reads_as_the_union(tmp_path: Path) -> None:
    path = tmp_path / "skills-lock.json"
    path.write_text(
        '{\n  "version": 1,\n  "skills": {\n<<<<<<< HEAD\n'
        f'    "a": {{"source": "o/r", "sourceType": "github", "computedHash": "{HASH}"}}\n'
        "=======\n"
        f'    "b": {{"source": "o/s", "sourceType": "github", "computedHash": "{HASH}"}}\n'
        ">>>>>>> theirs\n  }\n}\n"
    )
    assert sorted(read_lock(path).skills) == ["a", "b"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", "expected"),
        (
            '{"version": 1, "skills": {"a": {"source": "o/r", "sourceType": "github"}}}',
            "computedHash",
        ),
        (
            '{"version": 1, "skills": {"a": {"source": "o/r", "sourceType": "github", "computedHash": "xyz"}}}',
            "64 hex",
        ),
        ('{"version": 9, "skills": {}}', "newer"),
        ("{not json", "not valid JSON"),
    ],
)
def test_a_malformed_lockfile_names_the_file_and_field(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "skills-lock.json"
    path.write_text(text)
    with pytest.raises(LockFileError) as caught:
        read_lock(path)
    assert str(path) in str(caught.value) and message in str(caught.value)


@pytest.mark.parametrize(
    ("text", "kind", "url", "ref", "subpath", "lock"),
    [
        ("anthropics/skills", "github", "https://github.com/anthropics/skills.git", None, "", "anthropics/skills"),
        ("anthropics/skills/skills/pdf", "github", "https://github.com/anthropics/skills.git", None, "skills/pdf", "anthropics/skills"),
        ("owner/repo#v2", "github", "https://github.com/owner/repo.git", "v2", "", "owner/repo"),
        (
            "https://github.com/openai/skills/tree/main/skills/.curated",
            "github", "https://github.com/openai/skills.git", "main", "skills/.curated", "openai/skills",
        ),
        ("https://github.com/o/r.git", "github", "https://github.com/o/r.git", None, "", "o/r"),
        ("git@github.com:o/r.git", "github", "git@github.com:o/r.git", None, "", "git@github.com:o/r.git"),
        ("ssh://git@example.org/team/skills.git", "git", "ssh://git@example.org/team/skills.git", None, "", "ssh://git@example.org/team/skills.git"),
        ("file:///srv/git/skills.git", "git", "file:///srv/git/skills.git", None, "", "file:///srv/git/skills.git"),
        ("https://gitlab.com/g/sub/r/-/tree/dev/skills", "gitlab", "https://gitlab.com/g/sub/r.git", "dev", "skills", "https://gitlab.com/g/sub/r.git"),
    ],
)  # fmt: skip
def test_source_forms(
    text: str, kind: str, url: str, ref: str | None, subpath: str, lock: str
) -> None:
    source = parse_source(text)
    assert (source.source_type, source.url, source.ref, source.subpath, source.lock_source) == (
        kind, url, ref, subpath, lock,
    )  # fmt: skip


def test_ref_option_wins_and_local_paths_are_folders(tmp_path: Path) -> None:
    assert parse_source("o/r#main", "v1").ref == "v1"
    (tmp_path / "o" / "r").mkdir(parents=True)
    local = parse_source(
        "o/r", cwd=tmp_path
    )  # an existing folder wins over the shorthand
    assert local.source_type == "local" and local.path == tmp_path / "o" / "r"
    assert parse_source("./x", cwd=tmp_path).path == tmp_path / "./x"


@pytest.mark.parametrize("text", ["", "ftp://example.org/x.git", "just-a-word"])
def test_sources_that_are_nothing_say_what_is_accepted(
    text: str, tmp_path: Path
) -> None:
    with pytest.raises(SourceError):
        parse_source(text, cwd=tmp_path)
