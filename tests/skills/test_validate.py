"""Validation: seed 004 "Validate skill metadata", seed 002 registry types, the Agent Skills spec."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.skills.validate import SKILL_TYPES, name_problem, validate

P = Path("skills/demo/SKILL.md")


def fields(**extra: object) -> dict[str, object]:
    return {"name": "demo", "description": "A demo skill", **extra}


def test_accept_valid_metadata_with_optional_sisu_fields() -> None:
    assert (
        validate(fields(version="1.0.0", author="me", tags=["a", "b"]), P, "demo") == []
    )


def test_validate_required_fields_missing_name() -> None:
    [problem] = validate({"description": "x"}, P, "demo")
    assert problem.field == "name" and "missing" in problem.message and problem.hint


def test_validate_field_types_tags_as_string_fails() -> None:
    [problem] = validate(fields(tags="deployment"), P, "demo", lines={"tags": 4})
    assert problem.field == "tags" and problem.line == 4 and "list" in problem.message


def test_validation_returns_all_problems_not_the_first() -> None:
    problems = validate(
        {"name": "", "description": 3, "tags": "x", "triggers": 5}, P, "demo"
    )
    assert {p.field for p in problems} == {"name", "description", "tags", "triggers"}
    assert all(p.path == P and p.hint for p in problems)


@pytest.mark.parametrize(
    ("kind", "field", "value"),
    [
        ("composite", "steps", [{"tool": "http_request"}]),
        ("script", "script", "echo hi"),
        ("template", "template", "Hello {{name}}"),
    ],
)
def test_lango_types_with_their_definition_are_valid(
    kind: str, field: str, value: object
) -> None:
    assert validate(fields(type=kind, **{field: value}), P, "demo") == []


def test_composite_skill_validation_needs_steps_array() -> None:
    [problem] = validate(fields(type="composite", steps="not a list"), P, "demo")
    assert problem.field == "steps" and "array" in problem.message


def test_script_skill_validation_needs_script_string() -> None:
    # Without the body (metadata-only discovery) the script may still be a fenced ```sh block.
    assert validate(fields(type="script"), P, "demo") == []
    [problem] = validate(fields(type="script"), P, "demo", body="# no script here\n")
    assert problem.field == "script"
    assert (
        validate(fields(type="script"), P, "demo", body="```sh\necho hi\n```\n") == []
    )


def test_template_skill_validation_needs_template_string() -> None:
    [problem] = validate(fields(type="template", template=["x"]), P, "demo")
    assert problem.field == "template"


def test_valid_instruction_type_accepted_without_definition() -> None:
    assert validate(fields(type="instruction"), P, "demo") == []


def test_invalid_skill_type_lists_all_valid_types_including_instruction() -> None:
    [problem] = validate(fields(type="macro"), P, "demo")
    assert (
        all(kind in problem.message for kind in SKILL_TYPES)
        and "instruction" in problem.message
    )


def test_lenient_accepts_unknown_fields_and_status_parameters_source_triggers() -> None:
    extra = dict(
        status="active",
        parameters={"q": "query"},
        source="https://x",
        triggers=["a"],
        anything=1,
    )
    assert validate(fields(**extra), P, "other-folder") == []


@pytest.mark.parametrize("name", ["pdf", "pdf-tools", "a1-b2-c3", "x" * 64])
def test_strict_accepts_spec_names(name: str) -> None:
    assert validate({"name": name, "description": "d"}, P, name, strict=True) == []
    assert name_problem(name) is None


@pytest.mark.parametrize(
    "name",
    [
        "PDF",
        "-pdf",
        "pdf-",
        "pdf--tools",
        "pdf_tools",
        "pdf tools",
        "x" * 65,
        "Café",
        "a.b",
    ],
)
def test_strict_rejects_names_outside_the_spec(name: str) -> None:
    problems = validate({"name": name, "description": "d"}, P, name, strict=True)
    assert any(p.field == "name" for p in problems)
    assert name_problem(name) is not None


def test_strict_name_must_equal_folder() -> None:
    [problem] = validate(fields(), P, "other", strict=True)
    assert problem.field == "name" and "folder" in problem.message


def test_strict_description_and_compatibility_limits() -> None:
    assert (
        validate(
            {"name": "demo", "description": "d" * 1024, "compatibility": "c" * 500},
            P,
            "demo",
            strict=True,
        )
        == []
    )
    problems = validate(
        {"name": "demo", "description": "d" * 1025, "compatibility": "c" * 501},
        P,
        "demo",
        strict=True,
    )
    assert {p.field for p in problems} == {"description", "compatibility"}


def test_strict_allows_only_spec_fields_and_metadata_mapping() -> None:
    ok = fields(
        license="MIT",
        **{"allowed-tools": "Read Bash"},
        metadata={"author": "me"},
        compatibility="any",
    )
    assert validate(ok, P, "demo", strict=True) == []
    problems = validate(fields(tags=["x"], metadata=["x"]), P, "demo", strict=True)
    assert {p.field for p in problems} == {"tags", "metadata"}
    assert (
        validate(fields(metadata={"version": 1}), P, "demo", strict=True)[0].field
        == "metadata"
    )


def test_strict_empty_description_fails() -> None:
    assert (
        validate({"name": "demo", "description": ""}, P, "demo", strict=True)[0].field
        == "description"
    )


@pytest.mark.parametrize("name", ["données", "résumé-tools", "日本語"])
def test_strict_accepts_unicode_lowercase_names_like_skills_ref(name: str) -> None:
    assert validate({"name": name, "description": "d"}, P, name, strict=True) == []


def test_strict_rejects_unicode_uppercase_and_lenient_warns_on_an_empty_description() -> (
    None
):
    assert name_problem("Données") == "name must be lowercase"
    [problem] = validate({"name": "x", "description": ""}, P, "x")
    assert problem.severity.value == "warning" and problem.field == "description"
    assert (
        validate({"name": "x", "description": ""}, P, "x", strict=True)[
            0
        ].severity.value
        == "error"
    )
