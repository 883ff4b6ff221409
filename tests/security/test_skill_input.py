"""Hostile skill files (finding 10): one bad SKILL.md is one warning; the rest still lists,
shows and matches; nothing hangs, recurses without bound or grows memory without bound."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.problems import Severity
from aiq_tui.skills.parse import parse_skill_text, yaml_limits_problem

Capsys = pytest.CaptureFixture[str]

GOOD = "---\nname: {name}\ndescription: Count the customers in the bookshop database\n---\nBody of {name}.\n"
ALIAS_BOMB = (
    "---\nname: bomb\ndescription: x\n"
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n---\n"
)
HOSTILE = {
    "deep": "---\nname: deep\ndescription: x\nv: "
    + "[" * 2000
    + "]" * 2000
    + "\n---\n",
    "recursive": "---\nname: recursive\ndescription: x\nv: &a [*a]\n---\n",
    "bomb": ALIAS_BOMB,
    "dates": "---\nname: dates\ndescription: dated\nreleased: 2024-01-02\nblob: !!binary aGVsbG8=\n"
    "odd: !!set {a, b}\nnan: .nan\n1: number key\n---\nbody\n",
    "binary": "---\nname: binary\x00\n---\n",
    "huge": "---\nname: huge\ndescription: " + "x" * 70_000 + "\n---\n",
}


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for name in ("alpha-counter", "beta-counter"):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(GOOD.format(name=name))
    for name, text in HOSTILE.items():
        (root / name).mkdir()
        (root / name / "SKILL.md").write_text(text)
    (root / "fifo").mkdir()
    os.mkfifo(root / "fifo" / "SKILL.md")
    (root / "dir").mkdir()
    (root / "dir" / "SKILL.md").mkdir()
    return root


def _run_with_deadline(argv: list[str], seconds: float = 60) -> int:
    """main() in a thread: a hang fails the test instead of blocking the suite."""
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(main(argv)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert result, f"{argv} did not finish within {seconds} s"
    return result[0]


def test_list_json_survives_every_bad_file(collection: Path, capsys: Capsys) -> None:
    assert (
        _run_with_deadline(
            ["skills", "list", "--json", "--skills-dir", str(collection)]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    names = {skill["name"] for skill in data["skills"]}
    assert {"alpha-counter", "beta-counter", "dates"} <= names
    assert not names & {"deep", "recursive", "bomb", "binary", "huge"}
    dated = next(skill for skill in data["skills"] if skill["name"] == "dates")
    json.dumps(dated)  # every value is JSON-safe


def test_show_and_match_work_next_to_bad_files(
    collection: Path, capsys: Capsys
) -> None:
    assert (
        _run_with_deadline(
            ["skills", "show", "alpha-counter", "--skills-dir", str(collection)]
        )
        == 0
    )
    assert "Body of alpha-counter" in capsys.readouterr().out
    assert (
        _run_with_deadline(
            ["skills", "show", "dates", "--json", "--skills-dir", str(collection)]
        )
        == 0
    )
    json.loads(capsys.readouterr().out)
    assert (
        _run_with_deadline(
            ["match", "count the customers", "--skills-dir", str(collection)]
        )
        == 0
    )
    assert "counter" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["deep", "recursive", "bomb", "huge"])
def test_bounded_loader_reports_instead_of_building(name: str) -> None:
    # Behaviour, not wording: the YAML library may refuse first (PyYAML 6.0.4's scanner stops
    # 1,000 levels deep on its own), and its message is its own to change.
    result = parse_skill_text(HOSTILE[name])
    assert result.meta_fields is None
    assert [p.severity for p in result.problems] == [Severity.ERROR]


@pytest.mark.parametrize(
    ("name", "ours"),
    [
        ("nested", "nests deeper than"),
        ("recursive", "own anchor"),
        ("bomb", "expands to more than"),
        ("huge", "character limit"),
    ],
)
def test_our_own_bounds_name_the_limit(name: str, ours: str) -> None:
    """Where our bound is the one that refuses, the message says which bound it is."""
    text = (
        HOSTILE.get(name)
        or "---\nname: nested\ndescription: x\nv: " + "[" * 40 + "]" * 40 + "\n---\n"
    )
    result = parse_skill_text(text)
    assert result.meta_fields is None and ours in result.problems[0].message


def test_a_575_byte_alias_bomb_is_refused_by_counting_not_expanding() -> None:
    source = ALIAS_BOMB.split("---\n")[1]
    assert len(source) < 700
    assert "expands to more than" in (yaml_limits_problem(source) or "")


def test_ordinary_anchors_still_work() -> None:
    result = parse_skill_text(
        "---\nname: a\ndescription: d\nbase: &b {x: 1}\nother: *b\n---\n"
    )
    assert result.ok and result.meta_fields["other"] == {"x": 1}


from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

_YAML_BITS = st.sampled_from(
    [
        "name: x",
        "description: y",
        "&a",
        "*a",
        "[",
        "]",
        "{",
        "}",
        ": ",
        "- ",
        "!!binary ",
        "!!python/object:os.system",
        "2024-01-01",
        ".nan",
        "? ",
        "|",
        ">",
        "\t",
        "\n",
        "'",
        '"',
        "\ud83d",
        "\x00",
        "\ufeff",
        "---",
        "<<: *a",
        "!!set",
        "%YAML 1.1",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_YAML_BITS | st.text(max_size=8), max_size=40))
def test_any_frontmatter_parses_to_json_safe_fields_or_problems_never_a_traceback(
    parts: list[str],
) -> None:
    result = parse_skill_text("---\n" + "".join(parts) + "\n---\nbody\n")
    if result.meta_fields is not None:
        json.dumps(result.meta_fields)
    else:
        assert result.problems
