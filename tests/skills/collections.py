"""Trees shaped like the public skill collections, built in tmp_path (nothing copied from them).

Each builder writes the folders, manifests and links of one collection's layout, with made-up
skills, and returns the names it wrote: anthropics/skills (``skills/`` plus a ``template/`` at
the root and a marketplace manifest), openai/skills (hidden ``.curated`` / ``.system`` /
``.experimental``), obra/superpowers (``skills/`` and a plugin manifest), Composio (skills at
the root and 800-odd in ``composio-skills/``), mattpocock/skills (category folders named by a
plugin manifest, most skills ``disable-model-invocation``) and the ``skills`` CLI's install
layout (a copy in ``.agents/skills``, relative symbolic links in ``.claude/skills``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def skill(
    folder: Path,
    name: str | None = None,
    description: str | None = None,
    extra: str = "",
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"name: {name or folder.name}"] if name != "" else []
    lines.append(
        f"description: {description or 'Does ' + folder.name.replace('-', ' ')}"
    )
    path = folder / "SKILL.md"
    path.write_text(
        "---\n"
        + "\n".join(lines)
        + "\n"
        + extra
        + "---\n\n# "
        + folder.name
        + "\n\nSteps.\n",
        encoding="utf-8",
    )
    return path


def anthropic_like(root: Path) -> list[str]:
    names = ["algorithmic-art", "docx", "pdf", "skill-creator", "xlsx"]
    for name in names:
        skill(root / "skills" / name)
    skill(root / "template", "template-skill")
    (root / "spec").mkdir(parents=True)
    (root / "spec" / "agent-skills-spec.md").write_text("see agentskills.io\n")
    manifest = {
        "name": "anthropic-agent-skills",
        "plugins": [
            {
                "name": "document-skills",
                "source": "./",
                "strict": False,
                "skills": ["./skills/docx", "./skills/pdf", "./skills/xlsx"],
            },
            {
                "name": "example-skills",
                "source": "./",
                "strict": False,
                "skills": ["./skills/algorithmic-art", "./skills/skill-creator"],
            },
        ],
    }
    _manifest(root, "marketplace.json", manifest)
    return [*names, "template-skill"]


def openai_like(root: Path) -> list[str]:
    written = []
    for hidden, names in (
        (".curated", ["gh-address-comments", "notion-spec"]),
        (".system", ["skill-installer"]),
        (".experimental", ["create-plan"]),
    ):
        for name in names:
            skill(root / "skills" / hidden / name)
            (root / "skills" / hidden / name / "agents").mkdir()
            (root / "skills" / hidden / name / "agents" / "openai.yaml").write_text(
                "interface: {}\n"
            )
            written.append(name)
    return written


def obra_like(root: Path) -> list[str]:
    names = ["brainstorming", "systematic-debugging", "test-driven-development"]
    for name in names:
        skill(root / "skills" / name)
    _manifest(root, "plugin.json", {"name": "superpowers", "version": "1.0.0"})
    (root / ".opencode").mkdir()
    return names


def composio_like(root: Path, apps: int = 40) -> list[str]:
    top = ["artifacts-builder", "changelog-generator", "file-organizer"]
    for name in top:
        skill(root / name)
    nested = [f"app{i:03d}-automation" for i in range(apps)]
    for name in nested:
        skill(
            root / "composio-skills" / name,
            description=f"Automate App {name[3:6]} tasks via Rube MCP (Composio): "
            "records, search, updates. Always search tools first for current schemas.",
        )
    skill(root / "document-skills" / "pdf")
    _manifest(
        root / "composio-skills",
        "marketplace.json",
        {
            "name": "awesome",
            "plugins": [{"name": "x", "source": "./artifacts-builder"}],
        },
    )
    return [*top, *nested, "pdf"]


def mattpocock_like(root: Path) -> tuple[list[str], list[str]]:
    """(every skill, the ones marked ``disable-model-invocation: true``)."""
    manual = ["to-spec", "to-tickets", "handoff", "grill-me"]
    auto = ["tdd", "diagnosing-bugs", "domain-modeling"]
    categories = {
        "engineering": ["to-spec", "to-tickets", "tdd", "diagnosing-bugs"],
        "productivity": ["handoff", "grill-me", "domain-modeling"],
    }
    for category, names in categories.items():
        for name in names:
            extra = "disable-model-invocation: true\n" if name in manual else ""
            skill(root / "skills" / category / name, extra=extra)
    listed = [f"./skills/{c}/{n}" for c, names in categories.items() for n in names]
    _manifest(root, "plugin.json", {"name": "mattpocock-skills", "skills": listed})
    return manual + auto, manual


def skills_cli_install(project: Path, names: list[str]) -> None:
    """``npx skills add`` for Claude Code and Codex: the copy in ``.agents/skills``, a relative
    link per skill in ``.claude/skills``."""
    (project / ".claude" / "skills").mkdir(parents=True, exist_ok=True)
    for name in names:
        skill(project / ".agents" / "skills" / name)
        os.symlink(
            os.path.join("..", "..", ".agents", "skills", name),
            project / ".claude" / "skills" / name,
        )


def _manifest(root: Path, name: str, data: dict[str, object]) -> None:
    folder = root / ".claude-plugin"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(data, indent=2), encoding="utf-8")
