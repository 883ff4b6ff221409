"""The first frame does not wait for MCP: with two servers configured, neither the SDK nor
pydantic (which it brings) is imported before the frame; the servers start behind it."""

from __future__ import annotations

import json

import pytest

from tests.mcp.conftest import fixture_server
from tests.startup.test_first_frame_imports import first_frame_modules


@pytest.mark.slow
def test_two_configured_servers_do_not_delay_the_first_frame(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    base = tmp_path_factory.mktemp("startup-mcp")
    home = base / ".aiqconfig"
    (home / "config").mkdir(parents=True)
    servers = {"one": fixture_server(), "two": fixture_server()}
    (home / "config" / "config.yaml").write_text(
        json.dumps({"mcp": {"servers": servers}})
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(base))
        patch.setenv("AIQ_HOME", str(home))
        seen = first_frame_modules()
    for module in (
        "mcp",
        "mcp_types",
        "pydantic",
        "anyio",
        "aiq_tui.tools.mcp.connection",
    ):
        assert module not in seen["modules"], module
