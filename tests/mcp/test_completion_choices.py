"""What the prompt offers while ``@SERVER:URI`` or ``/mcp__SERVER__PROMPT [name=value…]`` is
typed (:mod:`aiq_tui.tools.mcp.completion`): pure functions over the servers' lists."""

from __future__ import annotations

from aiq_tui.tools.mcp.catalog import Prompt, PromptArgument, Resource
from aiq_tui.tools.mcp.completion import (
    MAX_CHOICES,
    Completion,
    ValueRequest,
    accept,
    completion_at,
    value_choices,
)

RESOURCES = [
    Resource("notes", "notes://today", "today", "Today's note"),
    Resource("notes", "notes://week", "week"),
    Resource("notes", "notes://day/{day}", "day", "A day's note", template=True),
    Resource(
        "notes", "notes://month/{month}/day/{day}.txt", "month day", template=True
    ),
    Resource("files", "file:///{+path}", "file", template=True),
    Resource("docs", "docs://guide", "handbook", "The guide"),
]
PROMPTS = [
    Prompt(
        "notes",
        "review",
        "Review something",
        (
            PromptArgument("topic", "What to review", True),
            PromptArgument("depth", "How deep"),
        ),
    ),
    Prompt("notes", "hello", "Say hello"),
    Prompt(
        "docs",
        "summarise",
        "Summarise a page",
        (PromptArgument("page", required=True),),
    ),
]


def _at(
    line: str, cursor: int | None = None, completions: bool = True
) -> Completion | None:
    return completion_at(
        line,
        len(line) if cursor is None else cursor,
        RESOURCES,
        PROMPTS,
        lambda _server: completions,
    )


def _texts(line: str, cursor: int | None = None) -> list[str]:
    found = _at(line, cursor)
    return [choice.text for choice in found.choices] if found else []


# -- @SERVER:URI ---------------------------------------------------------------------------------


def test_at_offers_every_resource_and_template_of_the_ready_servers() -> None:
    assert _texts("@") == [
        "@notes:notes://today",
        "@notes:notes://week",
        "@notes:notes://day/",
        "@notes:notes://month/",
        "@files:file:///",
        "@docs:docs://guide",
    ]


def test_at_filters_by_server_uri_and_name_prefix_matches_first() -> None:
    assert _texts("@doc") == ["@docs:docs://guide"]  # server name
    assert _texts("@hand") == ["@docs:docs://guide"]  # the resource's name
    assert _texts("@week") == ["@notes:notes://week"]  # inside the URI
    assert _texts("@notes:notes://d") == ["@notes:notes://day/"]
    assert _texts("@nothing-like-this") == []


def test_a_choice_shows_the_template_and_the_resources_name_and_description() -> None:
    found = _at("@notes:notes://da")
    assert found is not None
    [choice] = found.choices
    assert (choice.label, choice.detail, choice.final) == (
        "@notes:notes://day/{day}",
        "template · day · A day's note",
        False,
    )
    today = _at("@today")
    assert (
        today is not None
        and today.choices[0].detail == "today · Today's note"
        and today.choices[0].final
    )


def test_at_completes_the_word_at_the_cursor_anywhere_in_the_line_only_at_a_words_start() -> (
    None
):
    line = "compare @wee with last year"
    found = _at(line, cursor=len("compare @wee"))
    assert found is not None and (found.start, found.end) == (
        len("compare "),
        len("compare @wee"),
    )
    assert _texts("mail me at a@b") == []  # not a mention (as attach_mentions reads it)
    assert _texts("an email@") == []


def test_a_typed_mention_in_full_offers_nothing_more() -> None:
    assert _at("@notes:notes://today") is None


def test_a_template_variable_is_asked_of_the_server_with_the_variables_before_it() -> (
    None
):
    found = _at("@notes:notes://day/mo")
    assert found is not None and found.choices == ()
    assert found.request == ValueRequest(
        "notes",
        "ref/resource",
        "notes://day/{day}",
        "day",
        "mo",
        head="@notes:notes://day/",
        last=True,
    )
    second = _at("@notes:notes://month/may%20x/day/fi")
    assert second is not None and second.request is not None
    assert (
        second.request.argument,
        second.request.value,
        second.request.context,
        second.request.tail,
        second.request.last,
    ) == ("day", "fi", (("month", "may x"),), ".txt", True)
    first = _at("@notes:notes://month/ma")
    assert first is not None and first.request is not None
    assert (first.request.argument, first.request.tail, first.request.last) == (
        "month",
        "/day/",
        False,
    )


