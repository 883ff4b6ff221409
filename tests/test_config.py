"""Config model: seed defaults live in one place; bad files give clear errors."""

from __future__ import annotations

import copy

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aiq_tui.config import (
    AppConfig,
    ConfigError,
    ContextSettings,
    load_config,
    load_sources,
    validate_config,
)
from aiq_tui.locations import Home, resolve_home


def test_defaults_are_the_seeds_numbers() -> None:
    config = AppConfig()
    assert config.matching.top_k == 3
    assert (config.disclosure.brief_threshold, config.disclosure.full_threshold) == (
        0.15,
        0.7,
    )
    assert (
        config.context.compress_at,
        config.context.evict_at,
        config.context.aggressive_at,
    ) == (0.80, 0.90, 0.95)
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


def test_wrong_value_names_the_file_the_field_and_what_it_must_be(
    isolated_home: Home,
) -> None:
    isolated_home.ensure()
    isolated_home.config_file.write_text("context:\n  keep_last: lots\n")
    with pytest.raises(ConfigError) as info:
        load_config(isolated_home)
    assert info.value.field == "context.keep_last"
    assert info.value.message == 'must be an integer ≥ 1 (got "lots")'
    assert (
        str(info.value)
        == f'{isolated_home.config_file} [context.keep_last]: must be an integer ≥ 1 (got "lots")'
    )


