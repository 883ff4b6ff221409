"""The process launcher: Landlock filesystem sandbox, no network, env allowlist, group kill, caps.

Landlock tests run where the kernel has it and skip with the reason elsewhere (or fail, where
``AIQ_CI_EXPECT`` declares it: tests/capabilities.py); the
"policy only" path is tested everywhere by switching the sandbox off (``AIQ_SANDBOX=off``).
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from aiq_tui.tools import launcher
from aiq_tui.tools.launcher import child_environment, run_process, sandbox_mode
from tests.processes import until_none_in

# Skipped where the machine lacks them; failed where CI declared them (tests/capabilities.py).
landlock_only = pytest.mark.needs("landlock")
namespaces_only = pytest.mark.needs("userns")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


async def _run(argv: list[str], project: Path, **kwargs: object):
    options = {
        "cwd": project,
        "timeout": 10,
        "output_cap": 10_000,
        "read_roots": [project],
        "write_roots": [project],
    }
    options.update(kwargs)
    return await run_process(argv, **options)  # type: ignore[arg-type]


def test_child_environment_is_an_allowlist() -> None:
    env = child_environment(
        {
            "PATH": "/bin",
            "HOME": "/h",
            "LANG": "C",
            "LC_ALL": "C",
            "TERM": "x",
            "TZ": "UTC",
            "DATABASE_URL": "postgres://u:p@h/db",
            "OPENAI_API_KEY": "sk",
            "USER": "me",
            "LD_PRELOAD": "/evil.so",
            "PYTHONPATH": "/evil",
        }
    )
    assert env == {
        "PATH": "/bin",
        "HOME": "/h",
        "LANG": "C",
        "LC_ALL": "C",
        "TERM": "x",
        "TZ": "UTC",
    }


def test_child_environment_has_a_path_even_when_the_parent_has_none() -> None:
    assert child_environment({})["PATH"]


async def test_credentials_in_any_variable_never_reach_the_child(project: Path) -> None:
    result = await _run(
        ["env"],
        project,
        env={
            "PATH": os.environ["PATH"],
            "DATABASE_URL": "postgres://u:pw@h/d",
            "OPENAI_API_KEY": "sk-parent",
        },
    )
    assert result.exit_code == 0
    assert "pw@h" not in result.stdout and "sk-parent" not in result.stdout
    assert "TMPDIR=" in result.stdout  # the private temp dir


@landlock_only
def test_sandbox_mode_says_landlock_where_the_kernel_has_it() -> None:
    assert sandbox_mode() == "landlock"
    assert launcher.describe_sandbox().startswith("sandbox: landlock (ABI ")


def test_sandbox_mode_says_policy_only_when_switched_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AIQ_SANDBOX", "off")
    assert sandbox_mode() == "policy only"
    assert launcher.describe_sandbox().startswith("sandbox: policy only")


@landlock_only
async def test_child_cannot_read_outside_its_roots(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("private")
    result = await _run(["cat", str(outside)], project)
    assert result.sandbox == "landlock"
    assert (
        result.exit_code != 0
        and "Permission denied" in result.stderr
        and "private" not in result.stdout
    )


@landlock_only
async def test_child_cannot_read_etc_shadow_but_reads_other_etc_files(
    project: Path,
) -> None:
    if not Path("/etc/shadow").exists():
        pytest.skip("/etc/shadow does not exist here")
    shadow = await _run(["cat", "/etc/shadow"], project)
    assert shadow.exit_code != 0 and "Permission denied" in shadow.stderr
    passwd = await _run(["cat", "/etc/passwd"], project)
    assert passwd.exit_code == 0 and "root" in passwd.stdout


@landlock_only
async def test_child_cannot_read_the_parents_environ(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 6: /proc/PPID/environ carried the API key to the model."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    result = await _run(["cat", f"/proc/{os.getpid()}/environ"], project)
    assert result.exit_code != 0 and "sk-must-not-leak" not in result.stdout


@landlock_only
async def test_child_writes_only_its_write_roots(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "planted.txt"
    result = await _run(
        ["sh", "-c", f"echo in > inside.txt; echo out > {target}; echo t > $TMPDIR/t"],
        project,
    )
    assert (project / "inside.txt").read_text() == "in\n"
    assert not target.exists() and "Permission denied" in result.stderr
    assert "TMPDIR" not in result.stderr  # the private temp dir is writable


@landlock_only
async def test_read_only_roots_are_not_writable(project: Path, tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "data.txt").write_text("skill data")
    result = await _run(
        ["sh", "-c", f"cat {skills}/data.txt; echo x > {skills}/new.txt"],
        project,
        read_roots=[project, skills],
    )
    assert "skill data" in result.stdout and not (skills / "new.txt").exists()


@landlock_only
async def test_python_interpreter_runs_a_script_inside_the_sandbox(
    project: Path, tmp_path: Path
) -> None:
    import sys

    (project / "s.py").write_text(
        f"print(open('s.py').read()[:5]); open({str(tmp_path / 'x')!r}, 'w')\n"
    )
    result = await _run([sys.executable, "s.py"], project)
    assert result.stdout.startswith("print") and "PermissionError" in result.stderr


@namespaces_only
async def test_network_is_off_unless_asked_for(project: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    accepted: list[bool] = []
    thread = threading.Thread(
        target=lambda: (server.settimeout(5), accepted.append(bool(server.accept()))),
        daemon=True,
    )
    try:
        thread.start()
        probe = ["sh", "-c", f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"]
        if not Path("/bin/bash").exists():
            pytest.skip("bash is needed for the /dev/tcp probe")
        probe[0] = "bash"
        blocked = await _run(probe, project)
        assert (
            blocked.network == "off (namespace)" and "connected" not in blocked.stdout
        )
        allowed = await _run(probe, project, network=True)
        assert allowed.network == "on" and "connected" in allowed.stdout
    finally:
        thread.join(6)
        server.close()


async def test_timeout_kills_the_whole_process_group(
    project: Path, tmp_path: Path
) -> None:
    result = await _run(
        ["sh", "-c", "sleep 600 & echo forked; sleep 30"], project, timeout=2
    )
    assert result.timed_out and result.exit_code is not None and result.exit_code < 0
    assert result.stdout == "forked\n", (
        result
    )  # the grandchild was started before the kill
    await until_none_in(project, "a grandchild")


async def test_leftover_group_members_die_with_a_normal_exit(project: Path) -> None:
    result = await _run(["sh", "-c", "sleep 600 & echo started"], project)
    assert result.exit_code == 0 and result.stdout == "started\n"
    await until_none_in(project, "a leftover group member")


async def test_output_is_streamed_with_a_byte_cap(project: Path) -> None:
    result = await _run(
        ["sh", "-c", "head -c 5000000 /dev/zero | tr '\\0' x; echo err >&2"],
        project,
        output_cap=1000,
    )
    assert len(result.stdout) == 1000 and result.stdout_truncated and result.truncated
    assert result.stderr == "err\n" and not result.stderr_truncated


async def test_policy_only_mode_still_runs_and_says_so(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AIQ_SANDBOX", "off")
    outside = tmp_path / "outside.txt"
    outside.write_text("readable without Landlock")
    result = await _run(["cat", str(outside)], project)
    assert (
        result.sandbox == "policy only" and result.stdout == "readable without Landlock"
    )


async def test_a_missing_program_is_exit_127(project: Path) -> None:
    result = await _run(["definitely-not-a-program-xyz"], project)
    assert result.exit_code == 127 and "not found" in result.stderr


def test_the_banner_warns_when_started_in_home_or_root(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = Path(os.path.expanduser("~"))
    assert "started in" in launcher.sandbox_warning(home)
    assert "started in" in launcher.sandbox_warning(Path("/"))
    assert "started in" not in launcher.sandbox_warning(tmp_path)
    monkeypatch.setenv("AIQ_SANDBOX", "off")
    assert "policy only" in launcher.sandbox_warning(tmp_path)


def test_ask_names_the_enforcement_before_the_first_tool_call(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aiq_tui.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["ask", "how many customers are there?"]) == 0
    err = capsys.readouterr().err
    assert (
        f"sandbox: {'landlock' if sandbox_mode() == 'landlock' else 'policy only'}"
        in err
    )


@namespaces_only
async def test_a_setsid_daemon_does_not_outlive_the_call(project: Path) -> None:
    """A PID namespace per command: when the command exits, the kernel kills what it left."""
    script = "setsid sleep 600 </dev/null >/dev/null 2>&1 & echo started"
    result = await _run(["sh", "-c", script], project)
    assert result.exit_code == 0 and result.stdout == "started\n"
    await until_none_in(project, "a setsid process")


@landlock_only
async def test_proc_self_still_works_inside_the_namespaces(project: Path) -> None:
    result = await _run(["cat", "/proc/self/status"], project)
    assert result.exit_code == 0 and "Pid:" in result.stdout


@namespaces_only
async def test_the_projects_git_stays_read_only_inside_the_writable_project(
    project: Path,
) -> None:
    # A hook written into .git would run at the user's next commit, outside any sandbox.
    hooks = project / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (project / ".git" / "config").write_text("[core]\n")
    result = await _run(
        [
            "sh",
            "-c",
            "echo evil > .git/hooks/pre-commit; echo '[x]' >> .git/config; "
            "rm -f .git/config; mv .git gone; echo fine > work.txt",
        ],
        project,
    )
    assert (
        not (hooks / "pre-commit").exists()
        and (project / ".git" / "config").read_text() == "[core]\n"
    )
    assert not (project / "gone").exists() and "Read-only file system" in result.stderr
    assert (
        project / "work.txt"
    ).read_text() == "fine\n"  # the rest of the project stays writable


@namespaces_only
async def test_a_git_file_of_a_worktree_is_kept_read_only_too(project: Path) -> None:
    (project / ".git").write_text("gitdir: /elsewhere\n")
    await _run(["sh", "-c", "echo 'gitdir: /tmp/planted' > .git"], project)
    assert (project / ".git").read_text() == "gitdir: /elsewhere\n"


def test_the_helper_refuses_to_run_when_it_cannot_protect(project: Path) -> None:
    import subprocess
    import sys

    (project / ".git").mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            str(launcher._HELPER),
            "--no-namespaces",
            "--protect",
            str(project / ".git"),
            "--",
            "touch",
            str(project / "ran"),
        ],
        capture_output=True,
        text=True,
    )
    assert (
        done.returncode == 125
        and "not run" in done.stderr
        and not (project / "ran").exists()
    )
