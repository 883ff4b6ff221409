"""The fold of a watched MCP resource's update: said in the conversation when it happened, with
what the next message will do; what that message did is in the timeline, and in the
conversation when it is not what was said (the same text, or a failed re-read)."""

from __future__ import annotations

from aiq_tui.events import McpResourceRefreshed, McpResourceUpdated
from aiq_tui.replay.record import compact_event, live_record
from aiq_tui.replay.state import fold


def test_an_update_of_an_attached_resource_is_said_with_what_the_next_message_does() -> (
    None
):
    state = fold([live_record(McpResourceUpdated("s", "notes://a", "attached"))])
    assert [(e.kind, e.text) for e in state.conversation] == [
        (
            "notice",
            "↻ resource @s:notes://a updated on the server — your next message re-reads it and "
            "sends the model its new text",
        )
    ]
    assert [entry[1:] for entry in state.timeline] == [("mcp", "@s:notes://a updated")]


def test_an_update_of_a_resource_the_model_read_says_the_model_is_told() -> None:
    state = fold([live_record(McpResourceUpdated("s", "notes://b", "read"))])
    assert state.conversation[-1].text.endswith(
        "your next message tells the model, which read it earlier"
    )


def test_what_the_next_message_did_is_in_the_timeline_and_a_surprise_in_the_conversation() -> (
    None
):
    events = [
        McpResourceRefreshed("s", "notes://a", "attached", "16 bytes"),
        McpResourceRefreshed("s", "notes://b", "told"),
        McpResourceRefreshed("s", "notes://c", "unchanged", "15 bytes"),
        McpResourceRefreshed("s", "notes://d", "failed", "no resource notes://d"),
    ]
    state = fold([live_record(event) for event in events])
    assert [entry[2] for entry in state.timeline] == [
        "@s:notes://a new text sent with your message (16 bytes)",
        "@s:notes://b the model is told it changed",
        "@s:notes://c re-read: the same text you attached, not sent again",
        "@s:notes://d could not be re-read (no resource notes://d); the model is told so",
    ]
    assert [(e.text, e.style) for e in state.conversation] == [
        ("↻ @s:notes://c re-read: the same text you attached, not sent again", "info"),
        (
            "↻ @s:notes://d could not be re-read (no resource notes://d); the model is told so",
            "warning",
        ),
    ]


def test_the_session_saves_the_events_as_they_are_folded_live() -> None:
    event = McpResourceUpdated("s", "notes://a", "attached")
    assert (
        compact_event(event)
        == live_record(event)
        == {
            "type": "mcp_resource_updated",
            "server": "s",
            "uri": "notes://a",
            "use": "attached",
        }
    )
