"""Template skills render without approval — a cloned repository's included — and jinja2's
sandbox is a Python-level fence with a record of escapes (CVE-2024-56326, CVE-2025-27516). So the
renderer runs inside the OS sandbox like any process a skill brings (issue 23 held out): if a
template ever got past jinja2, it would still read no file, write nothing and reach nothing.
"""

from __future__ import annotations

import asyncio
import os
import tomllib
from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.skills.executor import SkillExecutor, SkillProgram

SLOW = (
    "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}"
)


def _workers() -> list[int]:
    """Processes running the renderer itself (``python -I …/template_worker.py``; the sandbox
    helper that starts it names it too, after ``--``)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    argv = handle.read().split(b"\0")
            except OSError:
                continue
            if len(argv) > 2 and argv[2].endswith(b"template_worker.py"):
                found.append(int(entry))
    return found


@pytest.mark.needs("landlock")
async def test_the_template_renderer_runs_restricted_by_the_launcher() -> None:
    executor = SkillExecutor(ToolSettings(template_timeout_seconds=60))
    render = asyncio.ensure_future(
        executor.execute(SkillProgram("slow", "template", {"template": SLOW}), {})
    )
    try:
        status = ""
        for _ in range(
            600
        ):  # until the worker is up (a condition, not a sleep of a guessed length)
            for pid in _workers():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
            if status:
                break
            await asyncio.sleep(0.05)
        assert status, "the template worker never started"
        fields = dict(
            line.split(":\t", 1) for line in status.splitlines() if ":\t" in line
        )
        assert fields["NoNewPrivs"].strip() == "1"
        assert (
            fields["Seccomp"].strip() == "2"
        )  # the launcher's filter: no UNIX sockets
    finally:
        render.cancel()
        with pytest.raises(asyncio.CancelledError):
            await render
    for _ in range(200):
        if not _workers():
            break
        await asyncio.sleep(0.05)
    assert _workers() == []  # a cancelled turn leaves no renderer behind


def test_the_jinja2_range_excludes_releases_with_known_sandbox_escapes() -> None:
    from packaging.requirements import Requirement

    pyproject = tomllib.loads(
        (Path(__file__).parents[2] / "pyproject.toml").read_text()
    )
    jinja = next(
        Requirement(line)
        for line in pyproject["project"]["dependencies"]
        if Requirement(line).name.lower() == "jinja2"
    )
    for escaped in ("3.1.0", "3.1.4", "3.1.5"):
        assert not jinja.specifier.contains(escaped), (
            f"jinja2 {escaped} has a known sandbox escape"
        )
    assert jinja.specifier.contains("3.1.6")
