"""Build engines on a temporary config home and record what they emit."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from aiq_tui.agent.engine import Engine
from aiq_tui.config import ProviderSettings
from aiq_tui.events import Event
from aiq_tui.llm.factory import create_provider
from aiq_tui.workspace import Workspace

E = TypeVar("E")


@dataclass
class Recorder:
    events: list[Event] = field(default_factory=list)

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type[E]) -> list[E]:
        return [event for event in self.events if isinstance(event, kind)]

    def types(self) -> list[str]:
        return [type(event).__name__ for event in self.events]

    def clear(self) -> None:
        self.events.clear()


def write_config(home: Path, text: str) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.yaml").write_text(text, encoding="utf-8")


def write_skill(
    root: Path, name: str, description: str, body: str = "Body.\n", extra: str = ""
) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}",
        encoding="utf-8",
    )
    return path


def demo_engine(
    home: Path, *, window: int | None = None, delay: float = 0.0
) -> tuple[Engine, Recorder]:
    if window is not None:
        write_config(home, f"context:\n  window: {window}\n")
    engine = Engine.create(Workspace.open(home_flag=home), demo_delay=delay)
    recorder = Recorder()
    engine.subscribe(recorder)
    return engine, recorder


def openai_engine(
    home: Path, base_url: str, **settings: Any
) -> tuple[Engine, Recorder]:
    """An engine whose provider talks to a fake OpenAI server (no key needed on 127.0.0.1)."""
    workspace = Workspace.open(home_flag=home)
    workspace.config.llm.providers["fake"] = ProviderSettings(
        kind="openai",
        model="gpt-4o-mini",
        base_url=base_url,
        context_window=16_000,
        **settings,
    )
    provider = create_provider(
        workspace.config, "fake", env={}, rng=random.Random(1), sleep=_no_sleep
    )
    engine = Engine(workspace, provider)
    recorder = Recorder()
    engine.subscribe(recorder)
    return engine, recorder


async def _no_sleep(seconds: float) -> None:
    return None
