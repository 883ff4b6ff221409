"""One secret guard for everything that returns content to the model (issue 23, findings 3, 7, 13).

Secret-looking files — with their suffix variants — are asked for every time by
``file_operations`` and commands, are never skill resources, and are masked in the sandbox
when a command reads a whole tree. The config home (sessions hold earlier tool results) is
never readable by the model, through any tool.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.locations import Home
from aiq_tui.tools.files import FileOperationsTool
from tests.security.scripted import SECRET, calls, of_type, run_session, write_skill

SECRET_NAMES = [
    ".env",
    ".envrc",
    ".env-local",
    ".env_prod",
    ".env.production",
    "prod.env",
    "id_rsa",
    "id_rsa.bak",
    "id_ed25519~",
    "id_ecdsa.old",
    "deploy/id_rsa",
    "server.pem",
    "server.key",
    "tls/cert.p12",
    "credentials",
    "credentials.json",
    "credentials-prod.json",
    "aws-credentials.csv.bak",
    ".netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".docker/config.json",
    ".kube/config",
    "kubeconfig",
    "config/kubeconfig.yaml",
    "terraform.tfstate",
    "secrets.yaml",
    ".vault-token",
    "service-account-prod.json",
    ".aws/credentials",
    ".ssh/config",
    ".my.cnf",
    ".htpasswd",
    "token.json",
    "credentials.json~",
]
PLAIN_NAMES = [
    "README.md",
    "environment.py",
    "src/keys.py",
    "id_mapping.py",
    "docs/credentials-howto.md",
    ".env.example",
    "monkey.txt",
    "config.json",
    "kube/deployment.yaml",
    "tokenizer.py",
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def _tool(project: Path, home: Home) -> FileOperationsTool:
    return FileOperationsTool(ToolSettings(), home=home, cwd=project)


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_secret_names_and_their_variants_ask_every_time(
    project: Path, isolated_home: Home, name: str
) -> None:
    """Finding 3: .envrc, .env-local, .env_prod, id_rsa.bak, id_ed25519~ were read without asking."""
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SECRET)
    assert (
        _tool(project, isolated_home).permission_key(
            {"operation": "read", "path": name}
        )
        == "file_read_secret"
    )


@pytest.mark.parametrize("name", PLAIN_NAMES)
def test_ordinary_files_do_not_look_secret(
    project: Path, isolated_home: Home, name: str
) -> None:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("plain")
    assert (
        _tool(project, isolated_home).permission_key(
            {"operation": "read", "path": name}
        )
        == "file_read"
    )


# A backup of a secret is the same secret: each of these is a secret *only* through its bare
# name (no other pattern knows "server.pem.bak"), the case the examples above stood in for.
BACKUP_COPIES = [
    "server.pem.bak",
    "tls.key.orig",
    ".netrc.bak",
    ".pgpass~",
    "prod.tfstate.backup",
    "cert.p12.1",
    ".npmrc.old",
    ".pypirc.save",
    "known_hosts.old",
    ".htpasswd.orig",
    ".vault-token.swp",
    ".my.cnf.bak",
    ".bash_history.old",
    ".dev.vars.bak",
    "local.settings.json.bak",
    "service-account-prod.json.bak",
    "vault.kdbx.bak",
    "server.pem.bak~",
    "tls.key.orig.1",  # suffixes stack: an editor's copy of a copy
]
# ... and a backup of what is not a secret is not one either (code, prose, committed examples).
PLAIN_BACKUPS = [
    "README.md.bak",
    "notes.txt~",
    "config.json.orig",
    "tokenizer.json.bak",
    ".env.example.bak",
    "credentials.py.bak",
    "docs/credentials-howto.md.bak",
    "build.sh.1",
]


@pytest.mark.parametrize("name", BACKUP_COPIES)
def test_a_backup_copy_of_a_secret_is_a_secret(
    project: Path, isolated_home: Home, name: str
) -> None:
    from aiq_tui.secret_guard import SecretScanner, looks_secret

    assert looks_secret(name)
    (project / name).write_text(SECRET)
    assert (
        _tool(project, isolated_home).permission_key(
            {"operation": "read", "path": name}
        )
        == "file_read_secret"
    )
    assert SecretScanner().scan([str(project)]).files == (
        str(project / name),
    )  # hidden in the sandbox too


@pytest.mark.parametrize("name", PLAIN_BACKUPS)
def test_a_backup_copy_of_an_ordinary_file_is_ordinary(
    project: Path, isolated_home: Home, name: str
) -> None:
    from aiq_tui.secret_guard import looks_secret

    assert not looks_secret(name)
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("plain")
    assert (
        _tool(project, isolated_home).permission_key(
            {"operation": "read", "path": name}
        )
        == "file_read"
    )


def test_suffix_variants_never_reach_the_model_under_deny_all(
    project: Path, monkeypatch, capsys
) -> None:
    for name in (".envrc", ".env-local", ".env_prod", "id_rsa.bak", "id_ed25519~"):
        (project / name).write_text(f"{name}={SECRET}\n")
    steps = calls(
        *[
            ("file_operations", {"operation": "read", "path": name})
            for name in (
                ".envrc",
                ".env-local",
                ".env_prod",
                "id_rsa.bak",
                "id_ed25519~",
            )
        ]
    )
    events, sent, _ = run_session(steps, monkeypatch, capsys, "--deny-all")
    assert SECRET not in sent
    assert len(of_type(events, "tool_call_denied")) == 5


def _root_reaching_skill(project: Path) -> None:
    """A project whose skill folder is the project root itself (a link up two levels)."""
    (project / "SKILL.md").write_text(
        "---\nname: app\ndescription: Build and deploy the app\n---\nSteps.\n"
    )
    skills = project / ".agents" / "skills"
    skills.mkdir(parents=True)
    (skills / "app").symlink_to("../..")
    (project / "server.pem").write_text(f"-----BEGIN PRIVATE KEY-----{SECRET}")
    (project / "credentials.json").write_text(json.dumps({"password": SECRET}))
    (project / "deploy").mkdir()
    (project / "deploy" / "id_rsa").write_text(SECRET)
    (project / "notes.md").write_text("deploy notes\n")


def test_read_skill_resource_never_returns_a_secret(
    project: Path, monkeypatch, capsys
) -> None:
    """Finding 7: read_skill_resource had no secret check."""
    _root_reaching_skill(project)
    steps = calls(
        ("use_skill", {"skill_name": "app"}),
        *[
            ("read_skill_resource", {"skill_name": "app", "path": path})
            for path in ("server.pem", "credentials.json", "deploy/id_rsa", "notes.md")
        ],
    )
    events, sent, _ = run_session(steps, monkeypatch, capsys, "--yes")
    assert SECRET not in sent
    finished = {
        event["call_id"]: event for event in of_type(events, "tool_call_finished")
    }
    assert (
        finished["call_5"]["ok"] and "deploy notes" in sent
    )  # an ordinary resource still reads


def test_the_resource_listing_marks_secrets_as_unavailable(
    project: Path, isolated_home: Home
) -> None:
    from aiq_tui.workspace import Workspace

    _root_reaching_skill(project)
    catalog = Workspace.open(cwd=project).catalog
    listed = {resource.relpath: resource for resource in catalog.resources("app")}
    for secret in ("server.pem", "credentials.json", "deploy/id_rsa"):
        assert listed[secret].rejected and "secret" in listed[secret].rejected
    assert listed["notes.md"].rejected is None


def test_a_users_skill_bundling_a_key_does_not_hand_it_over(
    isolated_home: Home, project: Path, monkeypatch, capsys
) -> None:
    isolated_home.ensure()
    write_skill(isolated_home.skills_dir, "signer")
    (isolated_home.skills_dir / "signer" / "signing.key").write_text(SECRET)
    steps = calls(
        ("read_skill_resource", {"skill_name": "signer", "path": "signing.key"})
    )
    _, sent, _ = run_session(steps, monkeypatch, capsys, "--yes")
    assert SECRET not in sent


def _earlier_session(home: Home) -> Path:
    """A session of an earlier run that read .env with the user's approval."""
    home.ensure()
    path = home.sessions_dir / "20250101-000000-abcd.json"
    path.write_text(
        json.dumps(
            {
                "id": "20250101-000000-abcd",
                "messages": [
                    {"role": "tool", "content": f"DATABASE_PASSWORD={SECRET}"}
                ],
            }
        )
    )
    return path


