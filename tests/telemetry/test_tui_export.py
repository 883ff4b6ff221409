"""The TUI exports its turns like ``ask`` does (started with the engine, behind the first frame;
closed by ``run_tui`` when the app ends), and says in a notice when it cannot."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from aiq_tui.commands.tui_cmd import create_app
from aiq_tui.telemetry import Telemetry
from tests.telemetry.receiver import OtlpReceiver
from tests.ui.helpers import say, wait_until


async def test_a_turn_in_the_app_arrives_at_the_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with OtlpReceiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        started: list[Telemetry] = []
        app = create_app(
            argparse.Namespace(home=str(tmp_path)), watch=False, telemetry=started
        )
        assert app is not None
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(lambda: app.engine is not None, "the engine")
            await say(pilot, "how many customers are there?")
            await wait_until(
                lambda: (
                    len(app.engine.session.messages) >= 2 and not app._turn_running()
                ),
                "the answer",
                timeout=30,
            )
            session = app.engine.session.id
        assert len(started) == 1
        assert started[0].close() is None, "delivered within the flush timeout"
        spans = receiver.wait_for(
            lambda got: any(s.name == "invoke_agent aiq-tui" for s in got)
        )
    (turn,) = [s for s in spans if s.name == "invoke_agent aiq-tui"]
    assert turn.attributes["gen_ai.conversation.id"] == session
    assert any(s.attributes.get("gen_ai.tool.name") == "execute_sql" for s in spans)


async def test_without_the_extra_the_app_says_so_in_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setattr(
        "aiq_tui.telemetry.REQUIRED",
        ("opentelemetry.sdk", "opentelemetry_not_installed_here"),
    )
    started: list[Telemetry] = []
    app = create_app(
        argparse.Namespace(home=str(tmp_path)), watch=False, telemetry=started
    )
    assert app is not None
    async with app.run_test(size=(120, 36), notifications=True):
        await wait_until(lambda: app.engine is not None, "the engine")

        def notices() -> list[str]:
            return [str(toast.render()) for toast in app.screen.query("Toast")]

        await wait_until(
            lambda: any("aiq-tui[telemetry]" in text for text in notices()),
            "the notice",
            timeout=30,
        )
        assert sum("aiq-tui[telemetry]" in text for text in notices()) == 1
    assert started == []
