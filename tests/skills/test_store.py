"""Skill folders on disk through the one catalog (save, delete, resources) and embedded defaults (seed 002)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from aiq_tui.config import SkillsSettings
from aiq_tui.skills.builder import build_instruction_skill
from aiq_tui.skills.catalog import SkillCatalog
from aiq_tui.skills.discover import SkillDir
from aiq_tui.skills.parse import parse_skill_text
from aiq_tui.skills.store import (
    SkillEntry,
    StoreError,
    bundled_defaults,
    ensure_defaults,
    parse_entry,
    read_entry,
    render,
)


def FileSkillStore(root: Path) -> SkillCatalog:
    """The seed's file store is the catalog over one directory."""
    root.mkdir(parents=True, exist_ok=True)
    return SkillCatalog([SkillDir(root, "flag")], SkillsSettings())


from aiq_tui.skills.validate import validate

DEFAULT_SKILLS = {
    "sql-explorer",
    "http-api",
    "shell-basics",
    "file-notes",
    "skill-authoring",
    "data-report",
    "disk-usage",
    "release-notes",
    "sales-report-pipeline",
}
EXECUTABLE_DEFAULTS = {
    "disk-usage": "script",
    "release-notes": "template",
    "sales-report-pipeline": "composite",
}


def test_save_a_new_skill_creates_skill_md_with_frontmatter(tmp_path: Path) -> None:
    store = FileSkillStore(tmp_path / "skills")
    path = store.save(
        SkillEntry("my-skill", "Does things", definition={"content": "# Steps\n"})
    )
    assert path == tmp_path / "skills" / "my-skill" / "SKILL.md"
    text = path.read_text()
    assert (
        text.startswith("---\nname: my-skill\ndescription: Does things\n")
        and "# Steps" in text
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert not [
        p for p in path.parent.iterdir() if p.name.startswith(".")
    ]  # no temp files left


def test_load_active_skills_and_skip_hidden_directory_silently(tmp_path: Path) -> None:
    store = FileSkillStore(tmp_path)
    store.save(SkillEntry("on", "d"))
    store.save(SkillEntry("off", "d", status="inactive"))
    (tmp_path / "no-status").mkdir()
    (tmp_path / "no-status" / "SKILL.md").write_text(
        "---\nname: no-status\ndescription: d\n---\nbody\n"
    )
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "SKILL.md").write_text("garbage")
    store.rescan()
    assert store.names() == ["no-status", "on"]
    assert store.problems == ()


def test_get_returns_saved_entry(tmp_path: Path) -> None:
    store = FileSkillStore(tmp_path)
    entry = SkillEntry(
        "s",
        "script skill",
        type="script",
        definition={"script": "echo hi\nls\n"},
        parameters={"target": "where"},
    )
    store.save(entry)
    got = read_entry(store.get("s").path)
    assert (got.type, got.definition["script"], got.parameters) == (
        "script",
        "echo hi\nls\n",
        {"target": "where"},
    )
    assert store.definition("s") == {"script": "echo hi\nls\n"}
    assert store.get("missing") is None


def test_delete_a_skill_removes_the_whole_folder(tmp_path: Path) -> None:
    store = FileSkillStore(tmp_path)
    store.save(SkillEntry("gone", "d"))
    store.save_resource("gone", "scripts/run.sh", "echo")
    store.delete("gone")
    assert not (tmp_path / "gone").exists()


def test_save_resource_writes_file_to_correct_path(tmp_path: Path) -> None:
    store = FileSkillStore(tmp_path)
    store.save(SkillEntry("my-skill", "d"))
    path = store.save_resource("my-skill", "scripts/run.sh", "echo run\n")
    assert path == (tmp_path / "my-skill" / "scripts" / "run.sh").resolve()
    assert path.read_text() == "echo run\n"
    for bad in ("../escape.sh", "/etc/passwd", "a/../../x", "SKILL.md"):
        with pytest.raises(StoreError):
            store.save_resource("my-skill", bad, "x")


def test_parse_file_without_frontmatter_is_an_error() -> None:
    with pytest.raises(StoreError):
        parse_entry("# no frontmatter\n")


def test_parse_instruction_skill_md_defaults_type_and_stores_body_as_content() -> None:
    entry = parse_entry(
        "---\nname: ref\ndescription: Reference\n---\n# Guide\n\nText.\n"
    )
    assert (
        entry.type == "instruction"
        and entry.definition["content"] == "# Guide\n\nText."
    )
    explicit = parse_entry(
        "---\nname: ref\ndescription: R\ntype: instruction\n---\nBody\n"
    )
    assert explicit.definition["content"] == "Body"


def test_source_field_roundtrip() -> None:
    entry = build_instruction_skill(
        "imp", "Imported", "# Content", "https://example.com/skill"
    )
    assert (entry.type, entry.status, entry.created_by) == (
        "instruction",
        "active",
        "import",
    )
    again = parse_entry(render(entry))
    assert again.source == "https://example.com/skill"


def test_skill_entry_with_allowed_tools_persists_through_save_and_get(
    tmp_path: Path,
) -> None:
    store = FileSkillStore(tmp_path)
    store.save(SkillEntry("t", "d", allowed_tools=("exec", "fs_read")))
    assert read_entry(store.get("t").path).allowed_tools == ("exec", "fs_read")


def test_local_skill_has_empty_source(tmp_path: Path) -> None:
    store = FileSkillStore(tmp_path)
    store.save(SkillEntry("local", "d"))
    assert store.get("local").source == ""
    assert read_entry(store.get("local").path).source == ""