def test_no_request_when_the_server_offers_no_completions() -> None:
    found = _at("@notes:notes://day/mo", completions=False)
    assert found is None or found.request is None


def test_values_of_a_template_variable_are_percent_encoded_unless_reserved() -> None:
    day = ValueRequest(
        "notes",
        "ref/resource",
        "notes://day/{day}",
        "day",
        "",
        head="@notes:notes://day/",
    )
    assert [c.text for c in value_choices(day, ["monday", "a b/c"], 200)] == [
        "@notes:notes://day/monday",
        "@notes:notes://day/a%20b%2Fc",
    ]
    path = _at("@files:file:///ho")
    assert path is not None and path.request is not None and path.request.reserved
    assert [c.text for c in value_choices(path.request, ["home/ada"], 200)] == [
        "@files:file:///home/ada"
    ]


# -- /mcp__SERVER__PROMPT -------------------------------------------------------------------------


def test_mcp_offers_every_prompt_with_its_description_and_arguments() -> None:
    found = _at("/mcp__")
    assert found is not None
    assert [(c.text, c.detail) for c in found.choices] == [
        ("/mcp__notes__review", "Review something · topic= depth=?"),
        ("/mcp__notes__hello", "Say hello"),
        ("/mcp__docs__summarise", "Summarise a page · page="),
    ]
    assert _texts("/mcp__notes__r") == ["/mcp__notes__review"]
    assert _texts("/mcp__summ") == [
        "/mcp__docs__summarise"
    ]  # a prompt's name anywhere after /mcp__
    assert _texts("/mcp") == _texts("/mcp__")


def test_built_in_commands_and_a_later_word_are_not_mcp_prompts() -> None:
    assert (
        _at("/m") is None and _at("/skill re") is None
    )  # the inline suggestion's, as before
    assert _at("tell me /mcp__") is None


def test_a_prompt_with_arguments_is_final_so_tab_opens_its_arguments() -> None:
    found = _at("/mcp__notes__rev")
    assert found is not None
    line, cursor = accept("/mcp__notes__rev", found, found.choices[0])
    assert (line, cursor) == ("/mcp__notes__review ", len("/mcp__notes__review "))
    arguments = _at(line, cursor)
    assert arguments is not None
    assert [(c.text, c.detail) for c in arguments.choices] == [
        ("topic=", "required · What to review"),
        ("depth=", "optional · How deep"),
    ]


def test_argument_names_leave_out_the_ones_given_and_filter_by_prefix() -> None:
    assert _texts("/mcp__notes__review topic=x ") == ["depth="]
    assert _texts("/mcp__notes__review d") == ["depth="]
    assert _texts("/mcp__notes__hello ") == []  # no arguments


def test_an_argument_value_is_asked_with_the_other_arguments_as_context() -> None:
    found = _at("/mcp__notes__review topic='the code' depth=d")
    assert found is not None and found.request == ValueRequest(
        "notes",
        "ref/prompt",
        "review",
        "depth",
        "d",
        (("topic", "the code"),),
        "depth=",
    )
    assert _at("/mcp__notes__review depth=d", completions=False) is None


def test_a_value_with_spaces_is_quoted_so_the_command_reads_it_back_whole() -> None:
    request = ValueRequest("notes", "ref/prompt", "review", "topic", "", head="topic=")
    assert [c.text for c in value_choices(request, ["the plan", "code"], 200)] == [
        "topic='the plan'",
        "topic=code",
    ]


# -- the server's values ---------------------------------------------------------------------------


def test_values_are_capped_at_mcps_hundred_bounded_in_length_and_printable() -> None:
    request = ValueRequest("notes", "ref/prompt", "review", "topic", "", head="topic=")
    many = [f"v{index}" for index in range(300)]
    assert len(value_choices(request, many, 200)) == MAX_CHOICES
    odd = [
        "ok",
        "x" * 201,
        "bell\x07",
        "esc\x1b]52;c;",
        "two\nlines",
        42,
        None,
        "",
        "ok",
    ]
    assert [c.text for c in value_choices(request, odd, 200)] == ["topic=ok"]


def test_accepting_keeps_the_rest_of_the_line_and_a_final_choice_gets_one_space() -> (
    None
):
    line = "read @to and @week"
    found = _at(line, cursor=len("read @to"))
    assert found is not None
    assert accept(line, found, found.choices[0]) == (
        "read @notes:notes://today and @week",
        len("read @notes:notes://today"),
    )
    end = _at("read @to")
    assert end is not None and accept("read @to", end, end.choices[0]) == (
        "read @notes:notes://today ",
        len("read @notes:notes://today "),
    )
