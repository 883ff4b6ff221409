"""The fast paths of ``skills list`` say exactly what the plain ones say: rows encoded by hand
equal json's encoding of ``_meta_json``, a lazily built parser gives the same help and
errors, and a meta built from a ``str`` path is the same meta as one built from a Path."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aiq_tui.cli import (
    COMMAND_MODULES,
    action_named,
    build_parser,
    commands_needed,
    main,
)
from aiq_tui.commands.common import json_encoder
from aiq_tui.commands.skills_cmd import _listing_rows, _meta_json
from aiq_tui.skills.model import SkillMeta

Capsys = pytest.CaptureFixture[str]

_text = st.text(
    max_size=12
)  # any code point, lone surrogates and control characters included
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3)
    ),
    max_leaves=8,
)
# The extras that SkillMeta's properties read, with right and wrong types alike.
_extras = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["script", "template", ""]) | _json_values,
        "status": st.sampled_from(["active", "inactive", "draft"]) | _json_values,
        "source": _json_values,
        "tags": st.lists(_text | st.integers() | st.none(), max_size=3) | _json_values,
        "triggers": st.lists(_text, max_size=3) | _json_values,
        "allowed-tools": st.lists(_text, max_size=3) | _json_values,
        "allowed_tools": _json_values,
        "created": st.dates(),  # not JSON: the encoder's default=str
        "license": _json_values,
    },
)


@settings(max_examples=300, deadline=None)
@given(
    name=_text,
    description=_text,
    folder=_text.filter(lambda s: "/" not in s and "\x00" not in s),
    extras=_extras,
    size=st.integers(min_value=0),
)
def test_rows_encoded_by_hand_equal_the_encoders_text(
    name: str, description: str, folder: str, extras: dict[str, object], size: int
) -> None:
    root = Path("/skills")
    meta = SkillMeta(
        name, description, f"{root}/{folder or 'x'}/SKILL.md", root, extras, size
    )
    assert _listing_rows([meta]) == [json_encoder().encode(_meta_json(meta))]


def test_list_json_writes_the_semantic_summary_as_an_object(capsys: Capsys) -> None:
    assert main(["skills", "list", "--json"]) == 0
    semantic = json.loads(capsys.readouterr().out)["semantic"]
    assert (
        isinstance(semantic, dict) and semantic["enabled"] is False and semantic["text"]
    )


@pytest.mark.parametrize(
    ("argv", "needed"),
    [
        (["skills", "list", "--json"], ("skills",)),
        (["--home", "skills", "run", "--help"], ("run",)),  # "skills" is --home's value
        (
            ["--home=/h", "--create", "--no-color", "--skills-dir", "d", "match", "q"],
            ("match",),
        ),
        ([], ()),  # the TUI
        (["--home", "/h", "--provider", "p", "--model", "m"], ()),
        (["-h", "skills"], COMMAND_MODULES),  # the top-level help lists every command
        (["--help"], COMMAND_MODULES),
        (["--version"], COMMAND_MODULES),
        (
            ["--ho", "/h", "skills"],
            COMMAND_MODULES,
        ),  # an abbreviation: argparse may read it otherwise
        (["--", "skills"], COMMAND_MODULES),
        (["bogus"], COMMAND_MODULES),  # the "invalid choice" error lists every command
    ],
)
def test_only_the_named_command_is_registered_when_it_is_certain(
    argv: list[str], needed: tuple[str, ...]
) -> None:
    assert commands_needed(argv) == needed


@pytest.mark.parametrize(
    ("argv", "action"),
    [
        (["skills", "list", "--json"], "list"),
        (["--home", "/h", "skills", "--no-color", "doctor"], "doctor"),
        (["skills", "--home", "/h", "show", "x"], "show"),
        (["skills", "-h"], None),  # the skills help lists every action
        (["skills", "--json", "list"], None),  # not a global option: argparse decides
        (["skills", "--ho", "/h", "list"], None),  # an abbreviation
        (["skills"], None),
        (["match", "skills", "list"], None),  # another command's words
    ],
)
def test_only_the_named_action_is_certain(argv: list[str], action: str | None) -> None:
    assert action_named(argv, "skills") == action


def test_a_certain_action_builds_that_parser_alone(capsys: Capsys) -> None:
    parser = build_parser(
        ["skills", "list"]
    )  # what `skills list` builds: no other action to choose
    with pytest.raises(SystemExit):
        parser.parse_args(["skills", "show", "x"])
    assert "invalid choice: 'show' (choose from 'list')" in capsys.readouterr().err


def _outcome(argv: list[str], lazy: bool, capsys: Capsys) -> tuple[object, str, str]:
    parser = build_parser(argv) if lazy else build_parser()
    try:
        result: object = vars(parser.parse_args(argv))
    except SystemExit as exc:
        result = exc.code
    captured = capsys.readouterr()
    return result, captured.out, captured.err


@pytest.mark.parametrize(
    "argv",
    [
        *([name, "--help"] for name in COMMAND_MODULES),
        *(
            ["skills", action, "--help"]
            for action in (
                "list",
                "show",
                "validate",
                "new",
                "enable",
                "disable",
                "rm",
                "import",
                "doctor",
            )
        ),
        ["--home", "/h", "skills", "list", "--json", "--no-color"],
        ["skills", "bogus"],
        ["skills", "show"],
        ["run", "--bogus"],
        ["--home"],
        ["--help"],
        ["bogus"],
        [],
        ["skills"],
        ["skills", "-h"],
        ["skills", "li"],
        ["skills", "--home", "/h", "list", "--json"],
        ["skills", "--ho", "/h", "list"],
        ["skills", "--", "list"],
        ["skills", "list", "show"],
        ["sessions", "list", "--json"],
        ["models", "list"],
    ],
)
def test_a_lazily_built_parser_parses_helps_and_fails_exactly_like_the_full_one(
    argv: list[str], capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    full = _outcome(argv, lazy=False, capsys=capsys)
    lazy = _outcome(argv, lazy=True, capsys=capsys)
    if isinstance(
        full[0], dict
    ):  # handlers are the same functions; defaults compare by value
        assert isinstance(lazy[0], dict) and full[0].keys() == lazy[0].keys()
        assert {k: v for k, v in full[0].items() if not callable(v)} == {
            k: v for k, v in lazy[0].items() if not callable(v)
        }
        assert full[1:] == lazy[1:]
    else:
        assert full == lazy


def test_a_meta_built_from_a_str_path_is_the_meta_built_from_a_path() -> None:
    from_str = SkillMeta("a", "d", "/s/a/SKILL.md", Path("/s"))
    from_path = SkillMeta("a", "d", Path("/s/a/SKILL.md"), Path("/s"))
    assert from_str.path == Path("/s/a/SKILL.md") and isinstance(from_str.path, Path)
    assert from_str.file == from_path.file == "/s/a/SKILL.md"
    assert from_str == from_path and from_str.folder == Path("/s/a")
    assert dataclasses.replace(from_str, name="b").path == from_str.path
    with pytest.raises(dataclasses.FrozenInstanceError):
        from_str.path = Path("/elsewhere")  # type: ignore[misc]


def test_the_table_prints_names_and_descriptions_as_written_never_as_markup(
    tmp_path: Path, write_skill, capsys: Capsys
) -> None:
    write_skill(
        tmp_path,
        "odd",
        description="Closes [/b] tags, says [bold]hi[/bold] and :smile:",
    )
    assert main(["skills", "list", "--skills-dir", str(tmp_path)]) == 0
    assert "Closes [/b] tags" in capsys.readouterr().out.replace("\n", "")


def test_a_trusted_meta_is_the_meta_the_constructor_builds(tmp_path: Path) -> None:
    from aiq_tui.skills.model import SkillMeta

    args = (
        "pdf-tools",
        "Fill PDF forms",
        str(tmp_path / "pdf-tools" / "SKILL.md"),
        tmp_path,
        {"tags": ["pdf"], "type": "script"},
        120,
        17,
        42,
    )
    trusted, built = SkillMeta.trusted(*args), SkillMeta(*args)
    assert trusted == built
    assert (
        trusted.path == built.path == tmp_path / "pdf-tools" / "SKILL.md"
        and trusted.file == built.file
    )
    assert (trusted.tags, trusted.type, trusted.body_offset) == (("pdf",), "script", 42)
