"""Regression guard for start-up cost that is not a timed test: run the real start path
(`aiq-tui` → commands.tui_cmd.create_app → app) headless in a fresh interpreter, and look at what is
in ``sys.modules`` at the moment of the first frame. Everything listed here is loaded later:
on demand (screens, HTTP, SQL, providers) or in the warm-up worker after the frame (the
tokenizer, the markdown renderer). Speed itself is measured by ``make bench``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from aiq_tui.locations import Home

PROBE = textwrap.dedent(
    """
    import argparse, asyncio, json, sys
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.commands.tui_cmd import create_app

    seen = {}
    original = AiqApp._first_frame

    def first_frame(self):
        seen["modules"] = sorted(sys.modules)  # before the warm-up worker starts
        original(self)

    AiqApp._first_frame = first_frame

    async def main():
        app = create_app(argparse.Namespace(provider=sys.argv[1] if len(sys.argv) > 1 else None))
        async with app.run_test(size=(120, 36)) as pilot:
            while "modules" not in seen:
                await pilot.pause(0.01)
            seen["ready_at_first_frame"] = app.engine is not None
            while not any(w.group == "warm-up" for w in app.workers):  # started once the engine is built
                await pilot.pause(0.01)
            await app.workers.wait_for_complete([w for w in app.workers if w.group == "warm-up"])
            seen["after"] = sorted(sys.modules)
            seen["exact"] = app.engine.breakdown.exact
        print(json.dumps(seen))

    asyncio.run(main())
    """
)

NOT_BEFORE_FIRST_FRAME = (
    "textual.widgets._markdown",
    "markdown_it",
    "tiktoken",
    "httpx",
    "httpx_sse",
    "sqlite3",
    "_sqlite3",
    "psycopg",
    "pymysql",
    "aiq_tui.llm.openai",
    "aiq_tui.llm.anthropic",
    "aiq_tui.llm.sse",
    "aiq_tui.tools.sample_db",
    "aiq_tui.ui.widgets.answer",
    # The engine and the tools are built behind the first frame (AiqApp.starting). The catalog
    # (skills.catalog, skills.discover, context.tokens for its estimates) is read beside the
    # UI's imports and the frame, so that the skills are listed with it (issue 24 §3).
    "aiq_tui.agent.engine",
    "aiq_tui.agent.skillset",
    "aiq_tui.ranking.match",
    "Stemmer",  # PyStemmer (the matcher's Snowball stemmer): loaded on the first stem
    "aiq_tui.tools.registry",
    "aiq_tui.tools.base",
    "aiq_tui.tools.launcher",
    "aiq_tui.events",
    "pydantic",  # the config model is msgspec: pydantic's import alone was ~0.2 s
    # The Tools / Timeline tabs are mounted after the first frame (the Timeline with the engine):
    # TabbedContent, the tool log's DataTable; no RichLog (it loads rich.pretty and attrs).
    "textual.widgets._tabbed_content",
    "textual.widgets._data_table",
    "textual.widgets._rich_log",
    "rich.pretty",
    "attr",
    "rich._emoji_codes",  # markup's emoji table: no str label or title is parsed as markup first
)


def first_frame_modules(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    # Module-scoped (one interpreter start for all assertions), so it sets its own homes.
    base = tmp_path_factory.mktemp("startup-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(base))
        patch.setenv("AIQ_HOME", str(base / ".aiqconfig"))
        return first_frame_modules()


@pytest.mark.parametrize("module", NOT_BEFORE_FIRST_FRAME)
def test_the_first_frame_does_not_wait_for(
    started: dict[str, object], module: str
) -> None:
    assert module not in started["modules"]


def test_no_screen_but_the_main_one_is_imported_before_the_first_frame(
    started: dict[str, object],
) -> None:
    screens = [
        name for name in started["modules"] if name.startswith("aiq_tui.ui.screens.")
    ]  # type: ignore[union-attr]
    assert screens == []


def test_the_first_frame_does_not_wait_for_the_engine(
    started: dict[str, object],
) -> None:
    assert started["ready_at_first_frame"] is False


def test_after_the_warm_up_the_tokenizer_is_loaded_and_counts_are_exact(
    started: dict[str, object],
) -> None:
    # The guard above would pass trivially if the probe never saw a real start: it did.
    assert "tiktoken" in started["after"]
    assert "aiq_tui.ui.widgets.timeline" in started["after"]
    assert "aiq_tui.ui.widgets.answer" in started["after"]
    assert started["exact"] is True


def test_the_probe_catches_a_start_that_imports_a_screen(isolated_home: Home) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import aiq_tui.ui.screens.help\n" + PROBE],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = json.loads(done.stdout.strip().splitlines()[-1])["modules"]
    assert "aiq_tui.ui.screens.help" in modules
    assert "textual.widgets._markdown" in modules


def test_a_real_provider_is_created_behind_the_first_frame(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # With an HTTP provider the client library is still not paid for before the frame: the
    # provider is built with the engine, after it.
    base = tmp_path_factory.mktemp("startup-openai")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(base))
        patch.setenv("AIQ_HOME", str(base / ".aiqconfig"))
        patch.setenv("OPENAI_API_KEY", "sk-test-not-used")
        seen = first_frame_modules("openai")
    assert (
        "httpx" not in seen["modules"] and "aiq_tui.llm.openai" not in seen["modules"]
    )
    assert "aiq_tui.llm.openai" in seen["after"]


def test_telemetry_loads_behind_the_first_frame_and_only_when_an_endpoint_is_set(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # With OTEL_EXPORTER_OTLP_ENDPOINT set the SDK is started with the engine, after the frame
    # (and then in a thread of its own): the frame pays neither for it nor for the decision.
    base = tmp_path_factory.mktemp("startup-otel")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(base))
        patch.setenv("AIQ_HOME", str(base / ".aiqconfig"))
        patch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
        seen = first_frame_modules()
    assert not [
        m
        for m in seen["modules"]
        if m.startswith(("opentelemetry", "aiq_tui.telemetry"))
    ]
    assert "aiq_tui.telemetry" in seen["after"], (
        "the probe saw the engine start telemetry"
    )


def test_without_an_endpoint_the_sdk_is_never_imported(
    started: dict[str, object],
) -> None:
    assert not [m for m in started["after"] if m.startswith("opentelemetry")]  # type: ignore[union-attr]