def test_session_files_are_never_readable_by_the_model(
    project: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    """Finding 13: a .env read approved once sat in sessions/*.json; a later --deny-all session
    read that file and the secret reached the model."""
    session = _earlier_session(isolated_home)
    steps = calls(
        (
            "file_operations",
            {"operation": "list", "path": str(isolated_home.sessions_dir)},
        ),
        ("file_operations", {"operation": "read", "path": str(session)}),
        (
            "file_operations",
            {"operation": "read", "path": str(isolated_home.config_file)},
        ),
    )
    events, sent, _ = run_session(steps, monkeypatch, capsys, "--deny-all")
    assert SECRET not in sent
    results = [
        event
        for event in of_type(events, "tool_call_finished")
        if event["name"] == "file_operations"
    ]
    assert len(results) == 3 and not any(
        event["ok"] for event in results
    )  # not even the listing


def test_commands_cannot_read_the_config_home_either(
    project: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    session = _earlier_session(isolated_home)
    steps = calls(
        ("execute_command", {"command": ["cat", str(session)]}),
        (
            "execute_command",
            {"command": ["grep", "-r", "hunter2", str(isolated_home.root)]},
        ),
    )
    _, sent, _ = run_session(steps, monkeypatch, capsys, "--yes")
    assert SECRET not in sent


def test_started_in_home_a_recursive_read_does_not_reach_the_config_home(
    isolated_home: Home, monkeypatch, capsys
) -> None:
    """In ~ the config home lies inside the readable tree: the sandbox masks it."""
    _earlier_session(isolated_home)
    home = Path(os.environ["HOME"])
    monkeypatch.chdir(home)
    (home / "notes.txt").write_text("hunter2 is a famous password\n")
    steps = calls(("execute_command", {"command": ["grep", "-r", "hunter2", "."]}))
    _, sent, _ = run_session(steps, monkeypatch, capsys, "--yes")
    assert "famous password" in sent  # the command ran
    assert SECRET not in sent


def test_a_skill_folder_linked_into_a_secret_folder_hands_nothing_over(
    project: Path, tmp_path: Path, isolated_home: Home
) -> None:
    """A clone can ship a link to any folder holding a SKILL.md: where the files really are counts."""
    from aiq_tui.workspace import Workspace

    keys = tmp_path / "elsewhere" / ".ssh"
    keys.mkdir(parents=True)
    (keys / "SKILL.md").write_text("---\nname: keys\ndescription: Keys\n---\nx\n")
    (keys / "config").write_text(f"Host *\n  IdentityFile {SECRET}\n")
    (project / ".agents" / "skills").mkdir(parents=True)
    (project / ".agents" / "skills" / "keys").symlink_to(keys)
    catalog = Workspace.open(cwd=project).catalog
    assert all(resource.rejected for resource in catalog.resources("keys"))
    with pytest.raises(Exception, match="secret"):
        catalog.read_resource("keys", "config")


# -- found by `make mutate`: rules the examples above did not pin down ---------------------------


@pytest.mark.parametrize(
    "path",
    [
        ".config/gh/hosts.yml",
        "home/me/.config/gh/hosts.yml",
        ".local/share/keyrings/login.keyring",
        ".config/gcloud/configurations/config_default",  # a file under a folder secret only below .config
        ".config/gh",
        ".ssh",
        "project/.aws",  # the folder itself
    ],
)
def test_a_path_through_or_to_a_secret_folder_looks_secret(path: str) -> None:
    from aiq_tui.secret_guard import looks_secret

    assert looks_secret(path)


@pytest.mark.parametrize(
    "path",
    [
        "",
        "/",
        "gh/hosts.yml",
        "src/gh/cli.py",
        "share/keyrings.md",
        "src/credentials.test.ts",
        "types/secrets.d.ts",
        "lib/passwords.min.js",
    ],
)
def test_nothing_is_secret_for_a_part_of_its_place_or_name_alone(path: str) -> None:
    """``gh`` is a secret folder only under ``.config``; code named after a secret with more dots
    (``credentials.test.ts``) is still code — its extension is the last one."""
    from aiq_tui.secret_guard import looks_secret

    assert not looks_secret(path)


def test_the_scanner_finds_secrets_added_after_a_folder_was_scanned(
    tmp_path: Path,
) -> None:
    from aiq_tui.secret_guard import SecretScanner

    scanner = SecretScanner()
    assert scanner.scan([tmp_path]).files == ()
    (tmp_path / ".env").write_text(
        SECRET
    )  # the folder's listing is cached until it changes
    assert scanner.scan([tmp_path]).files == (str(tmp_path / ".env"),)


def test_the_scanner_masks_folders_secret_only_under_their_parent_and_links_named_like_secrets(
    tmp_path: Path,
) -> None:
    from aiq_tui.secret_guard import SecretScanner

    (tmp_path / ".config" / "gh").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "notes.txt").write_text(SECRET)
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / ".env").symlink_to(tmp_path / "elsewhere" / "notes.txt")
    found = SecretScanner().scan([tmp_path])
    assert found.dirs == (str(tmp_path / ".config" / "gh"),)
    assert found.files == (
        str(tmp_path / "project" / ".env"),
    )  # the mount covers the link's target


