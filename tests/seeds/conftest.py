"""The conformance suite's fixtures: a clean config home and the public surface (CLI, engine, tools).

Each test in this folder is one ``#### Scenario:`` of a seed (or one decision of 001), named
after it. A scenario the project deliberately does differently is a test of our behaviour,
with a one-line reason in its docstring.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.cli import main


@pytest.fixture
def home() -> Path:
    """The test's config home, without bundled or ~/.claude skills (so each test sees its own)."""
    path = Path(os.environ["AIQ_HOME"])
    (path / "config").mkdir(parents=True, exist_ok=True)
    (path / "config" / "config.yaml").write_text(
        "skills:\n  bundled: false\n  include_user_agent_dirs: false\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def skills(home: Path) -> Path:
    path = home / "skills"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def add(skills: Path) -> Callable[..., Path]:
    """add(name, description, body="Body.\\n", extra="", root=skills) → the SKILL.md written."""

    def write(
        name: str,
        description: str = "A skill",
        body: str = "Body.\n",
        extra: str = "",
        root: Path | None = None,
    ) -> Path:
        folder = (root or skills) / name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "SKILL.md"
        path.write_text(
            f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}",
            encoding="utf-8",
        )
        return path

    return write


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """cli(*argv) → (exit code, stdout, stderr) of ``aiq-tui``."""

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def cli_json(
    cli: Callable[..., tuple[int, str, str]],
) -> Callable[..., tuple[int, Any]]:
    def run(*argv: str) -> tuple[int, Any]:
        code, out, _ = cli(*argv, "--json")
        return code, json.loads(out)

    return run


@dataclass
class Recorder:
    events: list[Any] = field(default_factory=list)

    def __call__(self, event: Any) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [event for event in self.events if isinstance(event, kind)]


@pytest.fixture
def engine(home: Path) -> Callable[..., Any]:
    """engine() → (Engine on the demo model over the home, Recorder of its events)."""
    from aiq_tui.agent.engine import Engine
    from aiq_tui.workspace import Workspace

    made: list[Any] = []

    def build(**options: Any) -> tuple[Any, Recorder]:
        instance = Engine.create(Workspace.open(home_flag=home, **options))
        recorder = Recorder()
        instance.subscribe(recorder)
        made.append(instance)
        return instance, recorder

    return build
