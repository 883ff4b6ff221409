"""Conversation messages, shared by the prompt builder, providers, sessions and the engine."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Role(str, Enum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


@dataclass(frozen=True)
class ToolCall:
    """A model's request to run a tool. ``arguments`` is the decoded JSON object."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def arguments_json(self) -> str:
        return json.dumps(self.arguments, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class Message:
    """One message of the conversation.

    Assistant messages may carry ``tool_calls``; each is answered by a TOOL message with the
    same ``tool_call_id``. A summary written by compression is a USER-visible SYSTEM-ish
    message flagged ``summary=True`` so it is never summarised as if it were fresh talk.
    """

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None  # tool name for TOOL messages
    summary: bool = False
    id: str = ""  # stable id for caching token counts and UI keys

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role.value, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments}
                for c in self.tool_calls
            ]
        if self.tool_call_id:
            data["tool_call_id"] = self.tool_call_id
        if self.name:
            data["name"] = self.name
        if self.summary:
            data["summary"] = True
        if self.id:
            data["id"] = self.id
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Message:
        return cls(
            role=Role(data["role"]),
            content=str(data.get("content") or ""),
            tool_calls=tuple(
                ToolCall(
                    id=c["id"], name=c["name"], arguments=dict(c.get("arguments") or {})
                )
                for c in data.get("tool_calls") or ()
            ),
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            summary=bool(data.get("summary", False)),
            id=str(data.get("id") or ""),
        )


@dataclass(frozen=True)
class ToolSpec:
    """A tool as a model sees it: name, description and a JSON-schema for its arguments."""

    name: str
    description: str
    parameters: dict[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {},
            "additionalProperties": False,
        }
    )
