"""Template skills (issue 23, finding 5): rendering runs inside the turn, so it has a deadline,
an output cap and a memory bound, and fails with an error that names the limit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.skills.executor import SkillExecutionError, SkillExecutor, SkillProgram

NESTED = (
    "{{range .xs}}{{range xs}}{{range xs}}{{range xs}}{{end}}{{end}}{{end}}{{end}}done"
)
NESTED_JINJA = (
    "{% for a in xs %}{% for b in xs %}{% for c in xs %}{% for d in xs %}"
    "{% endfor %}{% endfor %}{% endfor %}{% endfor %}done"
)


def _skill(root: Path, template: str) -> None:
    folder = root / "grid-maker"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: grid-maker\ndescription: Expand a grid of cells from a list of rows\n"
        f"type: template\ntemplate: {json.dumps(template)}\n---\nExpands grids.\n",
        encoding="utf-8",
    )


def test_a_template_with_nested_loops_stops_at_its_deadline_through_aiq_tui_run(
    tmp_path: Path,
) -> None:
    """Finding 5: nested loops rendered forever inside the turn. Through the real command:
    ``aiq-tui run`` ends, with the deadline named, long before this test's own timeout."""
    _skill(tmp_path / "skills", NESTED_JINJA)
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "aiq_tui",
            "--skills-dir",
            str(tmp_path / "skills"),
            "run",
            "expand a grid of cells",
            "--min-confidence",
            "0",
            "--json",
            "-p",
            f"xs={json.dumps(list(range(400)))}",
        ],
        capture_output=True,
        text=True,
        timeout=90,
        env={**os.environ, "AIQ_HOME": str(tmp_path / "home")},
    )
    elapsed = time.monotonic() - started
    assert done.stdout, done.stderr
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["ran"] == "grid-maker" and not report["ok"]
    assert "tools.template_timeout_seconds" in report["error"]
    assert elapsed < ToolSettings().template_timeout_seconds + 60


@pytest.mark.parametrize("template", [NESTED, NESTED_JINJA])
async def test_nested_loops_fail_with_a_clear_error_at_the_deadline(
    template: str,
) -> None:
    executor = SkillExecutor(ToolSettings(template_timeout_seconds=1))
    program = SkillProgram("grid", "template", {"template": template})
    started = time.monotonic()
    with pytest.raises(
        SkillExecutionError,
        match=r"did not finish within 1 s \(tools.template_timeout_seconds\)",
    ):
        await executor.execute(program, {"xs": list(range(1000))})
    assert time.monotonic() - started < 30  # stopped, not waited out


async def test_output_past_the_cap_fails_with_a_clear_error() -> None:
    executor = SkillExecutor(ToolSettings(template_output_chars=10_000))
    program = SkillProgram(
        "big",
        "template",
        {"template": "{% for i in range(100000) %}{{ 'x' * 100 }}{% endfor %}"},
    )
    with pytest.raises(
        SkillExecutionError,
        match=r"more than 10000 characters \(tools.template_output_chars\)",
    ):
        await executor.execute(program, {})


@pytest.mark.parametrize(
    "template",
    [
        "{% set ns = namespace(s='xxxxxxxx') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"
        "{{ ns.s | length }}",
        "{{ 'x' * 4000000000 }}",
    ],
)
async def test_a_template_that_builds_a_huge_value_runs_out_of_its_own_memory(
    template: str,
) -> None:
    executor = SkillExecutor(ToolSettings(template_timeout_seconds=30))
    with pytest.raises(SkillExecutionError, match=r"tools.template_memory_mb"):
        await executor.execute(
            SkillProgram("bomb", "template", {"template": template}), {}
        )


async def test_an_ordinary_template_still_renders_with_its_defaults() -> None:
    program = SkillProgram(
        "greet",
        "template",
        {"template": "Hello {{.who}}{{if .loud}}!{{end}} ünï"},
        {"who": {"default": "there"}},
    )
    result = await SkillExecutor().execute(program, {"loud": True})
    assert result == {"name": "greet", "type": "template", "output": "Hello there! ünï"}
