"""The hooks in .pre-commit-hooks.yaml, run as a team runs them: ``pre-commit try-repo`` on a
collection of skills, passing on a valid one and failing on a broken one.

The manifest installs aiq-tui with ``language: python`` (pre-commit pip-installs this
repository into an environment of its own), which needs the package index: textual and the
other dependencies are not in a local index here, so that install cannot run offline. These
tests therefore try a copy of the manifest that differs only in ``language: system`` and run
the aiq-tui of this environment — every other key (entry, files, pass_filenames, args) is the
shipped one, and the copy is checked to differ in nothing else. ``AIQ_TEST_PRE_COMMIT_NETWORK=1``
also tries the shipped manifest itself (minutes: it installs aiq-tui from the index).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
BIN = Path(sys.executable).parent

pytest.importorskip(
    "pre_commit", reason="pre-commit is a dev dependency (pip install -e '.[dev]')"
)

VALID = (
    "---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nDo the task.\n"
)
GIFS = "Make animated GIFs and emoji reactions for team chat."
EVALS = [
    {"query": "make an animated gif of a dancing llama", "should_trigger": True},
    {"query": "an emoji reaction for the team chat", "should_trigger": True},
    {
        "query": "convert this spreadsheet of llama prices to csv",
        "should_trigger": False,
    },
]


def git(cwd: Path, *argv: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "user.name=test",
            "-c",
            "commit.gpgsign=false",
            *argv,
        ],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def hooks_repo(tmp_path: Path) -> Path:
    """A git repository holding the manifest with ``language: system`` (see the module docstring)."""
    shipped = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    system = [{**hook, "language": "system"} for hook in shipped]
    assert [{k: v for k, v in h.items() if k != "language"} for h in system] == [
        {k: v for k, v in h.items() if k != "language"} for h in shipped
    ]
    repo = tmp_path / "hooks"
    repo.mkdir()
    (repo / ".pre-commit-hooks.yaml").write_text(
        yaml.safe_dump(system), encoding="utf-8"
    )
    git(repo, "init", "-q", ".")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hooks")
    return repo


def collection(
    tmp_path: Path, skills: dict[str, str], evals: list[dict] | None = None
) -> Path:
    """A git repository of skills under skills/ (and party-gifs' trigger evals)."""
    root = tmp_path / "team-skills"
    for folder, text in skills.items():
        (root / "skills" / folder).mkdir(parents=True)
        (root / "skills" / folder / "SKILL.md").write_text(text, encoding="utf-8")
    if evals is not None:
        (root / "skills" / "party-gifs" / "evals").mkdir()
        (root / "skills" / "party-gifs" / "evals" / "trigger_eval.json").write_text(
            json.dumps(evals), encoding="utf-8"
        )
    git(root, "init", "-q", ".")
    git(root, "add", "-A")
    return root


def try_repo(
    repo: Path, hook: str, cwd: Path, tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    if not (BIN / "aiq-tui").exists():
        pytest.skip(
            f"no aiq-tui script beside {sys.executable} (install the package with pip)"
        )
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "NO_COLOR": "1",
    }
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(repo),
            hook,
            "--all-files",
            "--color",
            "never",
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_manifest_offers_the_hooks_as_teams_install_them() -> None:
    hooks = {
        hook["id"]: hook
        for hook in yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    }
    assert set(hooks) == {
        "aiq-skills-validate",
        "aiq-skills-validate-spec",
        "aiq-trigger-eval",
    }
    assert all(
        hook["language"] == "python" for hook in hooks.values()
    )  # pre-commit installs aiq-tui
    assert hooks["aiq-skills-validate"]["entry"] == "aiq-tui skills validate --strict"
    # The target is an argument a team's .pre-commit-config.yaml may replace.
    assert hooks["aiq-skills-validate"]["args"] == ["--target", "auto"]
    assert hooks["aiq-skills-validate-spec"]["entry"].endswith("--target agentskills")
    assert (
        hooks["aiq-trigger-eval"]["pass_filenames"] is False
    )  # every skill with an eval set


def test_skills_validate_hook_passes_a_valid_collection_and_fails_a_broken_one(
    tmp_path: Path,
) -> None:
    repo = hooks_repo(tmp_path)
    good = collection(
        tmp_path / "good",
        {"party-gifs": VALID.format(name="party-gifs", description=GIFS)},
    )
    result = try_repo(repo, "aiq-skills-validate", good, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout
    broken = collection(
        tmp_path / "broken",
        {
            "party-gifs": VALID.format(name="party-gifs", description=GIFS),
            "Bad_Name": VALID.format(
                name="Bad_Name", description="Does things."
            ),  # not the spec's name form
            "no-description": "---\nname: no-description\n---\n\nBody.\n",
        },
    )
    result = try_repo(repo, "aiq-skills-validate", broken, tmp_path)
    assert result.returncode == 1
    assert (
        "Failed" in result.stdout
        and "Bad_Name" in result.stdout
        and "no-description" in result.stdout
    )


def test_a_claude_code_plugins_manual_skill_passes_its_hook_and_fails_the_spec_hook(
    tmp_path: Path,
) -> None:
    repo = hooks_repo(tmp_path)
    manual = (
        "---\nname: deploy\ndescription: Deploy the app to production.\n"
        "disable-model-invocation: true\n---\n\nDeploy $ARGUMENTS.\n"
    )
    plugin = collection(tmp_path / "plugin", {"deploy": manual})
    (plugin / ".claude-plugin").mkdir()
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "ops"}')
    git(plugin, "add", "-A")
    result = try_repo(repo, "aiq-skills-validate", plugin, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    result = try_repo(repo, "aiq-skills-validate-spec", plugin, tmp_path)
    assert result.returncode == 1 and "disable-model-invocation" in result.stdout


def test_trigger_eval_hook_fails_a_skill_under_the_recall_it_is_held_to(
    tmp_path: Path,
) -> None:
    repo = hooks_repo(tmp_path)
    skills = {"party-gifs": VALID.format(name="party-gifs", description=GIFS)}
    good = collection(tmp_path / "good", skills, EVALS)
    result = try_repo(repo, "aiq-trigger-eval", good, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    missed = EVALS + [
        {"query": "print the quarterly sales report as a pdf", "should_trigger": True},
        {"query": "book a flight to lisbon for june", "should_trigger": True},
    ]
    weak = collection(tmp_path / "weak", skills, missed)
    result = try_repo(repo, "aiq-trigger-eval", weak, tmp_path)
    assert result.returncode == 1
    assert "party-gifs recall 0.500 < --min-recall 0.75" in result.stdout


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("AIQ_TEST_PRE_COMMIT_NETWORK") != "1",
    reason="installs aiq-tui from the package index (set AIQ_TEST_PRE_COMMIT_NETWORK=1)",
)
def test_the_shipped_manifest_installs_and_runs(tmp_path: Path) -> None:
    repo = tmp_path / "aiq-tui"
    shutil.copytree(
        ROOT,
        repo,
        ignore=shutil.ignore_patterns(".venv*", ".git", "__pycache__", "*.egg-info"),
    )
    git(repo, "init", "-q", ".")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "snapshot")
    good = collection(
        tmp_path / "good",
        {"party-gifs": VALID.format(name="party-gifs", description=GIFS)},
    )
    result = try_repo(repo, "aiq-skills-validate", good, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
