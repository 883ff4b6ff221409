"""The deterministic fallback summary and the provider-with-fallback wrapper."""

from __future__ import annotations

from aiq_tui.context.summary import fallback_summary, summarise_with_fallback
from aiq_tui.conversation import Message, Role, ToolCall

CONVERSATION = [
    Message(
        Role.USER,
        "Please check the Acme Corp report at /data/reports/q3.csv and https://example.com/api.",
    ),
    Message(
        Role.ASSISTANT,
        "We decided to use SQLite for the analysis. I will load the file next.",
        tool_calls=(ToolCall("c1", "file_read", {"path": "docs/notes.md"}),),
    ),
    Message(
        Role.TOOL,
        "Read 120 rows; revenue 3.5 million EUR; latency 42 ms",
        tool_call_id="c1",
        name="file_read",
    ),
    Message(Role.ASSISTANT, "Ada Lovelace owns the report."),
]


def test_fallback_summary_states_how_many_messages_it_replaces() -> None:
    assert fallback_summary(CONVERSATION).startswith(
        "[Earlier conversation: 4 messages summarised]"
    )


def test_fallback_summary_keeps_tool_results_with_the_tool_name() -> None:
    assert "- file_read: Read 120 rows; revenue 3.5 million EUR" in fallback_summary(
        CONVERSATION
    )


def test_fallback_summary_keeps_named_entities_numbers_paths_and_urls() -> None:
    summary = fallback_summary(CONVERSATION)
    for fact in (
        "Acme Corp",
        "Ada Lovelace",
        "/data/reports/q3.csv",
        "https://example.com/api",
        "docs/notes.md",
        "42 ms",
        "120 rows",
    ):
        assert fact in summary, fact
    assert (
        "https://example.com/api." not in summary
    )  # sentence punctuation is not part of a URL


def test_fallback_summary_keeps_decisions() -> None:
    summary = fallback_summary(CONVERSATION)
    assert "We decided to use SQLite for the analysis." in summary
    assert "I will load the file next." in summary


def test_fallback_summary_is_bounded_and_deterministic() -> None:
    many = [
        Message(
            Role.USER, f"We will use Tool Number{i} with /tmp/file{i}.txt and {i} ms."
        )
        for i in range(500)
    ]
    first = fallback_summary(many, max_chars=800)
    assert len(first) <= 800 and first == fallback_summary(many, max_chars=800)


def test_fallback_summary_carries_facts_of_an_earlier_summary() -> None:
    earlier = Message(Role.SYSTEM, fallback_summary(CONVERSATION), summary=True)
    again = fallback_summary([earlier, Message(Role.USER, "ok")])
    assert again.startswith("[Earlier conversation: 2 messages summarised]")
    assert "We decided to use SQLite" in again


async def test_provider_summary_is_used_when_it_works() -> None:
    async def provider(messages, max_tokens):
        return "They reviewed the Q3 report."

    result = await summarise_with_fallback(CONVERSATION, provider)
    assert result.source == "provider" and "They reviewed the Q3 report." in result.text
    assert result.text.startswith("[Earlier conversation: 4 messages summarised]")


async def test_provider_summary_failure_falls_back_to_the_deterministic_summary() -> (
    None
):
    async def provider(messages, max_tokens):
        raise RuntimeError("HTTP 503 from the model")

    result = await summarise_with_fallback(CONVERSATION, provider)
    assert result.source == "fallback" and "503" in result.error
    assert result.text == fallback_summary(CONVERSATION)


async def test_empty_provider_summary_falls_back() -> None:
    async def provider(messages, max_tokens):
        return "   "

    result = await summarise_with_fallback(CONVERSATION, provider)
    assert result.source == "fallback" and "empty" in result.error


async def test_no_provider_means_fallback() -> None:
    result = await summarise_with_fallback(CONVERSATION, None)
    assert result.source == "fallback"
