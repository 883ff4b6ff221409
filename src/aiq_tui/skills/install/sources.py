"""What a SOURCE argument names: a git repository (and where in it), or a local folder.

Accepted, as the ``skills`` CLI and openskills accept them:

* ``owner/repo`` and ``owner/repo/path/in/repo`` — GitHub shorthand (``install.github_url``);
* ``https://github.com/owner/repo`` and ``https://github.com/owner/repo/tree/<ref>/<path>``;
* any git URL: ``https://…``, ``http://…``, ``ssh://…``, ``git://…``, ``file://…``,
  ``git@host:owner/repo.git``;
* ``SOURCE#ref`` (the ``skills`` CLI's form) as well as ``--ref``;
* a local path: a folder of skills, one skill, or a git work tree (``./x``, ``../x``, ``/x``,
  ``~/x``, or any existing path).

Nothing here touches the network or the disk beyond asking whether a local path exists.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

SOURCE_TYPES = ("github", "gitlab", "git", "local")
"""The ``sourceType`` values written to the lockfile (the ``skills`` CLI's names)."""

_SHORTHAND = re.compile(r"^([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)((?:/[^\s#]+)*)$")
_GITHUB_TREE = re.compile(
    r"^https?://github\.com/([^/]+)/([^/]+?)(?:\.git)?/tree/([^/]+)(?:/(.+?))?/?$"
)
_GITHUB_REPO = re.compile(r"^https?://github\.com/([^/]+)/([^/]+?)(?:\.git)?/?$")
_GITLAB_TREE = re.compile(r"^(https?://[^/]+)/(.+?)/-/tree/([^/]+)(?:/(.+?))?/?$")
_SCP_LIKE = re.compile(r"^[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:[^/].*$")
_URL_SCHEMES = ("https", "http", "ssh", "git", "file")


class SourceError(ValueError):
    """The SOURCE cannot be understood; the message says what forms are accepted."""


@dataclass(frozen=True)
class Source:
    """A parsed SOURCE.

    ``url`` is what git clones (None for a local folder); ``path`` the local folder (None for a
    repository); ``subpath`` where in the repository or folder to look; ``ref`` a branch, tag
    or commit (None: the default branch). ``lock_source`` and ``source_type`` are what the
    lockfile records."""

    source_type: str
    lock_source: str
    url: str | None = None
    path: Path | None = None
    ref: str | None = None
    subpath: str = ""

    @property
    def is_git(self) -> bool:
        return self.url is not None

    def label(self) -> str:
        """How messages name it: ``owner/repo`` or the URL or path, with ``@ref``."""
        where = self.lock_source + (f"/{self.subpath}" if self.subpath else "")
        return where + (f"@{self.ref}" if self.ref else "")


def parse_source(
    text: str,
    ref: str | None = None,
    *,
    github_url: str = "https://github.com",
    cwd: Path | None = None,
) -> Source:
    """Parse ``text`` (see the module doc). ``ref`` (``--ref``) wins over a ref in the text."""
    raw = text.strip()
    if not raw:
        raise SourceError("SOURCE is empty; give owner/repo, a git URL or a folder")
    base = cwd or Path.cwd()
    local = _local_path(raw, base)
    if local is not None:
        return Source("local", raw, path=local, ref=ref)
    raw, hash_ref = _split_hash_ref(raw)
    ref = ref or hash_ref
    github = github_url.rstrip("/")
    match = _GITHUB_TREE.match(raw)
    if match:
        owner, repo, tree_ref, subpath = match.groups()
        return _github(owner, repo, github, ref or tree_ref, subpath or "")
    match = _GITHUB_REPO.match(raw)
    if match:
        return _github(match.group(1), match.group(2), github, ref, "")
    match = _GITLAB_TREE.match(raw)
    if match:
        host, project, tree_ref, subpath = match.groups()
        url = f"{host}/{project}.git"
        return Source(
            "gitlab", url, url=url, ref=ref or tree_ref, subpath=subpath or ""
        )
    if _SCP_LIKE.match(raw):
        return Source(_host_type(raw), raw, url=raw, ref=ref)
    scheme = urlsplit(raw).scheme.lower()
    if scheme in _URL_SCHEMES:
        if scheme == "file" and not urlsplit(raw).path:
            raise SourceError(
                f"{raw}: a file:// URL needs a path, e.g. file:///srv/git/skills.git"
            )
        return Source(_host_type(raw), raw, url=raw, ref=ref)
    if "://" in raw:
        raise SourceError(
            f"{raw}: unsupported URL scheme {scheme!r}; use https://, ssh://, git://, file:// "
            "or git@host:path"
        )
    match = _SHORTHAND.match(raw)
    if match and not raw.startswith("."):
        owner, repo, rest = match.groups()
        return _github(owner, repo.removesuffix(".git"), github, ref, rest.strip("/"))
    raise SourceError(
        f"{raw!r} is neither an existing folder nor a repository; give owner/repo (GitHub), "
        "a git URL (https://, ssh://, file://, git@host:path) or a path to a folder"
    )


def _github(
    owner: str, repo: str, github: str, ref: str | None, subpath: str
) -> Source:
    url = f"{github}/{owner}/{repo}.git"
    return Source(
        "github", f"{owner}/{repo}", url=url, ref=ref, subpath=subpath.strip("/")
    )


def _host_type(url: str) -> str:
    host = urlsplit(url).hostname or url.split("@", 1)[-1].split(":", 1)[0]
    host = (host or "").lower()
    if host == "github.com":
        return "github"
    if host == "gitlab.com":
        return "gitlab"
    return "git"


def _split_hash_ref(raw: str) -> tuple[str, str | None]:
    head, sep, tail = raw.rpartition("#")
    return (head, tail) if sep and head and tail else (raw, None)


def _local_path(raw: str, cwd: Path) -> Path | None:
    if raw.startswith(("./", "../", "/", "~")) or raw in (".", ".."):
        return Path(os.path.expanduser(raw)) if raw.startswith("~") else (cwd / raw)
    candidate = cwd / raw
    if "://" not in raw and not _SCP_LIKE.match(raw) and candidate.exists():
        return candidate
    return None
