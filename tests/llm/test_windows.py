"""The context window follows the provider's model, from one table, and says where it came from."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from aiq_tui.agent.engine import Engine
from aiq_tui.cli import main
from aiq_tui.config import AppConfig, ContextSettings, LLMSettings, ProviderSettings
from aiq_tui.llm.demo import DemoProvider
from aiq_tui.llm.windows import KNOWN_WINDOWS, known_window, resolve_window
from aiq_tui.workspace import Workspace
from tests.agent.helpers import write_config


@pytest.mark.parametrize(
    ("model", "tokens"),
    [
        ("gpt-4o", 128_000),
        ("gpt-4o-mini", 128_000),
        ("gpt-4.1", 1_047_576),
        ("gpt-4.1-nano", 1_047_576),
        ("gpt-5", 400_000),
        ("gpt-5-mini", 400_000),
        ("o3-mini", 200_000),
        ("o1-mini", 128_000),
        ("gpt-4-1106-preview", 128_000),
        ("gpt-4", 8_192),
        ("openai/gpt-4o", 128_000),
        ("claude-sonnet-4-5", 200_000),
        ("claude-opus-4-1-20250805", 200_000),
        ("claude-3-7-sonnet-latest", 200_000),
        ("claude-3-5-haiku-20241022", 200_000),
        ("claude-haiku-4-5", 200_000),
        ("llama3.1:8b", 131_072),
        ("meta-llama/Llama-3.3-70B-Instruct", 131_072),
        ("llama3", 8_192),
        ("qwen2.5-coder:7b", 32_768),
        ("mistral", 32_768),
        ("mistral-nemo", 131_072),
        ("gemma3:12b", 131_072),
        ("gemma3:1b", 32_768),
        ("gemma2:9b", 8_192),
    ],
)
def test_known_models_find_their_window_by_longest_prefix(
    model: str, tokens: int
) -> None:
    assert known_window(model) == tokens


def test_an_unknown_model_is_not_guessed() -> None:
    assert known_window("my-finetune") is None and known_window("") is None
    assert all(tokens > 0 for tokens in KNOWN_WINDOWS.values())


def _config(**llm: object) -> AppConfig:
    return AppConfig(llm=LLMSettings(**llm))  # type: ignore[arg-type]


def test_default_providers_take_their_window_from_the_model() -> None:
    config = AppConfig()
    assert (
        resolve_window(config, "openai").label == "128,000 (gpt-4o-mini · known model)"
    )
    assert (
        resolve_window(config, "anthropic").label
        == "200,000 (claude-sonnet-4-5 · known model)"
    )
    assert resolve_window(config, "demo").label == "8,192 (aiq-demo · provider default)"
    assert resolve_window(config).tokens == 8_192  # the active provider: demo


def test_changing_the_model_changes_the_window() -> None:
    config = _config(
        provider="openai",
        providers={"openai": ProviderSettings(kind="openai", model="gpt-4.1")},
    )
    assert resolve_window(config).tokens == 1_047_576


def test_the_order_of_sources_config_then_provider_then_own_table_then_known_then_default() -> (
    None
):
    local = ProviderSettings(
        kind="openai", model="llama3.1:8b", base_url="http://127.0.0.1:11434/v1"
    )
    config = _config(provider="local", providers={"local": local})
    assert resolve_window(config).label == "131,072 (llama3.1:8b · known model)"
    config = _config(
        provider="local",
        providers={"local": local},
        context_windows={"llama3.1": 16_384},
    )
    assert (
        resolve_window(config).label
        == "16,384 (llama3.1:8b · config: llm.context_windows)"
    )
    sized = msgspec.structs.replace(local, context_window=4_096)
    config = _config(
        provider="local",
        providers={"local": sized},
        context_windows={"llama3.1": 16_384},
    )
    assert (
        resolve_window(config).label
        == "4,096 (llama3.1:8b · config: llm.providers.local.context_window)"
    )
    config.context = ContextSettings(window=32_000)
    assert (
        resolve_window(config).label == "32,000 (llama3.1:8b · config: context.window)"
    )
    unknown = _config(
        provider="x",
        providers={"x": ProviderSettings(kind="openai", model="my-finetune")},
    )
    assert resolve_window(unknown).label == "8,192 (my-finetune · provider default)"


def test_the_engine_budgets_against_the_provider_it_runs_and_follows_a_swap(
    tmp_path: Path,
) -> None:
    engine = Engine.create(Workspace.open(home_flag=tmp_path / "home"), "anthropic")
    assert engine.window == 200_000 and engine.window_info.source == "known model"
    assert engine.breakdown.window == 200_000
    assert (
        engine.current_prompt().breakdown.window_source
        == "200,000 (claude-sonnet-4-5 · known model)"
    )
    engine.provider = DemoProvider()  # e.g. a provider chosen in Settings
    assert engine.window == 8_192 and engine.current_prompt().breakdown.window == 8_192


def test_a_config_table_entry_reaches_the_engine(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, "llm:\n  context_windows:\n    gpt-4o-mini: 50000\n")
    engine = Engine.create(Workspace.open(home_flag=home), "openai")
    assert (
        engine.window == 50_000 and engine.window_info.setting == "llm.context_windows"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["--provider", "anthropic", "prompt", "hello", "--json"],
        ["prompt", "--provider", "anthropic", "hello", "--json"],
    ],
)
def test_prompt_honours_provider_before_or_after_the_command(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["breakdown"]["window"] == 200_000
    assert data["window_source"] == "200,000 (claude-sonnet-4-5 · known model)"


def test_prompt_text_names_the_window_and_window_flag_wins(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["prompt", "hello"]) == 0
    assert "window 8,192 (aiq-demo · provider default)" in capsys.readouterr().out
    assert main(["prompt", "--window", "20000", "hello", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["window_source"] == "20,000 (--window)"


def test_ask_json_budget_events_carry_the_window_source(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ask", "--json", "how many customers are there?"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    budget = [line for line in lines if line["type"] == "budget_changed"][-1][
        "breakdown"
    ]
    assert (
        budget["window"] == 8_192
        and budget["window_source"] == "8,192 (aiq-demo · provider default)"
    )


def test_an_unknown_provider_is_a_usage_error_on_any_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--provider", "nope", "prompt", "hello"]) == 2
    assert (
        "unknown provider 'nope'; known: anthropic, demo, openai"
        in capsys.readouterr().err
    )
