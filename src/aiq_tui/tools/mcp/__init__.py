"""MCP servers as tools: the agent calls each server's tools as ``mcp__<server>__<tool>``.

* :mod:`.servers` — which servers exist: ``config.yaml`` (trusted) and the project's
  ``.mcp.json`` (Claude Code's format; untrusted until the project is trusted or the server is
  approved), each as a :class:`~.servers.ServerDefinition`. Pure, no SDK.
* :mod:`.approvals` — the user's one-time approvals of a project's servers, in the config home.
* :mod:`.connection` — one running server through the official ``mcp`` SDK (imported there
  only, in a thread, after the first frame).
* :mod:`.results` — a tool result (text, images, resources, errors) as the model receives it.
* :mod:`.tool` — one server tool behind the registry's permission policy.
* :mod:`.catalog` — a server's resources and prompts as values; a resource's or prompt's text
  within ``mcp.resource_max_bytes``; ``@server:uri`` mentions.
* :mod:`.resource_tool` — ``mcp__<server>__read_resource``, the model's way to read them.
* :mod:`.elicitation` — a server's question to the user, and the headless answer.
* :mod:`.sampling` — a server's request to use the model (only with ``mcp.sampling``).
* :mod:`.fleet` — every server of a session: start, approve, watch, stop, and which tools
  fit ``mcp.tools_share`` of the window.
* :mod:`.completion` — what the prompt offers while ``@SERVER:URI`` or ``/mcp__…`` is typed,
  and the ``completion/complete`` request for a template variable's or an argument's values.
* :mod:`.search` — ``tool_search``: the model finds the tools past the share; they are offered
  from its next request on.
* :mod:`.subscriptions` — the resources a conversation uses, watched (``resources/subscribe``):
  an update is announced once and carried by the user's next message.
"""
