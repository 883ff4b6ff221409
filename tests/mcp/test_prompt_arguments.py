"""How a /mcp__server__prompt command line becomes the prompt's arguments, and what a server's
form field accepts."""

from __future__ import annotations

from aiq_tui.tools.mcp.catalog import Prompt, PromptArgument, mentions
from aiq_tui.tools.mcp.elicitation import ElicitationField, coerce
from aiq_tui.ui.mcp_prompts import arguments_request, prompt_arguments

REVIEW = Prompt(
    "p",
    "review",
    "Review something",
    (PromptArgument("topic", required=True), PromptArgument("depth")),
)


def test_arguments_are_named_or_taken_in_order() -> None:
    assert prompt_arguments(REVIEW, "") == {}
    assert prompt_arguments(REVIEW, "plans") == {"topic": "plans"}
    assert prompt_arguments(REVIEW, "'the plan' long") == {
        "topic": "the plan",
        "depth": "long",
    }
    assert prompt_arguments(REVIEW, "depth=long the plan") == {
        "depth": "long",
        "topic": "the plan",
    }


def test_missing_required_arguments_are_asked_with_what_was_given() -> None:
    request = arguments_request(REVIEW, {"depth": "long"})
    assert [(f.name, f.required, f.default) for f in request.fields] == [
        ("topic", True, None),
        ("depth", False, "long"),
    ]


def test_a_form_field_checks_what_was_typed() -> None:
    assert coerce(ElicitationField("n", "integer", required=True), "") == (
        None,
        "n is required",
    )
    assert coerce(ElicitationField("n", "integer"), "4") == (4, "")
    assert (
        coerce(ElicitationField("n", "integer"), "four")[1]
        == "n: expected a whole number"
    )
    assert coerce(ElicitationField("ok", "boolean"), "yes") == (True, "")
    assert (
        coerce(ElicitationField("c", "choice", choices=("red", "blue")), "green")[1]
        == "c: one of red, blue"
    )
    fish = ElicitationField("fish", "multi", choices=("cod", "eel"))
    assert coerce(fish, "cod, eel") == (["cod", "eel"], "")
    assert coerce(fish, "cod, shark")[1] == "fish: shark is not one of cod, eel"


def test_a_multiple_choice_field_is_read_from_the_servers_schema() -> None:
    from aiq_tui.tools.mcp.elicitation import request_from

    schema = {
        "type": "object",
        "properties": {
            "fish": {
                "type": "array",
                "title": "Fish",
                "items": {
                    "anyOf": [
                        {"const": "cod", "title": "Cod"},
                        {"const": "eel", "title": "Eel"},
                    ]
                },
                "default": ["cod"],
            }
        },
    }
    request = request_from(
        "s", {"mode": "form", "message": "?", "requestedSchema": schema}
    )
    assert request.fields == (
        ElicitationField("fish", "multi", "Fish", "", False, ["cod"], ("cod", "eel")),
    )


def test_mentions_name_a_server_and_a_uri_with_its_scheme() -> None:
    assert mentions("see @fs:file:///tmp/a.txt, and @docs:demo://x/y.") == [
        ("fs", "file:///tmp/a.txt"),
        ("docs", "demo://x/y"),
    ]
    assert mentions("mail me@host:8080 or @home later") == []
