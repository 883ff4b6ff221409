"""Fake OpenAI and Anthropic servers on 127.0.0.1 speaking the real SSE wire formats.

A :class:`FakeModelServer` answers each POST with the next scripted :class:`Reply` (HTTP/1.1,
chunked transfer encoding, keep-alive) and records every request. Replies can complete, drop
the connection mid-stream, or stall (to test timeouts and cancellation). Builders produce
frames exactly as the APIs send them: ``data: {...}`` chunks ending with ``data: [DONE]`` for
OpenAI; ``event: ...`` + ``data: {...}`` pairs for Anthropic.

Import as ``from tests.llm.fakes import ...`` (pytest runs from the repository root).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

End = Literal["complete", "drop", "stall"]


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes | float] = field(
        default_factory=list
    )  # a float sleeps that long first
    end: End = "complete"


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: Any


def sse_reply(
    frames: Iterable[str],
    *,
    end: End = "complete",
    delay: float = 0.0,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> Reply:
    chunks: list[bytes | float] = []
    for frame in frames:
        if delay:
            chunks.append(delay)
        chunks.append(frame.encode("utf-8"))
    return Reply(
        status,
        {"content-type": "text/event-stream; charset=utf-8", **(headers or {})},
        chunks,
        end,
    )


def json_reply(status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    return Reply(
        status,
        {"content-type": "application/json", **(headers or {})},
        [json.dumps(body).encode("utf-8")],
    )


def rechunk(reply: Reply, size: int) -> Reply:
    """The same bytes cut at arbitrary boundaries (mid-line, mid-UTF-8), as TCP may deliver them."""
    data = b"".join(c for c in reply.chunks if isinstance(c, bytes))
    pieces: list[bytes | float] = [
        data[i : i + size] for i in range(0, len(data), size)
    ]
    return Reply(reply.status, reply.headers, pieces, reply.end)


class FakeModelServer:
    """``async with FakeModelServer([reply, ...]) as server: server.base_url``."""

    def __init__(
        self,
        replies: Sequence[Reply] = (),
        respond: Callable[[RecordedRequest], Reply] | None = None,
    ):
        self.replies = list(replies)
        self.respond = (
            respond  # when given: the reply to each request, chosen from the request
        )
        self.requests: list[RecordedRequest] = []
        self.disconnected = (
            asyncio.Event()
        )  # a client went away while we were streaming
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> FakeModelServer:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()

    async def _handle(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while await self._one_request(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            self.disconnected.set()
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _one_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        head = await reader.readuntil(b"\r\n\r\n") if not reader.at_eof() else b""
        if not head:
            return False
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        body: Any = json.loads(raw) if raw else None
        self.requests.append(RecordedRequest(method, path, headers, body))
        if self.respond is not None:
            reply = self.respond(self.requests[-1])
        else:
            reply = (
                self.replies.pop(0)
                if self.replies
                else json_reply(500, {"error": {"message": "no scripted reply"}})
            )
        status_line = (
            f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}\r\n"
        )
        head_out = status_line + "".join(
            f"{k}: {v}\r\n" for k, v in reply.headers.items()
        )
        head_out += "transfer-encoding: chunked\r\n\r\n"
        writer.write(head_out.encode("latin-1"))
        await writer.drain()
        for chunk in reply.chunks:
            if isinstance(chunk, float):
                await asyncio.sleep(chunk)
                continue
            writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            await writer.drain()
        if reply.end == "drop":
            writer.transport.abort()  # no terminating chunk: the client sees a cut stream
            return False
        if reply.end == "stall":
            # Wait for the client to give up (timeout or cancel): read() returns b"" on close.
            await reader.read()
            self.disconnected.set()
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
    529: "Overloaded",
}


# -- OpenAI Chat Completions wire format ------------------------------------------------------


def _openai_chunk(
    choices: list[dict[str, Any]],
    usage: dict[str, int] | None = None,
    model: str = "gpt-4o-mini",
) -> str:
    data = {
        "id": "chatcmpl-fake123",
        "object": "chat.completion.chunk",
        "created": 1731000000,
        "model": model,
        "system_fingerprint": "fp_fake",
        "choices": choices,
        "usage": usage,
    }
    return f"data: {json.dumps(data, separators=(',', ':'))}\n\n"


def _openai_choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}


OPENAI_DONE = "data: [DONE]\n\n"


def openai_text_stream(
    parts: Sequence[str],
    *,
    finish: str = "stop",
    usage: tuple[int, int] = (12, 7),
    done: bool = True,
) -> list[str]:
    frames = [
        _openai_chunk(
            [_openai_choice({"role": "assistant", "content": "", "refusal": None})]
        )
    ]
    frames += [_openai_chunk([_openai_choice({"content": part})]) for part in parts]
    frames.append(_openai_chunk([_openai_choice({}, finish)]))
    frames.append(
        _openai_chunk(
            [],
            {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": sum(usage),
            },
        )
    )
    if done:
        frames.append(OPENAI_DONE)
    return frames


def _split(text: str, pieces: int) -> list[str]:
    step = max(1, -(-len(text) // pieces))
    return [text[i : i + step] for i in range(0, len(text), step)] or [""]


def openai_tool_stream(
    calls: Sequence[tuple[str, str, str]],
    *,
    pieces: int = 6,
    text: str = "",
    usage: tuple[int, int] = (40, 20),
) -> list[str]:
    """Tool calls (id, name, raw argument text) streamed as the API does: the first delta of a
    call carries id, type and name with empty arguments, later deltas only argument pieces."""
    frames = [_openai_chunk([_openai_choice({"role": "assistant", "content": None})])]
    if text:
        frames.append(_openai_chunk([_openai_choice({"content": text})]))
    for index, (call_id, name, arguments) in enumerate(calls):
        frames.append(
            _openai_chunk(
                [
                    _openai_choice(
                        {
                            "tool_calls": [
                                {
                                    "index": index,
                                    "id": call_id,
                                    "type": "function",
                                    "function": {"name": name, "arguments": ""},
                                }
                            ]
                        }
                    )
                ]
            )
        )
        for piece in _split(arguments, pieces):
            frames.append(
                _openai_chunk(
                    [
                        _openai_choice(
                            {
                                "tool_calls": [
                                    {"index": index, "function": {"arguments": piece}}
                                ]
                            }
                        )
                    ]
                )
            )
    frames.append(_openai_chunk([_openai_choice({}, "tool_calls")]))
    frames.append(
        _openai_chunk(
            [],
            {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": sum(usage),
            },
        )
    )
    frames.append(OPENAI_DONE)
    return frames


# -- Anthropic Messages wire format -----------------------------------------------------------


def anthropic_frame(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _anthropic_start(input_tokens: int, model: str = "claude-sonnet-4-5") -> str:
    return anthropic_frame(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_fake01",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": model,
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": input_tokens, "output_tokens": 1},
            },
        },
    )


def _anthropic_end(stop: str, output_tokens: int) -> list[str]:
    return [
        anthropic_frame(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        ),
        anthropic_frame("message_stop", {"type": "message_stop"}),
    ]


def _anthropic_text_block(index: int, parts: Sequence[str]) -> list[str]:
    frames = [
        anthropic_frame(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            },
        )
    ]
    frames += [
        anthropic_frame(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": p},
            },
        )
        for p in parts
    ]
    frames.append(
        anthropic_frame(
            "content_block_stop", {"type": "content_block_stop", "index": index}
        )
    )
    return frames


def anthropic_text_stream(
    parts: Sequence[str],
    *,
    stop: str = "end_turn",
    usage: tuple[int, int] = (25, 9),
    complete: bool = True,
) -> list[str]:
    frames = [_anthropic_start(usage[0]), anthropic_frame("ping", {"type": "ping"})]
    frames += _anthropic_text_block(0, parts)
    if complete:
        frames += _anthropic_end(stop, usage[1])
    return frames


def anthropic_tool_stream(
    calls: Sequence[tuple[str, str, str]],
    *,
    text: str = "",
    pieces: int = 6,
    usage: tuple[int, int] = (50, 30),
) -> list[str]:
    frames = [_anthropic_start(usage[0])]
    index = 0
    if text:
        frames += _anthropic_text_block(0, [text])
        index = 1
    for offset, (call_id, name, arguments) in enumerate(calls):
        i = index + offset
        frames.append(
            anthropic_frame(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": i,
                    "content_block": {
                        "type": "tool_use",
                        "id": call_id,
                        "name": name,
                        "input": {},
                    },
                },
            )
        )
        for piece in _split(arguments, pieces):
            frames.append(
                anthropic_frame(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                )
            )
        frames.append(
            anthropic_frame(
                "content_block_stop", {"type": "content_block_stop", "index": i}
            )
        )
    return frames + _anthropic_end("tool_use", usage[1])


def anthropic_error_event(
    error_type: str = "overloaded_error", message: str = "Overloaded"
) -> str:
    return anthropic_frame(
        "error", {"type": "error", "error": {"type": error_type, "message": message}}
    )


class ThreadedModelServer:
    """A :class:`FakeModelServer` on its own thread and event loop, for tests that call the
    CLI's ``main()`` (which runs ``asyncio.run`` itself): ``with ThreadedModelServer(replies)
    as model: ... model.server.base_url``."""

    def __init__(
        self,
        replies: Sequence[Reply] = (),
        respond: Callable[[RecordedRequest], Reply] | None = None,
    ) -> None:
        self.server = FakeModelServer(replies, respond=respond)
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        async def serve() -> None:
            self._stop = asyncio.Event()
            async with self.server:
                self._ready.set()
                await self._stop.wait()

        self._loop.run_until_complete(serve())

    def __enter__(self) -> ThreadedModelServer:
        self._thread.start()
        assert self._ready.wait(30), "the fake model server did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)
        self._loop.close()

    def sent_to_model(self) -> str:
        """Every request body the server received, as one JSON text (to search for leaks)."""
        return json.dumps(
            [request.body for request in self.server.requests], ensure_ascii=False
        )