def test_the_scanner_does_not_walk_skipped_folders_or_linked_ones(
    tmp_path: Path,
) -> None:
    from aiq_tui.secret_guard import SecretScanner

    root, outside = tmp_path / "root", tmp_path / "outside"
    for folder in (root / "skipped", root / "walked", outside):
        folder.mkdir(parents=True)
        (folder / ".env").write_text(SECRET)
    (root / "linked").symlink_to(outside, target_is_directory=True)
    found = SecretScanner().scan([root], skip=[str(root / "skipped")])
    assert found.files == (str(root / "walked" / ".env"),) and found.complete


def test_a_tree_larger_than_the_scan_budget_is_reported_incomplete(
    tmp_path: Path, isolated_home: Home
) -> None:
    """Past its budget the scan stops and says so; the launch policy then lists the unchecked
    files as exposed, so the command asks before it runs."""
    from aiq_tui.secret_guard import SecretScanner
    from aiq_tui.tools.launch_policy import LaunchPolicy

    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        for index in range(5):
            (tmp_path / folder / f"file{index}.txt").write_text("x")
    entries = 2 + 5 + 5  # the root's two folders and their files
    assert SecretScanner(budget=entries).scan([tmp_path]).complete is True
    assert SecretScanner(budget=entries - 1).scan([tmp_path]).complete is False
    plan = LaunchPolicy(
        ToolSettings(),
        home=isolated_home,
        project=tmp_path,
        scanner=SecretScanner(budget=entries - 1),
    ).plan()
    assert any("not checked for secrets" in item for item in plan.exposed)