def test_unknown_key_is_an_error_not_ignored(isolated_home: Home) -> None:
    isolated_home.ensure()
    isolated_home.config_file.write_text("matching:\n  topk: 5\n")
    with pytest.raises(ConfigError, match="topk") as info:
        load_config(isolated_home)
    assert info.value.field == "matching.topk"
    assert "unknown setting `topk` (did you mean `top_k`?" in info.value.message


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (
            {"context": {"compress_at": 1.5}},
            "context.compress_at",
            "must be a number > 0 and ≤ 1 (got 1.5)",
        ),
        (
            {"context": {"window": 0}},
            "context.window",
            "must be an integer ≥ 1 or null (got 0)",
        ),
        (
            {"matching": {"semantic": "maybe"}},
            "matching.semantic",
            'must be one of: auto, on, off (got "maybe")',
        ),
        ({"ui": {"show_banner": 1}}, "ui.show_banner", "must be true or false (got 1)"),
        ({"skills": {"dirs": ["ok", 3]}}, "skills.dirs[1]", "must be text (got 3)"),
        ({"skills": 3}, "skills", "must be a mapping of settings (got 3)"),
        (
            {"llm": {"providers": {"local": {"kind": "ollama"}}}},
            "llm.providers.local.kind",
            'must be one of: openai, anthropic, demo (got "ollama")',
        ),
        (
            {"llm": {"providers": {"local": {"model": "m"}}}},
            "llm.providers.local.kind",
            "is missing (must be one of: openai, anthropic, demo)",
        ),
        (
            {"tools": {"permissions": {"file_write": "never"}}},
            "tools.permissions.file_write",
            'must be one of: allow, ask, deny (got "never")',
        ),
        (
            {"llm": {"context_windows": {8080: 5}}},
            "llm.context_windows",
            "names must be text (got 8080; put it in quotes)",
        ),
        (
            {"colour": "blue"},
            "colour",
            "unknown setting `colour` (check the spelling; see docs/configuration.md)",
        ),
    ],
)
def test_each_kind_of_wrong_value_is_said_plainly(
    data: dict, field: str, message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        validate_config(data)
    assert (info.value.field, info.value.message) == (field, message)


def test_types_are_strict_but_an_int_is_a_number() -> None:
    # YAML already types values: a quoted number is text, and is refused with the fix.
    with pytest.raises(ConfigError) as info:
        validate_config({"context": {"keep_last": "5"}})
    assert info.value.message == 'must be an integer ≥ 1 (got "5"; remove the quotes)'
    with pytest.raises(ConfigError, match="must be an integer"):
        validate_config({"context": {"keep_last": 5.5}})
    config = validate_config(
        {"context": {"catalog_share": 1}, "tools": {"command_timeout_seconds": 10}}
    )
    assert config.context.catalog_share == 1.0 and isinstance(
        config.tools.command_timeout_seconds, float
    )


def test_yaml_on_off_still_names_the_semantic_mode() -> None:
    assert validate_config({"matching": {"semantic": False}}).matching.semantic == "off"
    assert validate_config({"matching": {"semantic": True}}).matching.semantic == "on"


def test_thresholds_must_be_ordered() -> None:
    with pytest.raises(ConfigError) as info:
        validate_config({"context": {"compress_at": 0.95, "evict_at": 0.9}})
    assert info.value.field == "context"
    assert "compress_at <= evict_at <= aggressive_at" in info.value.message
    with pytest.raises(ValueError):  # the same rule holds for a section built in code
        ContextSettings(compress_at=0.95, evict_at=0.9)


def test_compression_can_be_switched_off_and_the_switch_is_a_boolean() -> None:
    assert AppConfig().context.compression is True
    assert (
        validate_config({"context": {"compression": False}}).context.compression
        is False
    )
    with pytest.raises(ConfigError) as info:
        validate_config({"context": {"compression": "off"}})
    assert info.value.field == "context.compression"


def test_unknown_provider_names_the_known_ones() -> None:
    with pytest.raises(ConfigError) as info:
        validate_config({"llm": {"provider": "nope"}})
    assert (
        info.value.field == "llm"
        and "known: anthropic, demo, openai" in info.value.message
    )


def test_copies_are_independent_and_equal() -> None:
    config = validate_config({"context": {"window": 4096}})
    twin = copy.deepcopy(config)
    twin.context.window = 8192
    assert config.context.window == 4096
    resized = msgspec.structs.replace(config.context, window=16_000)
    assert (resized.window, resized.compress_at, config.context.window) == (
        16_000,
        0.80,
        4096,
    )


def test_user_provider_merges_with_builtin_ones() -> None:
    config = validate_config(
        {
            "llm": {
                "provider": "local",
                "providers": {
                    "local": {
                        "kind": "openai",
                        "model": "llama3",
                        "base_url": "http://127.0.0.1:11434/v1",
                    }
                },
            }
        }
    )
    assert config.llm.active().model == "llama3"
    assert "demo" in config.llm.providers


def test_sample_source_is_always_available(isolated_home: Home) -> None:
    sources = load_sources(isolated_home)
    assert sources.default == "sample"
    assert sources.sources["sample"].read_only


def test_home_precedence_flag_then_env_then_default(tmp_path) -> None:
    assert (
        resolve_home(tmp_path / "flag", {"AIQ_HOME": str(tmp_path / "env")}).root
        == tmp_path / "flag"
    )
    assert (
        resolve_home(None, {"AIQ_HOME": str(tmp_path / "env")}).root == tmp_path / "env"
    )
    assert resolve_home(None, {}).root.name == ".aiqconfig"


def test_loading_a_good_config_imports_no_validation_framework(
    isolated_home: Home,
) -> None:
    # Issue 15: pydantic cost ~0.3 s of every start; the wording of errors loads only on an error.
    import subprocess
    import sys

    isolated_home.ensure()
    isolated_home.config_file.write_text("context:\n  window: 32000\n")
    probe = (
        "import sys; from aiq_tui.config import load_config; from aiq_tui.locations import Home; "
        f"load_config(Home(__import__('pathlib').Path({str(isolated_home.root)!r}))); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic' or m == 'aiq_tui.config_errors'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-1000:]
    assert done.stdout.strip() == "[]"


_ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**7),
    st.floats(-2, 2, allow_nan=False),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(
        st.sampled_from(["kind", "model", "x"]), st.text(max_size=3), max_size=2
    ),
)


@settings(max_examples=150, deadline=None)
@given(
    section=st.sampled_from([f.name for f in msgspec.structs.fields(AppConfig)]),
    name=st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=25),
    value=_ODD_VALUES,
    use_real_name=st.booleans(),
    data=st.data(),
)
def test_any_wrong_value_is_refused_with_a_field_inside_its_section(
    section, name, value, use_real_name, data
) -> None:
    section_type = type(getattr(AppConfig(), section))
    if use_real_name:
        name = data.draw(st.sampled_from(section_type.__struct_fields__))
    try:
        validate_config({section: {name: value}})
    except ConfigError as exc:
        assert exc.field is not None and (
            exc.field == section or exc.field.startswith(f"{section}.")
        ), exc
        assert "Expected" not in exc.message and "$." not in exc.message, exc
