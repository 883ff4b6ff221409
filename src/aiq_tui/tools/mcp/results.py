"""A server's ``CallToolResult`` as a :class:`~aiq_tui.tools.base.ToolResult`: what the model
receives and the tool log shows.

* text parts are passed as they are, joined by blank lines;
* an embedded text resource is passed with its URI; a binary one, an image or audio is
  described (type, size, URI) — the conversation carries text only, and base64 would only
  fill the window;
* structured content is passed as JSON when the server sent no text for it;
* the whole text is cut to ``mcp.result_max_bytes`` (UTF-8), and says so;
* ``isError`` comes back as a failed result with the server's own words.

Works on the SDK's objects by attribute (``type``, ``text``, …) so this module imports no SDK.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from aiq_tui.tools.base import ToolResult


def _size(encoded: str | None) -> str:
    """The decoded size of base64 text, for people (``12.3 KB``)."""
    if not encoded:
        return "0 bytes"
    count = len(encoded) * 3 // 4 - encoded[-2:].count("=")
    return f"{count} bytes" if count < 1024 else f"{count / 1024:.1f} KB"


def _mime(part: Any) -> str:
    return str(
        getattr(part, "mime_type", None)
        or getattr(part, "mimeType", None)
        or "unknown type"
    )


def part_text(part: Any) -> tuple[str, str]:
    """``(kind, text)`` for one content part."""
    kind = str(getattr(part, "type", "unknown"))
    if kind == "text":
        return kind, str(getattr(part, "text", ""))
    if kind in ("image", "audio"):
        return (
            kind,
            f"[{kind}: {_mime(part)}, {_size(getattr(part, 'data', None))} — not passed on: "
            "this conversation carries text only]",
        )
    if kind == "resource_link":
        name = getattr(part, "name", "") or ""
        description = getattr(part, "description", None)
        extra = f" — {description}" if description else ""
        return (
            kind,
            f"[resource link: {getattr(part, 'uri', '')} {name} ({_mime(part)}){extra}]",
        )
    if kind == "resource":
        resource = getattr(part, "resource", None)
        uri = getattr(resource, "uri", "")
        text = getattr(resource, "text", None)
        if text is not None:
            return kind, f"[resource {uri} ({_mime(resource)})]\n{text}"
        return (
            kind,
            f"[resource {uri}: {_mime(resource)}, {_size(getattr(resource, 'blob', None))} binary]",
        )
    return kind, f"[{kind} content]"


def cut_utf8(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` UTF-8 bytes at a character boundary; whether it was cut."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", "ignore"), True


def convert(result: Any, limit: int, server: str) -> ToolResult:
    """``result`` (an SDK ``CallToolResult``) within ``limit`` bytes of text."""
    parts: Sequence[Any] = getattr(result, "content", None) or ()
    pieces = [part_text(part) for part in parts]
    texts = [text for _, text in pieces]
    structured = getattr(result, "structured_content", None)
    if structured is None:
        structured = getattr(result, "structuredContent", None)
    if structured is not None and not any(kind == "text" for kind, _ in pieces):
        texts.append(json.dumps(structured, ensure_ascii=False, default=str))
        pieces.append(("structured", ""))
    whole = "\n\n".join(texts)
    size = len(whole.encode("utf-8", "surrogatepass"))
    text, cut = cut_utf8(whole, limit)
    if cut:
        text += (
            f"\n…[cut: {len(text.encode('utf-8', 'surrogatepass')):,} of {size:,} bytes shown "
            "(mcp.result_max_bytes)]"
        )
    kinds = ", ".join(dict.fromkeys(kind for kind, _ in pieces)) or "empty"
    is_error = bool(
        getattr(result, "is_error", None) or getattr(result, "isError", None)
    )
    if is_error:
        return ToolResult.failure(
            f"{server}: {text or 'the tool reported an error without a message'}"
        )
    summary = f"{kinds}, {size:,} bytes" + (" (cut)" if cut else "")
    return ToolResult(ok=True, content=text, summary=summary)
