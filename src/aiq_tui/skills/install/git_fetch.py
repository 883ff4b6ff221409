"""Git itself, for skill repositories: a shallow, sparse, partial clone cached under the home.

One cache repository per URL (``<home>/data/git/<name>-<hash>``), reused by every install,
update and check of that URL. A fetch asks for one commit and no history (``--depth 1``) and
no file contents (``--filter=blob:none``); the work tree is sparse, so git fetches the blobs of
exactly the paths checked out: first every ``SKILL.md`` and plugin manifest (enough to find the
skills, :meth:`GitCache.checkout`), then the folders of the skills chosen
(:meth:`GitCache.widen`). A server without partial clone (a plain ``file://`` repository) sends
everything instead; the bounds below hold either way.

Bounds (``install.*`` in config.yaml): the bytes git writes to the cache (watched while git
runs, the process ended when they pass ``install.max_bytes``), the files checked out
(``install.max_files``) and one deadline for the whole fetch (``install.timeout_seconds``).

Git runs with no terminal prompt (``GIT_TERMINAL_PROMPT=0``, ssh in batch mode) so a private
repository fails at once with a message that says what to set up, instead of waiting for a
password nobody types. Nothing from the repository runs: no hooks (an empty template, and
``core.hooksPath`` pointed nowhere), no submodules, no LFS smudge, no fsmonitor.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

Progress = Callable[[str], None]

DISCOVERY_PATTERNS = ("SKILL.md", "**/.claude-plugin/*.json", "/.claude-plugin/*.json")
"""What the first checkout holds: enough to find every skill and plugin manifest."""

_SAFE = (
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
    "-c", "submodule.recurse=false",
    "-c", "advice.detachedHead=false",
    "-c", "init.defaultBranch=main",
    "-c", "protocol.version=2",
)  # fmt: skip
_AUTH = (
    "authentication failed",
    "could not read username",
    "could not read password",
    "terminal prompts disabled",
    "permission denied",
    "returned error: 401",
    "returned error: 403",
    "http 401",
    "http 403",
    "invalid username or password",
    "host key verification failed",
)
_NOT_FOUND = (
    "repository not found",
    "does not appear to be a git repository",
    "not found",
    "returned error: 404",
    "no such file or directory",
)
_UNKNOWN_REF = (
    "couldn't find remote ref",
    "no such remote ref",
    "not our ref",
    "unadvertised object",
)


@dataclass(frozen=True)
class FetchLimits:
    """Bounds of one fetch (see the module doc)."""

    max_bytes: int = 50_000_000
    max_files: int = 5_000
    timeout_seconds: float = 120.0


class GitError(Exception):
    """A git operation failed; ``kind`` says how (``auth``, ``not-found``, ``unknown-ref``,
    ``too-large``, ``too-many-files``, ``timeout``, ``no-git``, ``failed``) and ``str()`` what
    to do about it."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Checkout:
    """A commit of a repository checked out (sparsely) in the cache."""

    root: Path
    url: str
    commit: str
    ref: str | None


def cache_dir_for(cache_root: Path, url: str) -> Path:
    """The cache repository of ``url``: readable name + a hash of the whole URL."""
    tail = re.sub(r"\.git$", "", url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1])
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", tail).strip("-.") or "repo"
    return cache_root / f"{slug[:40]}-{hashlib.sha256(url.encode()).hexdigest()[:12]}"


