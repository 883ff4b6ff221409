"""Host UNIX sockets are out of reach inside the sandbox (issue 23, finding 2).

A network namespace does not cover sockets named by a path (ssh-agent, docker.sock, D-Bus):
a sandboxed script connected to ``/tmp/…/agent.sock`` and talked to whatever listened there.
"""

from __future__ import annotations

import shutil
import socket
import sys
from pathlib import Path

import pytest

from aiq_tui.locations import Home
from aiq_tui.tools import launcher
from tests.security.scripted import calls, of_type, run_session, write_skill

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the sandbox is Linux-only"
)

# The markers are joined at run time: the skill's own text (which the model is sent in full)
# must not contain the words the test looks for in what the model received.
CONNECT = (
    "import socket,sys\n"
    "try:\n"
    "    s=socket.socket(socket.AF_UNIX)\n"
    "    s.connect(sys.argv[1]); s.sendall(b'stolen-through-the-socket'); print('CONN'+'ECTED')\n"
    "except OSError as e:\n"
    "    print('REF'+'USED', e.errno)\n"
)


@pytest.fixture
def listener(tmp_path: Path):
    """A host agent socket outside the project: connections queue in its backlog."""
    folder = tmp_path / "ssh-XXXX"
    folder.mkdir()
    path = folder / "agent.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(8)
    server.setblocking(False)
    yield path, server
    server.close()


def _connections(server: socket.socket) -> list[bytes]:
    """What reached the listener (the script has finished: anything sent is queued)."""
    received = []
    while True:
        try:
            connection, _ = server.accept()
        except BlockingIOError:
            return received
        connection.settimeout(5)
        try:
            received.append(connection.recv(100))
        finally:
            connection.close()


@linux_only
async def test_a_sandboxed_process_cannot_connect_to_a_host_socket_by_path(
    tmp_path: Path, listener
) -> None:
    path, server = listener
    project = tmp_path / "project"
    project.mkdir()
    result = await launcher.run_process(
        [sys.executable, "-c", CONNECT, str(path)],
        cwd=project,
        timeout=30,
        output_cap=10_000,
        read_roots=[project],
        write_roots=[project],
    )
    assert "CONNECTED" not in result.stdout, result
    assert _connections(server) == []


@linux_only
async def test_a_sandboxed_process_cannot_reach_an_abstract_socket_either(
    tmp_path: Path,
) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(b"\0aiq-test-abstract-" + str(id(tmp_path)).encode())
    server.listen(1)
    server.setblocking(False)
    try:
        code = CONNECT.replace(
            "s.connect(sys.argv[1])", "s.connect(b'\\0'+sys.argv[1].encode())"
        )
        name = "aiq-test-abstract-" + str(id(tmp_path))
        result = await launcher.run_process(
            [sys.executable, "-c", code, name],
            cwd=tmp_path,
            timeout=30,
            output_cap=10_000,
            read_roots=[tmp_path],
            write_roots=[],
        )
        assert "CONNECTED" not in result.stdout
        assert _connections(server) == []
    finally:
        server.close()


@linux_only
def test_an_approved_script_skill_cannot_talk_to_the_ssh_agent(
    tmp_path: Path, isolated_home: Home, listener, monkeypatch, capsys
) -> None:
    """Through the real tool path: the user's own script skill, approved with --yes."""
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        pytest.skip("no system python3 to run the probe inside the sandbox")
    path, server = listener
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    isolated_home.ensure()
    script = f"{python} - '{path}' <<'EOF'\n{CONNECT}EOF\n"
    write_skill(
        isolated_home.skills_dir,
        "probe",
        "type: script\n",
        body=f"```sh\n{script}```\n",
    )
    events, sent, _ = run_session(
        calls(("skill_probe", {})), monkeypatch, capsys, "--yes"
    )
    assert of_type(events, "tool_call_finished"), events
    assert "REFUSED" in sent and "CONNECTED" not in sent
    assert _connections(server) == []
