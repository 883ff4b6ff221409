"""A stdio MCP server for the trace tests, on the SDK's own server: its tool ``whoami`` answers
with the ``params._meta`` its request carried, and with ``TRACED_SERVER_OTLP`` set (a base URL)
the server exports its own spans there — the SDK's server middleware makes one per request,
parented on the context it extracts from ``_meta``, as any instrumented server would.

``python traced_mcp_server.py [--http PORT]`` (stdio: the test starts it through aiq-tui's MCP
config; ``--http``: streamable HTTP on 127.0.0.1).
"""

from __future__ import annotations

import argparse
import json
import os

from mcp.server.mcpserver import Context, MCPServer


def export_spans(endpoint: str) -> None:
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(
        resource=Resource.create({"service.name": "traced-mcp-server"})
    )
    # Simple (synchronous): the span is delivered before the answer is sent.
    provider.add_span_processor(
        SimpleSpanProcessor(
            OTLPSpanExporter(endpoint=f"{endpoint.rstrip('/')}/v1/traces")
        )
    )
    trace.set_tracer_provider(provider)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=0)
    args = parser.parse_args()
    endpoint = os.environ.get("TRACED_SERVER_OTLP", "")
    if endpoint:
        export_spans(endpoint)
    server = MCPServer("traced")

    @server.tool(description="Say which _meta the request carried.")
    def whoami(ctx: Context) -> str:
        meta = ctx.request_context.meta or {}
        return json.dumps(
            {
                "meta": {
                    key: value
                    for key, value in dict(meta).items()
                    if isinstance(value, str)
                }
            }
        )

    if args.http:
        import uvicorn

        uvicorn.run(
            server.streamable_http_app(),
            host="127.0.0.1",
            port=args.http,
            log_level="warning",
        )
    else:
        server.run()


if __name__ == "__main__":
    main()
