"""The TUI's token counter starts on the estimator and switches to the real encoding when
its warm-up thread calls load(); no estimate survives the switch."""

from __future__ import annotations

import threading

from aiq_tui.context.tokens import TokenCounter, estimate_tokens
from aiq_tui.conversation import Message, Role

TEXT = (
    "Counting tokens honestly: the estimator and tiktoken disagree on this sentence. "
    * 3
)


def test_a_deferred_counter_estimates_until_loaded_then_counts_exactly() -> None:
    counter = TokenCounter(model="aiq-demo", deferred=True)
    assert (counter.pending, counter.exact, counter.encoding) == (
        True,
        False,
        "estimate",
    )
    assert counter.count(TEXT) == estimate_tokens(TEXT)
    assert counter.load() is True
    assert (counter.pending, counter.exact, counter.encoding) == (
        False,
        True,
        "cl100k_base",
    )
    assert (
        counter.count(TEXT)
        == TokenCounter(model="aiq-demo").count(TEXT)
        != estimate_tokens(TEXT)
    )
    assert counter.load() is False  # once


def test_message_counts_made_while_pending_are_recounted() -> None:
    counter = TokenCounter(model="aiq-demo", deferred=True)
    message = Message(role=Role.USER, content=TEXT, id="m1")
    estimated = counter.count_message(message)
    counter.load()
    assert (
        counter.count_message(message)
        == TokenCounter(model="aiq-demo").count_message(message)
        != estimated
    )


def test_loading_from_several_threads_loads_once() -> None:
    counter = TokenCounter(model="aiq-demo", deferred=True)
    results: list[bool] = []
    threads = [
        threading.Thread(target=lambda: results.append(counter.load()))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False, False, False, True]


def test_the_estimator_chosen_in_config_is_never_pending() -> None:
    counter = TokenCounter("estimate", model="aiq-demo", deferred=True)
    assert (
        counter.pending is False and counter.load() is False and counter.exact is False
    )
