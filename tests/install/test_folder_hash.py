"""``computedHash`` is the ``skills`` CLI's hash, byte for byte.

The expected values come from what its source (vercel-labs/skills ``src/local-lock.ts``) does:
regular files only, ``.git`` and ``node_modules`` not entered, links not counted, relative paths
with ``/`` sorted by ``localeCompare``, then SHA-256 over each path's bytes followed by the
file's bytes. Where Node is installed, a few lines of Node that do exactly that (below) hash
the same trees, random ones included; without it, fixed vectors computed by them stand in.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import string
import subprocess
from pathlib import Path

import pytest

from aiq_tui.skills.install.folder_hash import (
    collation_key,
    hashed_files,
    skill_folder_hash,
)

NODE = shutil.which("node")

# Written from reading their collectFiles / computeSkillFolderHash, not copied from them.
NODE_HASH = r"""
const fs = require('fs'), path = require('path'), crypto = require('crypto');
function walk(base, dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== '.git' && e.name !== 'node_modules') walk(base, full, out); }
    else if (e.isFile()) out.push({ rel: path.relative(base, full).split(path.sep).join('/'), data: fs.readFileSync(full) });
  }
}
const files = []; walk(process.argv[1], process.argv[1], files);
files.sort((a, b) => a.rel.localeCompare(b.rel));
const h = crypto.createHash('sha256');
for (const f of files) { h.update(f.rel); h.update(f.data); }
console.log(h.digest('hex'));
"""


def node_hash(folder: Path) -> str:
    assert NODE is not None
    return subprocess.run(
        [NODE, "-e", NODE_HASH, str(folder)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "LANG": "en_US.UTF-8"},
    ).stdout.strip()


def mixed_tree(root: Path) -> Path:
    """Upper and lower case, punctuation, skipped folders, a link, a root README."""
    files = {
        "SKILL.md": "a",
        "references/x.md": "b",
        "scripts/run.sh": "#!/bin/sh\necho hi\n",
        ".git/config": "g",
        "node_modules/x/i.js": "n",
        "_private/n.md": "p",
        "Assets/Logo.svg": "A",
        "README.md": "r",
        "a-b.md": "dash",
        "a_b.md": "under",
    }
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    (root / "link.md").symlink_to("SKILL.md")
    return root


MIXED_TREE_HASH = "a3c38bcb9b7e563ae5d1669a8c11b8e3455229d047e6f424223e5d50bc7c3a47"
"""What the Node lines above print for :func:`mixed_tree` (Node 20, ICU 73)."""


def test_hash_of_a_mixed_tree_is_the_skills_cli_value(tmp_path: Path) -> None:
    assert skill_folder_hash(mixed_tree(tmp_path / "t")) == MIXED_TREE_HASH


def test_files_are_read_in_locale_order_not_code_point_order(tmp_path: Path) -> None:
    order = hashed_files(mixed_tree(tmp_path / "t"))
    assert order == [
        "_private/n.md",
        "a_b.md",
        "a-b.md",
        "Assets/Logo.svg",
        "README.md",
        "references/x.md",
        "scripts/run.sh",
        "SKILL.md",
    ]  # code-point order would put README.md and SKILL.md first


def test_the_hash_is_path_then_content_with_nothing_between(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text("a")
    (folder / "references" / "x.md").write_text("b")
    expected = hashlib.sha256(b"references/x.mdbSKILL.mda").hexdigest()
    assert skill_folder_hash(folder) == expected


def test_links_git_and_node_modules_count_for_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "SKILL.md").write_text("a")
    before = skill_folder_hash(folder)
    (folder / "alias.md").symlink_to("SKILL.md")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref")
    (folder / "node_modules").mkdir()
    (folder / "node_modules" / "m.js").write_text("x")
    assert skill_folder_hash(folder) == before


def test_a_rename_changes_the_hash(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "SKILL.md").write_text("a")
    (folder / "one.md").write_text("same")
    before = skill_folder_hash(folder)
    (folder / "one.md").rename(folder / "two.md")
    assert skill_folder_hash(folder) != before


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_computes_the_same_hash_for_the_mixed_tree(tmp_path: Path) -> None:
    assert node_hash(mixed_tree(tmp_path / "t")) == MIXED_TREE_HASH


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_and_python_agree_on_random_ascii_trees(tmp_path: Path) -> None:
    rng = random.Random(48)
    alphabet = string.ascii_letters + string.digits + "_-.@+~"
    for round_ in range(5):
        root = tmp_path / f"r{round_}"
        root.mkdir()
        for _ in range(25):
            parts = [
                "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6)))
                for _ in range(rng.randint(1, 3))
            ]
            if any(part in (".", "..", ".git", "node_modules") for part in parts):
                continue
            path = root.joinpath(*parts)
            if any(p.exists() and p.is_file() for p in [*path.parents]):
                continue
            if path.exists():
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(os.urandom(rng.randint(0, 64)))
        assert skill_folder_hash(root) == node_hash(root), round_


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_collation_matches_locale_compare_for_every_ascii_pair() -> None:
    names = [
        "".join(random.Random(i).choice(string.printable[:95]) for _ in range(4))
        for i in range(400)
    ] + ["SKILL.md", "scripts/run.sh", "a-b", "ab", "a_b", "A", "a", "Ab", "aB"]
    script = (
        "const a=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "a.sort((x,y)=>x.localeCompare(y));console.log(JSON.stringify(a))"
    )
    out = subprocess.run(
        [NODE or "node", "-e", script],
        input=json.dumps(names),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert sorted(names, key=collation_key) == json.loads(out)
