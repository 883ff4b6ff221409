"""Tool call latency: SQL on the sample database, command start-up, file read, registry overhead."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiq_tui.config import ToolSettings, load_sources
from aiq_tui.conversation import ToolCall
from aiq_tui.locations import Home
from aiq_tui.tools.base import ToolResult
from aiq_tui.tools.command import CommandTool
from aiq_tui.tools.files import FileOperationsTool
from aiq_tui.tools.registry import ToolRegistry
from aiq_tui.tools.sample_db import ensure_sample_database
from aiq_tui.tools.sql import SqlTool


async def _timed(call: Callable[[], Awaitable[Any]], runs: int) -> dict[str, float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        result = await call()
        samples.append((time.perf_counter() - started) * 1000)
        if not result.ok:
            raise RuntimeError(result.error)
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 3),
        "p95_ms": round(samples[int(len(samples) * 0.95) - 1], 3),
    }


async def _run() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Home(Path(tmp) / "home")
        home.ensure()
        project = Path(tmp) / "project"
        project.mkdir()
        (project / "notes.md").write_text("hello\n" * 1000)
        settings = ToolSettings()
        started = time.perf_counter()
        ensure_sample_database(home.sample_database)
        build_ms = (time.perf_counter() - started) * 1000
        sql = SqlTool(settings, home=home, sources=load_sources(home))
        files = FileOperationsTool(settings, home=home, cwd=project)
        command = CommandTool(settings, home=home, cwd=project)
        registry = ToolRegistry([sql, files, command])
        join = (
            "SELECT c.name, sum(oi.quantity * oi.unit_price) s FROM customers c JOIN orders o ON o.customer_id = c.id "
            "JOIN order_items oi ON oi.order_id = o.id GROUP BY c.id ORDER BY s DESC LIMIT 10"
        )
        figures = {
            "sample_db_build_ms": round(build_ms, 2),
            "sql_point_select": await _timed(
                lambda: sql.run({"sql": "SELECT * FROM books WHERE id = 7"}), 200
            ),
            "sql_join_aggregate": await _timed(lambda: sql.run({"sql": join}), 100),
            "file_read_6kb": await _timed(
                lambda: files.run({"operation": "read", "path": "notes.md"}), 200
            ),
            "command_echo": await _timed(
                lambda: command.run({"command": ["echo", "hi"]}), 30
            ),
            "registry_invoke_sql": await _timed(
                lambda: registry.invoke(
                    ToolCall("b", "execute_sql", {"sql": "SELECT 1"}),
                    None,
                    lambda e: None,
                ),
                200,
            ),
        }
        # The sandbox's cost: ratios to the same command with the sandbox off and to a bare
        # exec, measured in this same run.
        import os

        from aiq_tui.tools.launcher import sandbox_mode

        figures["command_sandbox"] = sandbox_mode()
        os.environ["AIQ_SANDBOX"] = "off"
        try:
            figures["command_echo_policy_only"] = await _timed(
                lambda: command.run({"command": ["echo", "hi"]}), 30
            )
        finally:
            del os.environ["AIQ_SANDBOX"]

        async def direct() -> Any:
            process = await asyncio.create_subprocess_exec(
                "echo", "hi", stdout=asyncio.subprocess.PIPE
            )
            await process.communicate()
            return ToolResult(ok=process.returncode == 0, content=None, summary="")

        figures["command_echo_direct_exec"] = await _timed(direct, 30)
        figures["command_sandbox_ratio"] = round(
            figures["command_echo"]["median_ms"]
            / figures["command_echo_policy_only"]["median_ms"],
            2,
        )
        figures["command_launcher_ratio_to_direct"] = round(
            figures["command_echo"]["median_ms"]
            / figures["command_echo_direct_exec"]["median_ms"],
            2,
        )
        figures.update(await _template_figures())
        sql.close()
        return figures


async def _template_figures() -> dict[str, Any]:
    """A template skill renders in a stoppable child process: its cost, as a ratio to the same
    template rendered in this process by jinja2's sandbox (what it did before), same run."""
    from jinja2.sandbox import SandboxedEnvironment

    from aiq_tui.skills.executor import SkillExecutor, SkillProgram

    program = SkillProgram(
        "greet", "template", {"template": "Hello {{.who}}{{range .xs}} {{.}}{{end}}"}
    )
    params = {"who": "there", "xs": list(range(20))}
    executor = SkillExecutor()

    async def child() -> ToolResult:
        await executor.execute(program, params)
        return ToolResult(ok=True, content=None, summary="")

    async def in_process() -> ToolResult:
        SandboxedEnvironment().from_string(
            "Hello {{ who }}{% for x in xs %} {{ x }}{% endfor %}"
        ).render(**params)
        return ToolResult(ok=True, content=None, summary="")

    rendered = await _timed(child, 20)
    baseline = await _timed(in_process, 20)
    return {
        "template_render": rendered,
        "template_render_in_process": baseline,
        "template_render_ratio_to_in_process": round(
            rendered["median_ms"] / baseline["median_ms"], 1
        ),
    }


def run() -> dict[str, Any]:
    return asyncio.run(_run())


if __name__ == "__main__":
    print(run())
