"""``skills import URL`` (issue 23, finding 4): every redirect hop is checked like
``http_request`` checks it — a hop to a private, loopback or link-local address that the user
did not name is refused and nothing is stored — and the lockfile records the final URL.

The servers are real, on 127.0.0.1; a public host is simulated with an httpx transport so no
packet leaves the machine.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiq_tui.cli import main
from aiq_tui.config import AppConfig
from aiq_tui.skills.importer import ImportError_, import_skills

SKILL = b"---\nname: deploy-guide\ndescription: How we deploy\n---\nSteps.\n"
SECRET = b"---\nname: cloud-metadata\ndescription: instance credentials\n---\nAKIA-SECRET-TOKEN\n"


def _server(
    routes: dict[str, tuple[int, dict[str, str], bytes]],
) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            status, headers, body = routes.get(self.path, (404, {}, b"missing"))
            self.send_response(status)
            for name, value in {**headers, "Content-Length": str(len(body))}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"127.0.0.1:{httpd.server_address[1]}"


@pytest.fixture
def internal() -> Iterator[str]:
    """A private service the user never named (think 169.254.169.254 or an admin port)."""
    httpd, where = _server({"/latest/meta-data": (200, {}, SECRET)})
    try:
        yield where
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def host(internal: str) -> Iterator[str]:
    """The server the user imports from; one path redirects to the internal service."""
    routes = {
        "/skill.md": (
            302,
            {"Location": f"http://localhost:{internal.split(':')[1]}/latest/meta-data"},
            b"",
        ),
        "/moved": (301, {"Location": "/skills/deploy/SKILL.md"}, b""),
        "/skills/deploy/SKILL.md": (200, {}, SKILL),
    }
    httpd, where = _server(routes)
    try:
        yield where
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_redirect_to_a_private_address_the_user_did_not_name_is_refused(
    host: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 4: the redirect was followed and the internal page stored as a skill."""
    target = tmp_path / "skills"
    code = main(["skills", "import", f"http://{host}/skill.md", "--dir", str(target)])
    err = capsys.readouterr().err
    assert code == 1
    assert "localhost" in err and "private, loopback or link-local" in err
    assert not target.exists() or not any(target.iterdir())


def test_the_final_url_is_recorded_as_the_source(host: str, tmp_path: Path) -> None:
    from aiq_tui.locations import Home
    from aiq_tui.skills.install.lockfile import read_lock

    home = Home(tmp_path / "home")
    [(name, path)] = import_skills(
        f"http://{host}/moved", home.skills_dir, AppConfig(), home=home
    )
    assert name == "deploy-guide"
    entry = read_lock(home.root / "skills-lock.json").skills[name]
    assert entry.source == f"http://{host}/skills/deploy/SKILL.md"
    assert (
        "source:" not in path.read_text()
    )  # the SKILL.md stays as its author wrote it


@pytest.mark.parametrize(
    "private",
    [
        "http://169.254.169.254/latest/meta-data/iam",
        "http://[::1]:8080/",
        "http://10.0.0.7/admin",
        "http://127.0.0.1:9/",
    ],
)
def test_a_public_host_redirecting_inward_is_refused_before_any_request(
    private: str, tmp_path: Path
) -> None:
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        if request.url.host == "93.184.215.14":
            return httpx.Response(302, headers={"Location": private})
        return httpx.Response(200, content=SECRET)

    with pytest.raises(ImportError_, match="private, loopback or link-local"):
        import_skills(
            "http://93.184.215.14/skill.md",
            tmp_path / "skills",
            AppConfig(),
            transport=httpx.MockTransport(handler),
        )
    assert asked == [
        "http://93.184.215.14/skill.md"
    ]  # the inward hop was never requested
    assert not (tmp_path / "skills").exists()


def test_a_host_that_connects_to_a_private_address_after_a_public_lookup_is_refused(
    internal: str, tmp_path: Path
) -> None:
    """DNS rebinding: the name looked public when checked, the connection went inward. The
    address actually connected to is checked before anything is read."""
    real = httpx.HTTPTransport()

    class Rebinding(httpx.BaseTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            if request.url.host == "93.184.215.14":
                return httpx.Response(
                    302, headers={"Location": "http://93.184.215.15/latest/meta-data"}
                )
            # 93.184.215.15 "resolves" to the internal service this time.
            inward = request.url.copy_with(
                host="127.0.0.1", port=int(internal.split(":")[1])
            )
            return real.handle_request(
                httpx.Request(request.method, inward, headers=request.headers)
            )

    with pytest.raises(
        ImportError_,
        match=r"93.184.215.15 \(127.0.0.1\), a private, loopback or link-local",
    ):
        import_skills(
            "http://93.184.215.14/skill.md",
            tmp_path / "skills",
            AppConfig(),
            transport=Rebinding(),
        )
    assert not (tmp_path / "skills").exists()