class GitCache:
    """The repositories fetched so far, under ``root`` (``<home>/data/git``)."""

    def __init__(
        self,
        root: Path,
        limits: FetchLimits | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.root = root
        self.limits = limits or FetchLimits()
        self.progress = progress or (lambda _text: None)
        self._deadline = 0.0

    # -- the public steps ----------------------------------------------------------------------

    def checkout(
        self, url: str, ref: str | None = None, commit: str | None = None
    ) -> Checkout:
        """Fetch ``commit`` (exact), else ``ref``, else the default branch, and check out its
        ``SKILL.md`` files and plugin manifests. Raises :class:`GitError`."""
        if shutil.which("git") is None:
            raise GitError(
                "no-git",
                "git is not installed; install git to install skills from repositories",
            )
        self._deadline = time.monotonic() + self.limits.timeout_seconds
        repo = cache_dir_for(self.root, url)
        self._prepare(repo, url)
        wanted = commit or ref or "HEAD"
        self.progress(f"fetching {url}" + (f" at {wanted}" if wanted != "HEAD" else ""))
        try:
            self._fetch(repo, url, wanted)
        except GitError as exc:
            if commit is None or exc.kind != "unknown-ref" or not ref:
                raise
            # A server that refuses a commit by id: fetch the ref; the caller compares.
            self._fetch(repo, url, ref)
        resolved = self._git(
            repo, "rev-parse", "--verify", "FETCH_HEAD^{commit}"
        ).strip()
        self._sparse(repo, DISCOVERY_PATTERNS)
        self._git(repo, "checkout", "--force", "--detach", resolved, fetches=True)
        self._check_size(repo)
        return Checkout(repo, url, resolved, ref)

    def widen(
        self, checkout: Checkout, folders: Sequence[str], files: Sequence[str] = ()
    ) -> None:
        """Check out the whole of each folder (relative to the repository root) besides the
        discovery files: the skills about to be installed, and ``files`` (what links in them
        point to elsewhere in the repository). Bounded by ``max_files``."""
        self._deadline = time.monotonic() + self.limits.timeout_seconds
        listed = self.files_in(checkout, folders)
        if len(listed) > self.limits.max_files:
            raise GitError(
                "too-many-files",
                f"{checkout.url}: the chosen skills hold {len(listed)} files, more than "
                f"install.max_files ({self.limits.max_files}); choose fewer with --skill, or raise it",
            )
        patterns = list(DISCOVERY_PATTERNS) + [
            "/" + folder.strip("/") + "/" if folder.strip("/") else "/*"
            for folder in folders
        ]
        patterns += ["/" + path.strip("/") for path in files]
        self.progress(f"checking out {len(folders)} skill folder(s)")
        self._sparse(checkout.root, patterns)
        self._git(
            checkout.root,
            "checkout",
            "--force",
            "--detach",
            checkout.commit,
            fetches=True,
        )
        self._check_size(checkout.root)

    def files_in(self, checkout: Checkout, folders: Sequence[str]) -> list[str]:
        """Every file path of the commit under ``folders`` (from the trees: no blob fetched)."""
        self._deadline = max(
            self._deadline, time.monotonic() + self.limits.timeout_seconds
        )
        listing = self._git(
            checkout.root, "ls-tree", "-r", "-z", "--name-only", checkout.commit, "--",
            *[folder.strip("/") or "." for folder in folders],
        )  # fmt: skip
        return [name for name in listing.split("\0") if name]

    def is_branch(self, url: str, ref: str) -> bool:
        """Whether ``ref`` is a branch on the server (True when it cannot be told)."""
        self._deadline = time.monotonic() + self.limits.timeout_seconds
        try:
            out = self._git(None, "ls-remote", "--heads", url, ref, url_for_errors=url)
        except GitError:
            return True
        return bool(out.strip())

    def remote_commit(self, url: str, ref: str | None) -> str | None:
        """The commit ``ref`` (default: HEAD) names on the server now, without fetching; None
        when the server does not advertise it (a commit id, say)."""
        self._deadline = time.monotonic() + self.limits.timeout_seconds
        wanted = ref or "HEAD"
        out = self._git(
            None,
            "ls-remote",
            url,
            wanted,
            f"refs/tags/{wanted}^{{}}",
            url_for_errors=url,
        )
        found: dict[str, str] = {}
        for line in out.splitlines():
            sha, _, name = line.partition("\t")
            found[name] = sha
        for name in (
            f"refs/tags/{wanted}^{{}}",
            f"refs/tags/{wanted}",
            f"refs/heads/{wanted}",
            wanted,
        ):
            if name in found:
                return found[name]
        return None

    # -- git ---------------------------------------------------------------------------------

    def _prepare(self, repo: Path, url: str) -> None:
        if not (repo / ".git").is_dir():
            if repo.exists():
                shutil.rmtree(repo)
            repo.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._git(None, "init", "--quiet", "--template=", str(repo))
            self._git(repo, "remote", "add", "origin", url)
        else:
            self._git(repo, "remote", "set-url", "origin", url)

    def _fetch(self, repo: Path, url: str, wanted: str) -> None:
        self._git(
            repo, "fetch", "--depth", "1", "--filter=blob:none", "--no-tags", "--progress",
            "--no-recurse-submodules", "origin", wanted,
            url_for_errors=url, wanted=wanted, fetches=True,
        )  # fmt: skip

    def _sparse(self, repo: Path, patterns: Sequence[str]) -> None:
        self._git(repo, "sparse-checkout", "set", "--no-cone", *patterns)

    def _check_size(self, repo: Path) -> None:
        size = _tree_bytes(repo)
        if size > self.limits.max_bytes:
            raise GitError(
                "too-large",
                f"the repository needs more than install.max_bytes ({self.limits.max_bytes} bytes): "
                f"{size} bytes fetched and checked out; raise install.max_bytes if you trust it",
            )

    def _git(
        self,
        repo: Path | None,
        *args: str,
        url_for_errors: str | None = None,
        wanted: str | None = None,
        fetches: bool = False,
    ) -> str:
        """Run one git command; its stderr progress goes to ``self.progress``. ``fetches``:
        watch the cache's size while it runs (a fetch, or a checkout that fetches blobs)."""
        command = ["git", *_SAFE]
        if repo is not None:
            command += ["-C", str(repo)]
        command += list(args)
        env = _environment()
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            )
        except OSError as exc:
            raise GitError("no-git", f"cannot run git: {exc}") from exc
        out: list[bytes] = []
        err: list[str] = []
        readers = [
            threading.Thread(
                target=_drain, args=(process.stdout, out.append), daemon=True
            ),
            threading.Thread(
                target=_progress_lines,
                args=(process.stderr, err, self.progress),
                daemon=True,
            ),
        ]
        for reader in readers:
            reader.start()
        try:
            while True:
                left = self._deadline - time.monotonic()
                if left <= 0:
                    process.kill()
                    raise GitError(
                        "timeout",
                        f"git {args[0]} took longer than install.timeout_seconds "
                        f"({self.limits.timeout_seconds:g} s); a slow server or a large repository "
                        "(raise install.timeout_seconds if it is expected)",
                    )
                try:
                    process.wait(timeout=min(0.1, left))
                    break
                except subprocess.TimeoutExpired:
                    if (
                        fetches
                        and repo is not None
                        and _tree_bytes(repo) > self.limits.max_bytes
                    ):
                        process.kill()
                        raise GitError(
                            "too-large",
                            f"{url_for_errors or 'the repository'} is larger than install.max_bytes "
                            f"({self.limits.max_bytes} bytes); the fetch was stopped. Install fewer "
                            "skills (--skill), or raise install.max_bytes if you trust it",
                        ) from None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            for reader in readers:
                reader.join(timeout=5)
        if process.returncode != 0:
            raise _classify(" ".join(args[:1]), "\n".join(err), url_for_errors, wanted)
        return b"".join(out).decode("utf-8", errors="replace")


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"  # never wait for a password nobody types
    env["GCM_INTERACTIVE"] = "never"
    env["GIT_LFS_SKIP_SMUDGE"] = "1"
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    env.pop("GIT_INDEX_FILE", None)
    return env


