"""CLI rough edges: missing paths are usage errors, a closed pipe is not a crash, output into a
pipe keeps long lines whole, and a new skill needs a description."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.context.prompt import DEFAULT_BASE_INSTRUCTIONS
from aiq_tui.locations import Home

Capsys = pytest.CaptureFixture[str]


def test_validate_a_missing_path_is_a_usage_error_naming_it(
    tmp_path: Path, capsys: Capsys
) -> None:
    missing = tmp_path / "nonexistent"
    assert main(["skills", "validate", str(missing)]) == 2
    err = capsys.readouterr().err
    assert str(missing) in err and "no such file or directory" in err


@pytest.mark.parametrize(
    "command", [["skills", "list"], ["match", "sql"], ["prompt", "hello"]]
)
def test_a_missing_skills_dir_is_a_usage_error_naming_it(
    command: list[str], tmp_path: Path, capsys: Capsys
) -> None:
    missing = tmp_path / "nonexistent"
    assert main(["--skills-dir", str(missing), *command]) == 2
    err = capsys.readouterr().err
    assert f"--skills-dir {missing} does not exist" in err


def test_a_skills_dir_that_is_a_file_is_refused(tmp_path: Path, capsys: Capsys) -> None:
    file = tmp_path / "skills.txt"
    file.write_text("x")
    assert main(["skills", "list", "--skills-dir", str(file)]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_a_missing_home_is_not_set_up_silently(tmp_path: Path, capsys: Capsys) -> None:
    home = tmp_path / "typo-home"
    assert main(["--home", str(home), "skills", "list"]) == 2
    err = capsys.readouterr().err
    assert str(home) in err and "--create" in err
    assert not home.exists()
    assert main(["sessions", "list", "--home", str(home)]) == 2  # after the command too


def test_create_sets_up_a_new_home(tmp_path: Path, capsys: Capsys) -> None:
    home = tmp_path / "new-home"
    assert main(["--home", str(home), "--create", "skills", "list", "--json"]) == 0
    assert Home(home).skills_dir.is_dir()
    assert (
        main(["--home", str(home), "skills", "list", "--json"]) == 0
    )  # now it exists: no flag needed


def test_new_skill_without_description_is_a_usage_error(
    tmp_path: Path, capsys: Capsys
) -> None:
    assert main(["skills", "new", "pdf-tools", "--dir", str(tmp_path)]) == 2
    assert "--description is required" in capsys.readouterr().err
    assert not (tmp_path / "pdf-tools").exists()


def test_long_lines_are_not_wrapped_into_a_pipe(capsys: Capsys) -> None:
    assert main(["prompt", "hello"]) == 0
    out = capsys.readouterr().out
    assert len(DEFAULT_BASE_INSTRUCTIONS) > 120
    assert DEFAULT_BASE_INSTRUCTIONS in out.splitlines()


def _run_into_closed_pipe(
    args: list[str], home: Path
) -> subprocess.CompletedProcess[bytes]:
    """Run ``aiq-tui ARGS`` with stdout a pipe whose reader has already gone (``| head -0``)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "AIQ_HOME": str(home), "NO_COLOR": "1"}
    env.pop("COLUMNS", None)
    try:
        return subprocess.run(
            [sys.executable, "-m", "aiq_tui", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "args",
    [
        ["skills", "list"],
        ["prompt", "hello", "--json"],
        ["--help"],
        ["ask", "how many customers are there?"],
    ],
)
def test_a_closed_pipe_exits_0_without_a_traceback(
    args: list[str], tmp_path: Path
) -> None:
    done = _run_into_closed_pipe(args, tmp_path / "home")
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr and b"BrokenPipe" not in done.stderr


def test_ask_into_a_closed_pipe_still_finishes_and_saves_the_turn(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    done = _run_into_closed_pipe(["ask", "how many customers are there?"], home)
    assert done.returncode == 0 and b"session " in done.stderr
    assert list(Home(home).sessions_dir.glob("*.json"))
