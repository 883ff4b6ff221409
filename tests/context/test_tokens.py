"""Seed 000 — "Estimate token count": exact counts, the estimator, caching, chat framing."""

from __future__ import annotations

import hashlib

import pytest

from aiq_tui.config import validate_config
from aiq_tui.context import tokens as tokens_module
from aiq_tui.context.tokens import (
    MESSAGE_OVERHEAD,
    REPLY_PRIMER,
    TOOL_CALL_OVERHEAD,
    TokenCounter,
    encoding_for_model,
    estimate_tokens,
)
from aiq_tui.conversation import Message, Role, ToolCall, ToolSpec


def test_counts_are_exact_with_offline_cl100k() -> None:
    counter = TokenCounter()
    assert counter.exact and counter.encoding == "cl100k_base"
    # Known cl100k facts: "hello world" is two tokens, "tiktoken is great!" six.
    assert counter.count("hello world") == 2
    assert counter.count("tiktoken is great!") == 6


@pytest.mark.parametrize(
    "model, wanted",
    [
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-4.1", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("claude-sonnet-4-5", "cl100k_base"),
        ("aiq-demo", "cl100k_base"),
    ],
)
def test_encoding_is_chosen_per_model(model: str, wanted: str) -> None:
    assert encoding_for_model(model) == wanted


def test_config_encoding_overrides_the_model_choice() -> None:
    assert encoding_for_model("gpt-4o", "cl100k_base") == "cl100k_base"
    config = validate_config({"context": {"encoding": "estimate"}})
    assert not TokenCounter.for_config(config).exact


def test_o200k_without_a_cached_file_falls_back_to_cl100k_without_network(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # empty cache
    counter = TokenCounter(model="gpt-4o")
    assert counter.info.wanted == "o200k_base"
    assert counter.encoding == "cl100k_base" and counter.exact
    assert "not in tiktoken's cache" in counter.info.note


def test_a_corrupt_cached_o200k_file_is_not_used(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    url = tokens_module._REMOTE_FILES["o200k_base"][0]
    (tmp_path / hashlib.sha1(url.encode()).hexdigest()).write_bytes(b"garbage")
    assert not tokens_module.cached_offline("o200k_base")
    assert TokenCounter(model="gpt-4o").encoding == "cl100k_base"


def test_when_no_encoding_loads_the_estimator_is_used_and_marked_estimated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(name: str, cache_dir: object = None):
        raise RuntimeError("no tiktoken here")

    monkeypatch.setattr(tokens_module, "_load", broken)
    counter = TokenCounter()
    assert not counter.exact and counter.encoding == "estimate"
    assert "estimated" in counter.info.note
    assert counter.count("a" * 40) == 10


def test_estimator_ascii_is_about_four_chars_per_token() -> None:
    assert estimate_tokens("abcd" * 25) == 25
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("") == 0


def test_estimator_cjk_is_about_one_token_per_char() -> None:
    assert estimate_tokens("日本語のテキスト") == 8
    assert estimate_tokens("한국어") == 3


def test_estimator_other_scripts_fall_in_between() -> None:
    assert estimate_tokens("Привет") == 3  # 6 Cyrillic letters at ½ token each


def test_estimator_stays_near_real_counts_for_english() -> None:
    sample = (
        "The budget is what users watch in the gauge; it must be exact, cheap to update "
        "and honest. Counts are cached per message so adding one costs only the new text. "
    ) * 5
    exact = TokenCounter().count(sample)
    assert abs(estimate_tokens(sample) - exact) / exact < 0.35


def test_a_switch_to_a_model_of_the_same_encoding_keeps_every_count() -> None:
    counter = TokenCounter(model="gpt-4")
    counter.count("hello world")
    assert counter.retarget("claude-sonnet-4-5") is False  # cl100k for both
    misses = counter.misses
    counter.count("hello world")
    assert counter.misses == misses and counter.exact


def test_a_switch_to_another_encoding_estimates_until_it_is_loaded() -> None:
    counter = TokenCounter(model="gpt-4")
    assert counter.count("hello world") == 2
    assert counter.retarget("gpt-4", "estimate") is True
    assert counter.pending and not counter.exact and counter.info.wanted == "estimate"
    assert counter.load() is True and counter.encoding == "estimate"
    assert counter.count("hello world") == estimate_tokens("hello world")


def test_repeated_text_is_served_from_the_cache() -> None:
    counter = TokenCounter()
    counter.count("some text to count")
    misses = counter.misses
    counter.count("some text to count")
    assert counter.misses == misses and counter.hits >= 1


def test_message_cost_includes_framing_and_tool_call_arguments() -> None:
    counter = TokenCounter()
    plain = Message(Role.USER, "hello world", id="m1")
    assert counter.count_message(plain) == MESSAGE_OVERHEAD + 2
    call = ToolCall("c1", "http_get", {"url": "https://example.com/a"})
    with_call = Message(Role.ASSISTANT, "", tool_calls=(call,), id="m2")
    expected = (
        MESSAGE_OVERHEAD
        + TOOL_CALL_OVERHEAD
        + counter.count("http_get")
        + counter.count(call.arguments_json())
    )
    assert counter.count_message(with_call) == expected


def test_message_cache_notices_changed_content_under_the_same_id() -> None:
    counter = TokenCounter()
    assert counter.count_message(
        Message(Role.USER, "one", id="x")
    ) != counter.count_message(Message(Role.USER, "one two three four five", id="x"))


def test_system_prompt_and_tool_specs_are_counted() -> None:
    counter = TokenCounter()
    assert counter.count_system("hello world") == MESSAGE_OVERHEAD + 2 + REPLY_PRIMER
    spec = ToolSpec("use_skill", "Load a skill by name")
    assert counter.count_tool_spec(spec) > counter.count("Load a skill by name")


@pytest.mark.parametrize("estimate", [False, True])
def test_truncate_keeps_within_the_token_cap(estimate: bool) -> None:
    counter = TokenCounter("estimate" if estimate else None)
    text = "word " * 500 + "日本語" * 50
    cut = counter.truncate(text, 37)
    assert counter.count(cut) <= 37 and text.startswith(cut) and cut