def _drain(stream: object, sink: Callable[[bytes], None]) -> None:
    for chunk in iter(lambda: stream.read(65536), b""):  # type: ignore[attr-defined]
        sink(chunk)


def _progress_lines(stream: object, lines: list[str], progress: Progress) -> None:
    """git's stderr: progress lines end in ``\\r``, messages in ``\\n``; each goes on."""
    buffer = b""
    for chunk in iter(lambda: stream.read1(4096), b""):  # type: ignore[attr-defined]
        buffer += chunk
        parts = re.split(rb"[\r\n]", buffer)
        buffer = parts.pop()
        for part in parts:
            text = part.decode("utf-8", errors="replace").strip()
            if text:
                lines.append(text)
                del lines[:-200]
                progress(text.removeprefix("remote: "))
    if buffer.strip():
        lines.append(buffer.decode("utf-8", errors="replace").strip())


def _tree_bytes(repo: Path) -> int:
    """Bytes under the cache repository (its objects and its work tree)."""
    total = 0
    for directory, _dirs, files in os.walk(repo):
        for name in files:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                pass
    return total


def _classify(
    action: str, stderr: str, url: str | None, wanted: str | None
) -> GitError:
    lower = stderr.lower()
    detail = _last_fatal(stderr)
    where = url or "the repository"
    if any(marker in lower for marker in _UNKNOWN_REF) and wanted:
        return GitError(
            "unknown-ref",
            f"{where} has no branch, tag or commit named {wanted!r} ({detail}); check the name "
            "(a commit must be given in full, 40 hex digits)",
        )
    if any(marker in lower for marker in _AUTH):
        return GitError(
            "auth",
            f"{where}: access denied ({detail}). A private repository needs credentials git can use "
            "without asking: an ssh key in your agent (ssh -T git@github.com), or a credential helper "
            "or token for https (gh auth setup-git, git config credential.helper)",
        )
    if any(marker in lower for marker in _NOT_FOUND):
        return GitError(
            "not-found",
            f"{where}: no such repository ({detail}). Check the name; a private repository also "
            "answers this way when git has no credentials for it",
        )
    return GitError(
        "failed", f"git {action} failed for {where}: {detail or 'no message'}"
    )


def _last_fatal(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:", "ERROR:"))]
    return (fatal or lines or [""])[0].removeprefix("fatal: ").strip()
