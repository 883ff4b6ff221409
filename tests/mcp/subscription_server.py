"""A 2025-era MCP server for the resource subscription tests, written on the wire (JSON-RPC over
stdio, no SDK): it answers ``server/discover`` with "method not found", so the client falls back
to the ``initialize`` handshake and ``resources/subscribe`` as 2025-06-18 has them.

``python subscription_server.py [--no-subscribe]``

Resources: ``notes://a`` and ``notes://b`` (their text changes with ``edit``). Capability
``resources.subscribe`` unless ``--no-subscribe``. Tools: ``edit`` (``uri``, ``text``: set a
resource's text, no notification), ``remove`` (``uri``: reading it fails from then on), ``touch`` (``uri``, ``times``: send that many
``notifications/resources/updated`` for it, whether subscribed or not, before answering),
``requests`` (every ``resources/subscribe`` and ``resources/unsubscribe`` received, as JSON
``[[method, uri], …]``: what a test waits on).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

TOOLS = [
    {
        "name": "edit",
        "description": "Set a resource's text.",
        "inputSchema": {
            "type": "object",
            "properties": {"uri": {"type": "string"}, "text": {"type": "string"}},
            "required": ["uri", "text"],
        },
    },
    {
        "name": "remove",
        "description": "Remove a resource (reading it fails from then on).",
        "inputSchema": {
            "type": "object",
            "properties": {"uri": {"type": "string"}},
            "required": ["uri"],
        },
    },
    {
        "name": "touch",
        "description": "Announce updates of a resource.",
        "inputSchema": {
            "type": "object",
            "properties": {"uri": {"type": "string"}, "times": {"type": "integer"}},
            "required": ["uri"],
        },
    },
    {
        "name": "requests",
        "description": "The subscribe and unsubscribe requests received.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-subscribe", action="store_true")
    args = parser.parse_args()
    notes = {"notes://a": "first text of a", "notes://b": "first text of b"}
    received: list[list[str]] = []
    resources: dict[str, Any] = {} if args.no_subscribe else {"subscribe": True}

    def text(content: str) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": content}], "isError": False}

    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method, ident, params = (
            message.get("method"),
            message.get("id"),
            message.get("params") or {},
        )
        if ident is None:
            continue  # a notification (initialized, cancelled)
        result: Any = None
        if method == "initialize":
            result = {
                "protocolVersion": "2025-06-18",
                "serverInfo": {"name": "subscriptions", "version": "1"},
                "capabilities": {"tools": {}, "resources": resources},
            }
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "resources/list":
            result = {
                "resources": [
                    {
                        "uri": uri,
                        "name": uri.rsplit("/", 1)[-1],
                        "mimeType": "text/plain",
                    }
                    for uri in notes
                ]
            }
        elif method == "resources/templates/list":
            result = {"resourceTemplates": []}
        elif method == "resources/read":
            uri = params.get("uri")
            if uri not in notes:
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": ident,
                        "error": {"code": -32002, "message": f"no resource {uri}"},
                    }
                )
                continue
            result = {
                "contents": [{"uri": uri, "mimeType": "text/plain", "text": notes[uri]}]
            }
        elif method in ("resources/subscribe", "resources/unsubscribe"):
            received.append([method, str(params.get("uri"))])
            if args.no_subscribe:
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": ident,
                        "error": {"code": -32601, "message": "not supported"},
                    }
                )
                continue
            result = {}
        elif method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments") or {}
            if name == "edit":
                notes[arguments["uri"]] = arguments["text"]
                result = text("edited")
            elif name == "remove":
                notes.pop(arguments["uri"], None)
                result = text("removed")
            elif name == "touch":
                for _ in range(int(arguments.get("times", 1))):
                    send(
                        {
                            "jsonrpc": "2.0",
                            "method": "notifications/resources/updated",
                            "params": {"uri": arguments["uri"]},
                        }
                    )
                result = text("touched")
            elif name == "requests":
                result = text(json.dumps(received))
        elif method == "ping":
            result = {}
        if result is None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "error": {"code": -32601, "message": f"no method {method}"},
                }
            )
        else:
            send({"jsonrpc": "2.0", "id": ident, "result": result})


if __name__ == "__main__":
    main()
