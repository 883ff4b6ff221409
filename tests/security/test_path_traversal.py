"""Path-traversal probes against file_operations: every probe must stay inside the roots.

Roots: the project (cwd) and the config home (read + write), a skill folder (read only).
Outside them sits a directory with a secret file. For every probe and every operation we
assert: the secret's content never appears in a result, nothing outside the roots was
created or changed, and any successful result names a path inside the allowed roots.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.locations import Home
from aiq_tui.skills.catalog import SkillCatalog
from aiq_tui.skills.discover import SkillDir
from aiq_tui.tools.files import FileOperationsTool

SECRET = "TOP-SECRET-CANARY-7f3a"

# {out} outside dir, {proj} project, {home} config home, {rel} relative path project → outside,
# {skill} skill folder (read-only root).
PROBES: list[str] = [
    "{rel}/secret.txt",
    "../outside/secret.txt",
    "../../outside/secret.txt",
    "./../outside/./secret.txt",
    "{out}/secret.txt",
    "{out}",
    "{out}/new.txt",
    "{out}/sub/new.txt",
    "/etc/passwd",
    "/etc/shadow",
    "/etc",
    "/",
    "//etc/passwd",
    "/../../../../etc/passwd",
    "/./etc/./passwd",
    "../../../../../../etc/passwd",
    "{proj}/../outside/secret.txt",
    "{proj}/./../outside/secret.txt",
    "{proj}/sub/../../outside/secret.txt",
    "{proj}-evil/secret.txt",
    "{home}-evil/secret.txt",
    "{home}x/secret.txt",
    "{home}/../outside/secret.txt",
    "{home}/../../outside/secret.txt",
    "..",
    "../",
    "../outside",
    "../outside/",
    "../outside/secret.txt/",
    "~/secret.txt",
    "~",
    "~root/.bashrc",
    "~/../outside/secret.txt",
    "~{}".format("/.ssh/id_rsa"),
    "link_out",
    "link_out_dir/secret.txt",
    "link_out_dir",
    "chain_a",
    "rel_link_out",
    "dangling_out",
    "link_out_dir/new.txt",
    "sub/deep_link/secret.txt",
    "{home}/home_link_out",
    "{skill}/skill_link_out",
    "{skill}/../outside_via_skill/secret.txt",
    "secret.txt\x00.md",
    "../outside/secret.txt\x00",
    "\x00",
    "{out}/secret.txt\x00ignored",
    "{PROJ_UPPER}/../outside/secret.txt",
    "{OUT_UPPER}/SECRET.TXT",
    "{OUT_UPPER}/secret.txt",
    "../OUTSIDE/secret.txt",
    "\uff0e\uff0e/outside/secret.txt",
    "\u2025/outside/secret.txt",
    "..\u2215outside\u2215secret.txt",
    "..\\outside\\secret.txt",
    "%2e%2e/outside/secret.txt",
    "..%2foutside%2fsecret.txt",
    "a/" * 300 + "../" * 302 + "outside/secret.txt",
    "x" * 5000,
    "/" + "../" * 500 + "etc/passwd",
    "/proc/self/root/etc/passwd",
    "/proc/self/cwd/../outside/secret.txt",
    "/dev/stdin",
    "/dev/null",
    "{proj}/../outside",
    "sub/../../outside/secret.txt",
    "sub/./../../outside/./secret.txt",
    "",
    " ",
    "../outside/secret.txt ",
    " ../outside/secret.txt",
]

OPERATIONS = ("read", "write", "list", "exists")


def _tree(path: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for root, dirs, files in os.walk(path, followlinks=False):
        for name in files + dirs:
            full = Path(root) / name
            digest = (
                "dir"
                if full.is_dir() and not full.is_symlink()
                else (
                    "link:" + os.readlink(full)
                    if full.is_symlink()
                    else hashlib.sha256(full.read_bytes()).hexdigest()
                )
            )
            found[str(full)] = digest
    return found


@pytest.fixture
def world(tmp_path: Path, isolated_home: Home) -> dict[str, Any]:
    home = isolated_home
    home.ensure()
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (tmp_path / "OUTSIDE").mkdir()
    (tmp_path / "OUTSIDE" / "secret.txt").write_text(SECRET)
    for sibling in (
        Path(f"{project}-evil"),
        Path(f"{home.root}-evil"),
        Path(f"{home.root}x"),
    ):
        sibling.mkdir(parents=True)
        (sibling / "secret.txt").write_text(SECRET)
    skills = tmp_path / "skills"
    skill = skills / "helper"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: helper\ndescription: Helps\n---\nBody\n"
    )
    (skills / "outside_via_skill").mkdir()
    (skills / "outside_via_skill" / "secret.txt").write_text(SECRET)
    os.symlink(outside / "secret.txt", project / "link_out")
    os.symlink(outside, project / "link_out_dir")
    os.symlink(project / "chain_b", project / "chain_a")
    os.symlink(outside / "secret.txt", project / "chain_b")
    os.symlink(
        os.path.relpath(outside / "secret.txt", project), project / "rel_link_out"
    )
    os.symlink(outside / "created-by-dangling.txt", project / "dangling_out")
    os.symlink(outside, project / "sub" / "deep_link")
    os.symlink(outside / "secret.txt", home.root / "home_link_out")
    os.symlink(outside / "secret.txt", skill / "skill_link_out")
    catalog = SkillCatalog([SkillDir(skills, "flag")])
    tool = FileOperationsTool(ToolSettings(), home=home, cwd=project, catalog=catalog)
    watched = [
        outside,
        tmp_path / "OUTSIDE",
        Path(f"{project}-evil"),
        Path(f"{home.root}-evil"),
        Path(f"{home.root}x"),
        skills,
    ]
    return {
        "tool": tool,
        "project": project,
        "outside": outside,
        "home": home,
        "skill": skill,
        "watched": watched,
        "tmp": tmp_path,
    }


def _expand(probe: str, world: dict[str, Any]) -> str:
    project: Path = world["project"]
    return (
        probe.replace("{rel}", os.path.relpath(world["outside"], project))
        .replace("{out}", str(world["outside"]))
        .replace("{proj}", str(project))
        .replace("{home}", str(world["home"].root))
        .replace("{skill}", str(world["skill"]))
        .replace("{PROJ_UPPER}", str(project).upper())
        .replace("{OUT_UPPER}", str(world["outside"]).upper())
    )


def test_probe_count_is_at_least_50() -> None:
    assert len(PROBES) >= 50
    assert len(PROBES) * len(OPERATIONS) >= 200


@pytest.mark.parametrize("operation", OPERATIONS)
async def test_path_traversal_probes_never_escape(
    world: dict[str, Any], operation: str
) -> None:
    tool: FileOperationsTool = world["tool"]
    before = {str(path): _tree(path) for path in world["watched"]}
    escapes: list[str] = []
    write_roots = (
        os.path.realpath(world["project"]),
        os.path.realpath(world["home"].root),
    )
    read_roots = (*write_roots, os.path.realpath(world["skill"]))
    for probe in PROBES:
        path = _expand(probe, world)
        arguments = {"operation": operation, "path": path}
        if operation == "write":
            arguments["content"] = "INJECTED"
        result = await tool.run(arguments)
        text = result.to_model_text()
        if SECRET in text:
            escapes.append(f"{probe!r}: secret leaked")
        if result.ok:
            real = result.content["path"]
            roots = write_roots if operation == "write" else read_roots
            if not any(
                real == root or real.startswith(root + os.sep) for root in roots
            ):
                escapes.append(f"{probe!r}: touched {real}")
    after = {str(path): _tree(path) for path in world["watched"]}
    assert after == before, "something outside the roots changed"
    assert not (world["outside"] / "created-by-dangling.txt").exists()
    assert not (world["outside"] / "new.txt").exists()
    assert escapes == []


async def test_refusals_explain_why(world: dict[str, Any]) -> None:
    tool: FileOperationsTool = world["tool"]
    for probe, phrase in [
        ("../outside/secret.txt", "outside what may be read"),
        ("~/x", "'~' is not expanded"),
        ("a\x00b", "NUL"),
        ("link_out", "resolves to"),
    ]:
        result = await tool.run({"operation": "read", "path": _expand(probe, world)})
        assert not result.ok and phrase in result.error
