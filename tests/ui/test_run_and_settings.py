"""Starting the TUI from the CLI, and saving settings to config.yaml."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
import yaml

from aiq_tui.commands.tui_cmd import run_tui
from aiq_tui.config import ConfigError
from aiq_tui.ui.config_file import save_settings


def test_broken_config_exits_2_with_message_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("context:\n  window: -5\n")
    assert run_tui(argparse.Namespace(home=str(tmp_path))) == 2
    err = capsys.readouterr().err
    assert "config.yaml" in err and "context.window" in err and "Traceback" not in err


def test_unknown_provider_exits_2_listing_the_known_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_tui(argparse.Namespace(home=str(tmp_path), provider="nope")) == 2
    err = capsys.readouterr().err
    assert "unknown provider 'nope'" in err and "demo" in err and "Traceback" not in err


def test_settings_are_saved_atomically_and_keep_other_keys(tmp_path: Path) -> None:
    path = tmp_path / "config" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("ui:\n  show_banner: false\n")
    config = save_settings(
        path,
        {
            "llm": {"provider": "openai", "model": "gpt-4o"},
            "context": {"window": 32000, "compress_at": 0.75},
        },
    )
    data = yaml.safe_load(path.read_text())
    assert data["ui"] == {"show_banner": False}
    assert (
        data["llm"]["provider"] == "openai"
        and data["llm"]["providers"]["openai"]["model"] == "gpt-4o"
    )
    assert config.context.window == 32000 and config.context.compress_at == 0.75
    assert [p.name for p in path.parent.iterdir()] == [
        "config.yaml"
    ]  # no temp file left behind


def test_invalid_settings_are_refused_and_nothing_is_written(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    with pytest.raises(ConfigError):
        save_settings(path, {"context": {"compress_at": 0.99, "evict_at": 0.5}})
    assert not path.exists()


def test_a_refused_setting_is_named_with_what_it_must_be(tmp_path: Path) -> None:
    from aiq_tui.ui.config_file import validation_message

    path = tmp_path / "config.yaml"
    with pytest.raises(ConfigError) as info:
        save_settings(path, {"context": {"window": 0}})
    assert (
        validation_message(info.value)
        == "context.window: must be an integer ≥ 1 or null (got 0)"
    )
    assert not path.exists()
