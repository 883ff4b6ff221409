"""SKILL.md parsing: seed 000 "Skills file format parsing", seed 004 "Parse SKILL.md frontmatter"."""

from __future__ import annotations

import io
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from aiq_tui.problems import Severity
from aiq_tui.skills.parse import (
    _fast_fields,
    parse_skill_text,
    read_frontmatter,
    read_frontmatter_from,
)


def test_parse_skill_metadata_extracts_name_and_description() -> None:
    result = parse_skill_text(
        "---\nname: deploy-staging\ndescription: Deploy app\n---\n# Body\n"
    )
    assert result.meta_fields == {"name": "deploy-staging", "description": "Deploy app"}
    assert result.problems == ()


def test_parse_skill_content_is_markdown_after_frontmatter() -> None:
    text = "---\nname: a\ndescription: b\n---\n# Title\n\nSteps.\n"
    result = parse_skill_text(text)
    assert result.body == "# Title\n\nSteps.\n"
    assert text[result.body_offset :] == result.body


def test_parse_array_values_inline() -> None:
    result = parse_skill_text(
        "---\nname: a\ndescription: b\ntags: [deployment, staging, devops]\n---\n"
    )
    assert result.meta_fields["tags"] == ["deployment", "staging", "devops"]


def test_parse_multiline_arrays() -> None:
    result = parse_skill_text(
        "---\nname: a\ndescription: b\ntags:\n  - item1\n  - item2\n---\n"
    )
    assert result.meta_fields["tags"] == ["item1", "item2"]


def test_handle_missing_frontmatter_whole_file_is_instructions() -> None:
    result = parse_skill_text("# Just instructions\n\nDo things.\n")
    assert result.meta_fields == {}
    assert result.body == "# Just instructions\n\nDo things.\n"
    assert not result.has_frontmatter and result.problems == ()


def test_crlf_and_bom_are_tolerated() -> None:
    result = parse_skill_text(
        "\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\nline one\r\nline two\r\n"
    )
    assert result.meta_fields == {"name": "a", "description": "b"}
    assert result.body == "line one\nline two\n"


def test_unquoted_colon_in_description_is_read_with_a_warning() -> None:
    result = parse_skill_text(
        "---\nname: a\ndescription: Use when: the user asks\ntags: [x]\n---\nbody\n",
        Path("S.md"),
    )
    assert result.meta_fields == {
        "name": "a",
        "description": "Use when: the user asks",
        "tags": ["x"],
    }
    [warning] = result.problems
    assert warning.severity is Severity.WARNING
    assert warning.field == "description" and warning.line == 3
    assert "quote" in (warning.hint or "")


def test_invalid_yaml_is_a_problem_with_a_line_not_an_exception() -> None:
    result = parse_skill_text(
        "---\nname: a\ndescription: [unclosed\n---\n", Path("S.md")
    )
    assert result.meta_fields is None
    [problem] = result.problems
    assert problem.severity is Severity.ERROR and "invalid YAML" in problem.message
    assert problem.line is not None and problem.line >= 3


def test_non_mapping_frontmatter_is_a_problem() -> None:
    result = parse_skill_text("---\n- a\n- b\n---\nbody\n")
    assert result.meta_fields is None
    assert "mapping" in result.problems[0].message


def test_unclosed_frontmatter_is_a_problem() -> None:
    result = parse_skill_text("---\nname: a\ndescription: b\n")
    assert result.meta_fields is None and "closing" in result.problems[0].message


def test_binary_file_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(b"\x00\x01\x02binary")
    result = read_frontmatter(path, 10_000)
    assert result.meta_fields is None and "binary" in result.problems[0].message


def test_undecodable_frontmatter_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(b"---\nname: \xff\xfe\ndescription: x\n---\n")
    result = read_frontmatter(path, 10_000)
    assert result.meta_fields is None and "UTF-8" in result.problems[0].message


def test_missing_file_is_a_problem_not_an_exception(tmp_path: Path) -> None:
    result = read_frontmatter(tmp_path / "nope" / "SKILL.md", 10_000)
    assert result.meta_fields is None and "cannot read" in result.problems[0].message


class _CountingReader(io.BytesIO):
    def __init__(self, data: bytes):
        super().__init__(data)
        self.consumed = 0

    def read(self, size: int | None = -1) -> bytes:  # type: ignore[override]
        chunk = super().read(size)
        self.consumed += len(chunk)
        return chunk


def test_metadata_only_read_stops_at_the_closing_delimiter() -> None:
    body = b"x" * 5_000_000
    reader = _CountingReader(b"---\nname: big\ndescription: A big skill\n---\n" + body)
    result = read_frontmatter_from(reader, Path("SKILL.md"), 10_000_000)
    assert result.meta_fields == {"name": "big", "description": "A big skill"}
    assert reader.consumed <= 8192


def test_head_read_agrees_with_full_parse(tmp_path: Path) -> None:
    text = "\ufeff---\r\nname: a\r\ndescription: >\r\n  folded\r\n  text\r\nmetadata:\r\n  k: v\r\n---\r\nbody"
    path = tmp_path / "SKILL.md"
    path.write_text(text, encoding="utf-8", newline="")
    head, full = read_frontmatter(path, 10_000), parse_skill_text(text)
    assert (
        head.meta_fields
        == full.meta_fields
        == {"name": "a", "description": "folded text\n", "metadata": {"k": "v"}}
    )
    assert head.body_offset == full.body_offset


def test_closing_delimiter_at_end_of_file_without_newline(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(b"---\nname: a\ndescription: b\n---")
    assert read_frontmatter(path, 10_000).meta_fields == {
        "name": "a",
        "description": "b",
    }


def test_field_lines_point_at_the_file_line() -> None:
    result = parse_skill_text("---\n# comment\nname: a\n\ndescription: b\n---\n")
    assert result.field_lines == {"name": 3, "description": 5}


_line_value = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs",), blacklist_characters="\n\r\x85\u2028\u2029"
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True),
        _line_value,
        min_size=1,
        max_size=4,
    )
)
def test_fast_path_agrees_with_yaml(fields: dict[str, str]) -> None:
    source = "".join(f"{key}: {value}\n" for key, value in fields.items())
    fast = _fast_fields(source)
    if fast is None:
        return  # left to the YAML parser
    assert fast[0] == yaml.safe_load(source)
