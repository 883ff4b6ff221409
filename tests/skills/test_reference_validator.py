"""``skills validate --strict`` against the Agent Skills reference validator, skills-ref.

The reference: skills-ref 0.1.1 from PyPI (a dev dependency, pinned in constraints.txt), the
same code as github.com/agentskills/agentskills ``skills-ref/src/skills_ref/{parser,validator}.py``
at commit f130f348f502d9804278a617f86929846896d2e9. Its rules, read there: the file is
``SKILL.md`` or ``skill.md``; it must start with ``---`` (so a byte-order mark fails); the
frontmatter is read by strictyaml, where every scalar is text (``name: 12345`` is "12345") and
duplicate keys, flow style (``[a, b]``, ``{a: b}``), anchors and tags are errors; only the six
spec fields are allowed; ``name`` is stripped, NFKC-normalised, ≤ 64 characters, lowercase
letters/digits/hyphens, no leading, trailing or double hyphen, equal to the NFKC folder name;
``description`` non-empty and ≤ 1024; ``compatibility`` text ≤ 500 (empty is fine); ``license``,
``allowed-tools`` and ``metadata`` values are not checked (metadata values are ``str()``-ed).

Each case below says what the reference decides. Where aiq-tui decides otherwise on purpose,
:data:`DIFFERENCES` says why (docs/skills.md, "Agreement with the reference validator", says it
to users). ``test_reference_verdicts_are_as_recorded`` runs skills-ref itself, so a new
reference release that changes a verdict fails here instead of drifting silently. Only
verdicts are compared, never the reference's wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from aiq_tui.config import SkillsSettings
from aiq_tui.skills.check import check_paths
from aiq_tui.skills.discover import SkillDir, scan


@dataclass(frozen=True)
class Case:
    folder: str
    data: bytes | None  # the SKILL.md (None: the case writes ``file`` itself)
    reference_accepts: bool
    file: str = "SKILL.md"


def _skill(frontmatter: str, body: str = "# Body\n") -> bytes:
    return f"---\n{frontmatter}---\n{body}".encode()


_OK = "name: demo\ndescription: Does a thing. Use when asked.\n"

CASES: dict[str, Case] = {
    # -- the six disagreements of issue 24, resolved -------------------------------------------
    "numeric-name": Case("12345", _skill("name: 12345\ndescription: d\n"), True),
    "empty-compatibility": Case("demo", _skill(_OK + 'compatibility: ""\n'), True),
    "license-list": Case(
        "demo", _skill(_OK + "license:\n  - MIT\n  - Apache-2.0\n"), True
    ),
    "lowercase-skill-md": Case("demo", _skill(_OK), True, file="skill.md"),
    "duplicated-name": Case(
        "demo", _skill("name: demo\nname: demo\ndescription: d\n"), False
    ),
    "bom-before-dashes": Case("demo", b"\xef\xbb\xbf" + _skill(_OK), False),
    # -- text fields are text --------------------------------------------------------------------
    "numeric-description": Case("demo", _skill("name: demo\ndescription: 42\n"), True),
    "boolean-description": Case("demo", _skill("name: demo\ndescription: yes\n"), True),
    "date-description": Case(
        "demo", _skill("name: demo\ndescription: 2024-01-01\n"), True
    ),
    "null-word-name": Case("null", _skill("name: null\ndescription: d\n"), True),
    "numeric-compatibility": Case("demo", _skill(_OK + "compatibility: 3.11\n"), True),
    "bare-compatibility": Case("demo", _skill(_OK + "compatibility:\n"), True),
    "numeric-allowed-tools": Case("demo", _skill(_OK + "allowed-tools: 5\n"), True),
    "metadata-number": Case("demo", _skill(_OK + "metadata:\n  version: 1.0\n"), True),
    "metadata-boolean": Case("demo", _skill(_OK + "metadata:\n  beta: true\n"), True),
    "metadata-empty-value": Case("demo", _skill(_OK + "metadata:\n  note:\n"), True),
    "metadata-number-key": Case("demo", _skill(_OK + "metadata:\n  1: one\n"), True),
    "license-mapping": Case("demo", _skill(_OK + "license:\n  name: MIT\n"), True),
    # -- names -------------------------------------------------------------------------------------
    "valid": Case("demo", _skill(_OK), True),
    "all-fields": Case(
        "demo",
        _skill(
            _OK + "license: MIT\ncompatibility: Requires git\n"
            "allowed-tools: Bash(git:*) Read\nmetadata:\n  author: me\n"
        ),
        True,
    ),
    "uppercase-name": Case("Demo", _skill("name: Demo\ndescription: d\n"), False),
    "leading-hyphen": Case("-demo", _skill("name: -demo\ndescription: d\n"), False),
    "trailing-hyphen": Case("demo-", _skill("name: demo-\ndescription: d\n"), False),
    "double-hyphen": Case("de--mo", _skill("name: de--mo\ndescription: d\n"), False),
    "underscore": Case("de_mo", _skill("name: de_mo\ndescription: d\n"), False),
    "too-long-name": Case(
        "a" * 65, _skill(f"name: {'a' * 65}\ndescription: d\n"), False
    ),
    "folder-mismatch": Case("other", _skill(_OK), False),
    "unicode-lowercase": Case(
        "données", _skill("name: données\ndescription: d\n"), True
    ),
    "unicode-uppercase": Case("НАВЫК", _skill("name: НАВЫК\ndescription: d\n"), False),
    "nfkc-decomposed-name": Case(
        "caf\u00e9", _skill("name: cafe\u0301\ndescription: d\n"), True
    ),
    "nfkc-decomposed-folder": Case(
        "cafe\u0301", _skill("name: caf\u00e9\ndescription: d\n"), True
    ),
    "quoted-name-with-spaces": Case(
        "demo", _skill("name: ' demo '\ndescription: d\n"), True
    ),
    "block-scalar-name": Case(
        "demo", _skill("name: |\n  demo\ndescription: d\n"), True
    ),
    "empty-name": Case("demo", _skill("name:\ndescription: d\n"), False),
    "list-name": Case("demo", _skill("name:\n  - demo\ndescription: d\n"), False),
    # -- descriptions and other fields -----------------------------------------------------------
    "missing-description": Case("demo", _skill("name: demo\n"), False),
    "empty-description": Case("demo", _skill("name: demo\ndescription:\n"), False),
    "long-description": Case(
        "demo", _skill(f"name: demo\ndescription: {'x' * 1025}\n"), False
    ),
    "long-compatibility": Case(
        "demo", _skill(_OK + f"compatibility: {'x' * 501}\n"), False
    ),
    "unknown-field": Case("demo", _skill(_OK + "tags:\n  - x\n"), False),
    "lango-type-field": Case("demo", _skill(_OK + "type: instruction\n"), False),
    "block-allowed-tools-list": Case(
        "demo", _skill(_OK + "allowed-tools:\n  - Read\n"), True
    ),
    # -- files and YAML ----------------------------------------------------------------------------
    "no-frontmatter": Case("demo", b"# Only a body\n", False),
    "unclosed-frontmatter": Case("demo", b"---\nname: demo\ndescription: d\n", False),
    "crlf-newlines": Case("demo", _skill(_OK).replace(b"\n", b"\r\n"), True),
    "comment-after-value": Case(
        "demo", _skill("name: demo  # the name\ndescription: d\n"), True
    ),
    "invalid-yaml": Case("demo", _skill("name: [demo\ndescription: d\n"), False),
    "list-frontmatter": Case("demo", _skill("- name\n- description\n"), False),
    "unquoted-colon": Case(
        "demo", _skill("name: demo\ndescription: Use when: asked\n"), False
    ),
    "duplicated-metadata-key": Case(
        "demo", _skill(_OK + "metadata:\n  a: b\n  a: c\n"), False
    ),
    "empty-body": Case("demo", _skill(_OK, body=""), True),
    # -- documented differences (see DIFFERENCES) ------------------------------------------------
    "flow-metadata": Case("demo", _skill(_OK + "metadata: {author: me}\n"), False),
    "anchor-and-alias": Case("demo", _skill("name: &n demo\ndescription: *n\n"), False),
    "explicit-tag": Case("demo", _skill("name: !!str demo\ndescription: d\n"), False),
    "nested-metadata": Case("demo", _skill(_OK + "metadata:\n  a:\n    b: c\n"), True),
    "metadata-list-value": Case(
        "demo", _skill(_OK + "metadata:\n  a:\n    - b\n"), True
    ),
}

DIFFERENCES: dict[str, str] = {
    # Claude Code loads only SKILL.md (the name is case-sensitive) and the Agent Skills client
    # guide says "a file named exactly SKILL.md"; passing skill.md would promise a skill that
    # does not load. Discovery warns and skips it, validate fails it with the rename hint.
    "lowercase-skill-md": "Claude Code and the client guide read only SKILL.md",
    # Flow style, anchors and tags are YAML, which the specification names; strictyaml (the
    # reference's parser) refuses them as a matter of taste, Claude Code reads them.
    "flow-metadata": "valid YAML: flow style",
    "anchor-and-alias": "valid YAML: anchors",
    "explicit-tag": "valid YAML: tags",
    # The specification: metadata is "a map from string keys to string values". The reference
    # stringifies a nested value into a Python repr ("{'b': 'c'}") that no client reads alike.
    "nested-metadata": "metadata values must be strings",
    "metadata-list-value": "metadata values must be strings",
    # The specification: allowed-tools is a space-separated string. A list is lango's form:
    # accepted by the lenient validation (and discovery), not by the strict one.
    "block-allowed-tools-list": "allowed-tools is a space-separated string",
}


def _write(root: Path, key: str, case: Case) -> Path:
    folder = root / key / case.folder
    folder.mkdir(parents=True)
    (folder / case.file).write_bytes(case.data if case.data is not None else b"")
    return folder


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("reference-cases")
    return {key: _write(root, key, case) for key, case in CASES.items()}


def _strict_valid(folder: Path) -> bool:
    reports = check_paths([folder], SkillsSettings(), strict=True)
    return bool(reports) and all(report.valid for report in reports)


@pytest.mark.parametrize("key", sorted(CASES))
def test_strict_validation_agrees_with_the_reference_or_says_why_not(
    key: str, folders: dict[str, Path]
) -> None:
    case = CASES[key]
    expected = (
        not case.reference_accepts if key in DIFFERENCES else case.reference_accepts
    )
    assert _strict_valid(folders[key]) is expected


@pytest.mark.parametrize("key", sorted(CASES))
def test_reference_verdicts_are_as_recorded(key: str, folders: dict[str, Path]) -> None:
    validator = pytest.importorskip("skills_ref.validator")
    assert (validator.validate(folders[key]) == []) is CASES[key].reference_accepts


@pytest.mark.parametrize(
    "key",
    sorted(
        k
        for k, case in CASES.items()
        if case.reference_accepts and k not in DIFFERENCES
    ),
)
def test_a_skill_strict_validation_accepts_is_read_alike_by_discovery(
    key: str, folders: dict[str, Path]
) -> None:
    """One parse everywhere: what validate accepted, discovery loads with the same name."""
    folder = folders[key]
    [report] = check_paths([folder], SkillsSettings(), strict=True)
    result = scan([SkillDir(folder.parent, "flag")], SkillsSettings())
    assert list(result.metas) == [report.name.strip()]


def test_the_defects_other_clients_refuse_are_warnings_when_loading(
    folders: dict[str, Path],
) -> None:
    """A byte-order mark or a field given twice: the skill still loads (as it always did),
    and discovery says what other clients will make of it."""
    for key, field in (("bom-before-dashes", None), ("duplicated-name", "name")):
        result = scan([SkillDir(folders[key].parent, "flag")], SkillsSettings())
        assert list(result.metas) == ["demo"]
        [problem] = result.problems
        assert (
            problem.severity.value == "warning"
            and problem.field == field
            and problem.line
        )


def test_lowercase_skill_md_is_skipped_by_discovery_with_a_rename_hint(
    folders: dict[str, Path],
) -> None:
    result = scan(
        [SkillDir(folders["lowercase-skill-md"].parent, "flag")], SkillsSettings()
    )
    assert result.metas == {}
    [problem] = result.problems
    assert (
        problem.path is not None
        and problem.path.name == "skill.md"
        and "SKILL.md" in (problem.hint or "")
    )


# -- lenient: loaded, but every specification rule it breaks is a warning naming the rule -------------
SPEC_RULES = {  # case → (field, the rule named in the warning)
    "uppercase-name": ("name", "a name is lowercase"),
    "unicode-uppercase": ("name", "a name is lowercase"),
    "leading-hyphen": ("name", "a name neither starts nor ends with a hyphen"),
    "trailing-hyphen": ("name", "a name neither starts nor ends with a hyphen"),
    "double-hyphen": ("name", "a name has no consecutive hyphens"),
    "underscore": ("name", "a name has letters, digits and hyphens only"),
    "too-long-name": ("name", "a name has at most 64 characters"),
    "folder-mismatch": ("name", "the name equals its folder's name"),
    "long-description": ("description", "a description has at most 1024 characters"),
    "long-compatibility": ("compatibility", "compatibility has at most 500 characters"),
    "unknown-field": ("tags", "only its six fields"),
    "lango-type-field": ("type", "only its six fields"),
}


@pytest.mark.parametrize("key", sorted(SPEC_RULES))
def test_lenient_validate_loads_a_spec_violation_but_warns_naming_the_rule(
    key: str, folders: dict[str, Path]
) -> None:
    assert not CASES[key].reference_accepts and not _strict_valid(folders[key])
    [report] = check_paths([folders[key]], SkillsSettings())
    assert report.valid, "lenient mode still loads it"
    field, rule = SPEC_RULES[key]
    warnings = [
        p
        for p in report.problems
        if p.severity.value == "warning"
        and "(the Agent Skills specification's rule: " in p.message
    ]
    assert [p.field for p in warnings] == [field], [p.message for p in report.problems]
    assert rule in warnings[0].message and "--strict" in warnings[0].message
    assert warnings[0].path == folders[key] / "SKILL.md" and warnings[0].hint


def test_every_rejected_case_lenient_mode_loads_is_warned_about_or_a_documented_difference(
    folders: dict[str, Path],
) -> None:
    """No silent pass: what the reference refuses and lenient mode accepts says something —
    unless strict mode accepts it too, on purpose (DIFFERENCES)."""
    silent = []
    for key, case in CASES.items():
        if case.reference_accepts or key in DIFFERENCES:
            continue
        reports = check_paths([folders[key]], SkillsSettings())
        if (
            reports
            and all(r.valid for r in reports)
            and not any(r.problems for r in reports)
        ):
            silent.append(key)
    assert silent == []
