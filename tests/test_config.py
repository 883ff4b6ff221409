"""Config model: seed defaults live in one place; bad files give clear errors."""

from __future__ import annotations

import pytest

from aiq_tui.config import AppConfig, ConfigError, load_config, load_sources
from aiq_tui.locations import Home, resolve_home


def test_defaults_are_the_seeds_numbers() -> None:
    config = AppConfig()
    assert config.matching.top_k == 3
    assert (config.disclosure.brief_threshold, config.disclosure.full_threshold) == (0.15, 0.7)
    assert (config.context.compress_at, config.context.evict_at, config.context.aggressive_at) == (0.80, 0.90, 0.95)
    assert (config.context.keep_last, config.context.keep_last_aggressive) == (10, 5)
    assert config.llm.provider == "demo"


def test_missing_config_file_means_defaults(isolated_home: Home) -> None:
    assert load_config(isolated_home) == AppConfig()


def test_bad_yaml_names_file_and_line(isolated_home: Home) -> None:
    isolated_home.ensure()
    isolated_home.config_file.write_text("matching:\n  top_k: 3\n  bad: [unclosed\n")
    with pytest.raises(ConfigError) as info:
        load_config(isolated_home)
    assert str(isolated_home.config_file) in str(info.value)
    assert info.value.line is not None and info.value.line >= 3


def test_wrong_value_names_the_field(isolated_home: Home) -> None:
    isolated_home.ensure()
    isolated_home.config_file.write_text("context:\n  keep_last: lots\n")
    with pytest.raises(ConfigError) as info:
        load_config(isolated_home)
    assert info.value.field == "context.keep_last"


def test_unknown_key_is_an_error_not_ignored(isolated_home: Home) -> None:
    isolated_home.ensure()
    isolated_home.config_file.write_text("matching:\n  topk: 5\n")
    with pytest.raises(ConfigError, match="topk"):
        load_config(isolated_home)


def test_thresholds_must_be_ordered() -> None:
    with pytest.raises(ValueError):
        AppConfig.model_validate({"context": {"compress_at": 0.95, "evict_at": 0.9}})


def test_user_provider_merges_with_builtin_ones() -> None:
    config = AppConfig.model_validate(
        {"llm": {"provider": "local", "providers": {"local": {"kind": "openai", "model": "llama3", "base_url": "http://127.0.0.1:11434/v1"}}}}
    )
    assert config.llm.active().model == "llama3"
    assert "demo" in config.llm.providers


def test_sample_source_is_always_available(isolated_home: Home) -> None:
    sources = load_sources(isolated_home)
    assert sources.default == "sample"
    assert sources.sources["sample"].read_only


def test_home_precedence_flag_then_env_then_default(tmp_path) -> None:
    assert resolve_home(tmp_path / "flag", {"AIQ_HOME": str(tmp_path / "env")}).root == tmp_path / "flag"
    assert resolve_home(None, {"AIQ_HOME": str(tmp_path / "env")}).root == tmp_path / "env"
    assert resolve_home(None, {}).root.name == ".aiqconfig"