def test_render_instruction_as_plain_markdown_without_code_fences() -> None:
    text = render(
        SkillEntry("i", "d", definition={"content": "# Title\n\nPlain text."})
    )
    assert "```" not in text and text.endswith("---\n\n# Title\n\nPlain text.\n")


def test_save_refuses_unknown_type(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="instruction"):
        FileSkillStore(tmp_path).save(SkillEntry("x", "d", type="macro"))


def test_embedded_defaults_are_deployed(tmp_path: Path) -> None:
    installed = ensure_defaults(tmp_path)
    assert set(installed) == DEFAULT_SKILLS
    for name in installed:
        assert (tmp_path / name / "SKILL.md").is_file()


def test_existing_skills_preserved(tmp_path: Path) -> None:
    (tmp_path / "http-api").mkdir()
    (tmp_path / "http-api" / "SKILL.md").write_text("mine")
    installed = ensure_defaults(tmp_path)
    assert (
        "http-api" not in installed
        and (tmp_path / "http-api" / "SKILL.md").read_text() == "mine"
    )
    assert ensure_defaults(tmp_path) == []  # idempotent


def test_placeholder_not_deployed_as_skill(tmp_path: Path) -> None:
    source = tmp_path / "embedded"
    (source / ".placeholder").mkdir(parents=True)
    (source / ".placeholder" / "SKILL.md").write_text("placeholder, no frontmatter")
    (source / "real").mkdir()
    (source / "real" / "SKILL.md").write_text("---\nname: real\ndescription: d\n---\n")
    (source / "no-skill-md").mkdir()
    target = tmp_path / "skills"
    assert ensure_defaults(target, source=source) == ["real"]
    assert sorted(p.name for p in target.iterdir()) == ["real"]


def test_bundled_defaults_pass_strict_validation() -> None:
    folder = bundled_defaults()
    names = {
        item.name
        for item in folder.iterdir()
        if item.is_dir() and not item.name.startswith((".", "_"))
    }
    assert names == DEFAULT_SKILLS
    for name in names:
        text = folder.joinpath(name, "SKILL.md").read_text(encoding="utf-8")
        result = parse_skill_text(text)
        assert result.problems == ()
        # lango's executable types need `type` (and a definition), which the Agent Skills
        # specification does not have: those pass the lenient check, the rest pass --strict.
        strict = name not in EXECUTABLE_DEFAULTS
        assert (
            validate(result.meta_fields, None, name, strict=strict, body=result.body)
            == []
        ), name
        assert result.meta_fields.get("type", "instruction") == EXECUTABLE_DEFAULTS.get(
            name, "instruction"
        )
        assert len(result.meta_fields["description"]) >= 150, (
            "descriptions drive matching: be specific"
        )


# -- the app's own edits never trip its own doctor (issue 24, item 2) ---------------------------


def test_disable_then_enable_gives_back_the_file_and_no_field_the_doctor_flags(
    tmp_path: Path,
) -> None:
    from aiq_tui.doctor.spec import skill_verdict

    catalog = FileSkillStore(tmp_path / "skills")
    original = "---\nname: tidy\ndescription: Tidy a folder.  # kept\nlicense: MIT\n---\n\n# Tidy\n"
    (tmp_path / "skills" / "tidy").mkdir()
    path = tmp_path / "skills" / "tidy" / "SKILL.md"
    path.write_text(original)
    catalog.rescan()
    catalog.set_status("tidy", "inactive")
    assert catalog.get("tidy") is None and catalog.find("tidy").status == "inactive"
    assert not skill_verdict(path, SkillsSettings()), (
        "a disabled skill is still valid by the spec"
    )
    catalog.set_status("tidy", "active")
    assert path.read_text() == original
    assert catalog.get("tidy") is not None


def test_a_lango_status_field_is_edited_in_place(tmp_path: Path) -> None:
    catalog = FileSkillStore(tmp_path / "skills")
    (tmp_path / "skills" / "later").mkdir()
    path = tmp_path / "skills" / "later" / "SKILL.md"
    path.write_text("---\nname: later\ndescription: Later.\nstatus: draft\n---\nB\n")
    catalog.rescan()
    catalog.set_status("later", "active")
    assert "status: active" in path.read_text() and "metadata" not in path.read_text()


def test_saved_skills_and_the_bundled_ones_carry_no_status_field() -> None:
    assert "status" not in render(
        SkillEntry("x", "An x.", definition={"content": "Do x."})
    )
    for folder in Path(str(bundled_defaults())).iterdir():
        if (folder / "SKILL.md").is_file():
            text = (folder / "SKILL.md").read_text()
            assert "\nstatus:" not in text.split("\n---", 1)[0] + "\n", folder.name


def test_the_readme_and_the_docs_count_the_bundled_skills_right() -> None:
    import re

    words = {
        "six": 6,
        "seven": 7,
        "eight": 8,
        "nine": 9,
        "ten": 10,
        "eleven": 11,
        "twelve": 12,
    }
    root = Path(__file__).parents[2]
    readme = "\n".join(
        p.read_text()
        for p in [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    )
    said = [
        words.get(w.lower(), int(w) if w.isdigit() else -1)
        for w in re.findall(r"\b(\w+) bundled (?:ones|skills)\b", readme)
        if w.lower() in words or w.isdigit()
    ]
    assert said and set(said) == {len(DEFAULT_SKILLS)}
