"""The worked example of the skill author's loop (docs/skill-authoring.md) is what the commands
print today.

The example's commands are run as the page gives them, and every table row and failure
line the page quotes must appear in their output, so the example cannot drift from the code.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.match.test_match_cli import run

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "skill-authoring.md"


def worked_example() -> list[tuple[list[str], list[str]]]:
    """Each ``$ aiq-tui …`` command of the example block with the lines the page shows for it."""
    page = PAGE.read_text(encoding="utf-8")
    block = page.split("## Worked example", 1)[1].split("```", 2)[1]
    commands: list[tuple[list[str], list[str]]] = []
    lines = iter(block.strip("\n").splitlines())
    for line in lines:
        if line.startswith("$ aiq-tui "):
            command = line[len("$ aiq-tui ") :]
            while command.endswith("\\"):
                command = command[:-1] + next(lines).strip()
            commands.append((shlex.split(command), []))
        elif line.strip() and commands:
            commands[-1][1].append(line)
    return commands


def quoted(line: str) -> str:
    """The part of a quoted line that the command prints: no "(…)" note after a table row, no "…"."""
    line = re.sub(r"│\s+\(.*\)$", "│", line)
    return line.split(" …")[0].rstrip()


def test_the_documented_worked_example_matches_what_the_commands_print(
    corpus_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    examples = worked_example()
    assert [argv[:2] for argv, _ in examples] == [
        ["match", "--eval"],
        ["skills", "tune"],
    ]
    for argv, shown in examples:
        argv = [
            str(corpus_dir) if arg == "../shared/corpus/anthropic-skills" else arg
            for arg in argv
        ]
        code, out, _ = run(capsys, *argv)
        assert code == 0
        for line in shown:
            if line.lstrip().startswith(("│", "✗", "diff:", "new collisions")):
                assert quoted(line).strip() in out, (
                    f"docs/skill-authoring.md shows {line!r}; `aiq-tui {' '.join(argv)}` does not print it"
                )
