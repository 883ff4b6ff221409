"""Issue 34, rows 5 and 8: a project's input files cannot crash, hang or fill the memory of a
command. A ``.mcp.json`` nested 100,000 deep, one that is a FIFO or a link to ``/dev/zero``, and
trigger eval sets of the same kinds end as a warning or a clear error — the command finishes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aiq_tui.cli import main
from tests.security.scripted import ScriptedModel, ask, text

DEEP = "[" * 100_000 + "]" * 100_000  # 200 KB: json and msgspec recurse once per level
TIMEOUT = 60  # a hang (a FIFO read) or a /dev/zero read filling memory is stopped here


def _run(
    args: list[str], cwd: Path, memory_mb: int = 1024, *, module: bool = True
) -> subprocess.CompletedProcess[str]:
    """``aiq-tui ARGS`` in a process of its own: a hang meets the timeout, filling memory meets
    ``RLIMIT_AS`` (a MemoryError traceback) instead of the test machine."""

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))

    command = (
        [sys.executable, "-m", "aiq_tui", *args] if module else [sys.executable, *args]
    )
    return subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=limit,
        env={**os.environ, "NO_COLOR": "1"},
    )


def _no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode in (0, 1, 2), (result.returncode, result.stderr[-2000:])


# -- row 8: .mcp.json ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["mcp", "list"], ["prompt", "hello"]])
def test_a_mcp_json_nested_100000_deep_is_a_warning_not_a_crash(
    tmp_path: Path, command: list[str]
) -> None:
    (tmp_path / ".mcp.json").write_text(DEEP)
    _no_traceback(_run(command, tmp_path))


def test_ask_in_a_folder_with_a_deep_mcp_json_answers_and_saves_its_session(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    isolated_home,
) -> None:
    (tmp_path / ".mcp.json").write_text('{"mcpServers": ' + DEEP + "}")
    monkeypatch.chdir(tmp_path)
    with ScriptedModel([text("the answer")]) as model:
        code = ask(model, monkeypatch)
    assert code == 0
    events = [
        json.loads(line)
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("{")
    ]
    assert [e["text"] for e in events if e["type"] == "turn_finished"] == ["the answer"]
    saved = [e["path"] for e in events if e["type"] == "session_saved"]
    assert saved and Path(saved[0]).is_file()


def test_a_mcp_json_that_is_a_fifo_does_not_hang_a_command(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".mcp.json")
    _no_traceback(_run(["mcp", "list"], tmp_path))


def test_a_mcp_json_linked_to_dev_zero_is_not_read_into_memory(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").symlink_to("/dev/zero")
    _no_traceback(_run(["mcp", "list"], tmp_path, memory_mb=512))


def test_a_config_yaml_nested_100000_deep_is_a_config_error(
    isolated_home, capsys
) -> None:
    isolated_home.ensure()
    isolated_home.config_file.write_text("ui: " + DEEP + "\n")
    assert main(["skills", "list"]) == 2
    assert "nested too deeply" in capsys.readouterr().err


def test_a_composite_skill_with_a_deep_json_block_is_a_problem_not_a_crash(
    tmp_path: Path, capsys
) -> None:
    skill = tmp_path / "skills" / "deep"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: deep\ndescription: a composite skill\ntype: composite\n---\n"
        "```json\n" + DEEP + "\n```\n"
    )
    code = main(["skills", "validate", str(skill)])
    assert code in (0, 1)  # reported, whatever the verdict


# -- row 5: trigger eval sets -------------------------------------------------------------------


def _skill_with_eval(root: Path, make_eval) -> Path:
    skill = root / "skills" / "greeter"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Says hello to people politely\n---\nHi.\n"
    )
    make_eval(skill / "evals" / "trigger_eval.json")
    return skill


HOSTILE_EVALS = {
    "link to /dev/zero": lambda path: path.symlink_to("/dev/zero"),
    "fifo": lambda path: os.mkfifo(path),
    "nested 100000 deep": lambda path: path.write_text(DEEP),
    "2 MB": lambda path: path.write_text(
        json.dumps([{"query": "x" * 1000, "should_trigger": True}] * 2000)
    ),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_EVALS))
def test_match_eval_refuses_a_hostile_trigger_eval_file(
    tmp_path: Path, kind: str
) -> None:
    skill = _skill_with_eval(tmp_path, HOSTILE_EVALS[kind])
    result = _run(
        [
            "match",
            "--skills-dir",
            str(skill.parent),
            "--eval",
            str(skill / "evals" / "trigger_eval.json"),
        ],
        tmp_path,
        memory_mb=768,
    )
    _no_traceback(result)
    assert result.returncode != 0  # refused, not scored


@pytest.mark.parametrize("kind", sorted(HOSTILE_EVALS))
def test_skills_tune_refuses_a_hostile_trigger_eval_file(
    tmp_path: Path, kind: str
) -> None:
    skill = _skill_with_eval(tmp_path, HOSTILE_EVALS[kind])
    result = _run(
        ["skills", "tune", "greeter", "--skills-dir", str(skill.parent)],
        tmp_path,
        memory_mb=768,
    )
    _no_traceback(result)
    assert result.returncode != 0


@pytest.mark.parametrize("kind", ["link to /dev/zero", "fifo"])
def test_the_eval_reader_the_tui_uses_refuses_at_once(
    tmp_path: Path, kind: str
) -> None:
    """The TUI's eval screen reads through ``read_trigger_cases``: bounded, never blocking."""
    skill = _skill_with_eval(tmp_path, HOSTILE_EVALS[kind])
    code = (
        "import pathlib, sys\n"
        "from aiq_tui.ranking.evaluate import EvalFileError\n"
        "from aiq_tui.ranking.trigger_eval import read_trigger_cases\n"
        "try:\n    read_trigger_cases(pathlib.Path(sys.argv[1]), 'greeter')\n"
        "except EvalFileError as exc:\n    print('refused:', exc)\n"
    )
    result = _run(
        ["-c", code, str(skill / "evals" / "trigger_eval.json")],
        tmp_path,
        memory_mb=512,
        module=False,
    )
    assert result.returncode == 0 and result.stdout.startswith("refused:"), (
        result.stderr[-2000:]
    )


def test_a_catalog_cache_nested_100000_deep_is_rebuilt_not_a_crash(
    isolated_home, tmp_path: Path, capsys
) -> None:
    isolated_home.ensure()
    isolated_home.catalog_cache.write_text(
        '{"format": 1, "settings": "x", "skills": {"a": [1, 1, 1, 1, "n", "d", {"x": '
        + DEEP
        + "}, 0]}}"
    )
    assert main(["skills", "list"]) == 0
