"""The one secret guard for everything that returns content to the model.

``file_operations``, ``read_skill_resource``, a skill's resource listing and every process the
agent starts ask here, so a name that looks secret to one of them looks secret to all:

* :func:`looks_secret` — a file whose *name or place* says it holds a credential: ``.env*``
  (``.envrc``, ``.env-local``, ``.env_prod``…), ``id_*`` keys, ``*.pem``, ``*.key``,
  ``credentials*``, ``.netrc``, ``.pgpass``, ``.npmrc``, ``.pypirc``, ``.git-credentials``,
  kube configs, Terraform state, password and token files (``db_password.txt``, ``api_key.txt``,
  ``github_token``), platform secret files (``.dev.vars``, ``local.settings.json``), a
  repository's ``.git/config`` (remote URLs with tokens, ``actions/checkout``'s extraheader),
  anything under ``.ssh``, ``.aws``, ``.gnupg``, ``.docker``, ``.kube``, ``secrets/``,
  ``credentials/``… A backup of one (``id_rsa.bak``, ``.env~``, ``credentials.json.old``) is one too.
  ``*.example`` / ``*.sample`` / ``*.template`` copies are not, and neither is source code or
  documentation *about* credentials (``credentials.py``, ``secrets-howto.md``).
* :meth:`SecretGuard.config_home_reason` — the config home is never readable by the model,
  through any tool: its sessions hold earlier tool results (secrets a user once approved),
  its ``config/`` the permissions. Only its ``skills/`` folder is skill content.
* :class:`SecretScanner` — the secret files and folders under a tree, for the launcher to
  mask in the sandbox (a command given ``.`` must not read ``.env``). Directory listings are
  cached by mtime, ctime and inode, so an unchanged project costs one ``stat`` per folder.

A name is a first filter, not proof: a secret under an innocent name is not recognised. What
holds regardless is the sandbox (a command reads only its roots) and the approvals.
"""

from __future__ import annotations

import os
import re
import stat
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiq_tui.locations import Home

# Suffixes an editor or a person adds to a copy: ``id_rsa.bak``, ``.env~``, ``key.pem.orig``.
_BACKUP = re.compile(
    r"(?:~|\.(?:bak|backup|old|orig|save|sav|swp|swo|tmp|copy|prev|\d+))+$",
    re.IGNORECASE,
)
# Copies meant to be committed: never secret.
_EXAMPLE = re.compile(
    r"[._-](?:example|examples|sample|samples|template|templates|dist|tmpl|defaults?)$",
    re.IGNORECASE,
)
# What a file is always, whatever its extension.
_ALWAYS = re.compile(
    r"^(?:\.env.*|.+\.env|id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?.*|id_[a-z0-9_-]+|"
    r".+\.(?:pem|key|p8|p12|pfx|jks|keystore|kdbx|gpg|pgp|asc|ppk|keytab|ovpn|tfstate|tfvars|age)|"
    r"\.?netrc|_netrc|\.pgpass|\.npmrc|\.yarnrc(?:\.yml)?|\.pypirc|\.git-credentials|\.gitcredentials|"
    r"\.htpasswd|\.my\.cnf|\.mylogin\.cnf|\.dev\.vars|local\.settings\.json|\.p4tickets|\.boto|\.s3cfg|\.dockercfg|\.vault-token|\.terraformrc|terraform\.rc|"
    r"kubeconfig.*|known_hosts|authorized_keys|shadow|gshadow|master\.passwd|\.[a-z]*_history|\.lesshst|"
    r"\.(?:bash|zsh|python|psql|mysql|node_repl|sqlite)_history)$",
    re.IGNORECASE,
)
# Names that say "secret" unless the file is code or prose about the subject.
_FAMILY = re.compile(
    r"^(?:(?:.*[-_.])?credentials?(?:[-_.].*)?|(?:.*[-_.])?secrets?(?:[-_.].*)?|tokens?(?:\.[a-z]+)?|"
    r"(?:.*[-_.])?(?:passwords?|passwd|pass[-_]?phrases?)(?:[-_.].*)?|"
    r"(?:.*[-_.])?(?:access|auth|oauth|api|bearer|refresh|session|bot|github|gitlab|gh|slack|npm|pypi)"
    r"[-_]?tokens?(?:[-_.].*)?|"
    r"(?:.*[-_.])?(?:private|api|secret|signing|access|master|encryption)[-_]?keys?(?:[-_.].*)?|"
    r".*access_?keys?.*\.csv|service[-_]?account.*\.json|client_secret.*\.json|auth\.json)$",
    re.IGNORECASE,
)
_CODE_OR_PROSE = frozenset(
    {
        "md",
        "markdown",
        "rst",
        "adoc",
        "html",
        "htm",
        "py",
        "pyi",
        "js",
        "mjs",
        "cjs",
        "ts",
        "tsx",
        "jsx",
        "go",
        "rb",
        "java",
        "kt",
        "rs",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "php",
        "swift",
        "scala",
        "css",
        "vue",
        "svelte",
        "pyc",
        "class",
        "o",
    }
)
# Folders whose every file is a credential, wherever they sit (a project may hold a copy too).
_SECRET_DIRS = frozenset(
    {
        ".ssh",
        ".aws",
        ".gnupg",
        ".docker",
        ".kube",
        ".azure",
        ".password-store",
        ".terraform.d",
        ".gcloud",
        "secrets",
        ".secrets",
        "credentials",
        ".credentials",
    }
)
# Folders that are secret only under this parent (``.config/gh``, ``.local/share/keyrings``).
_SECRET_SUBDIRS = frozenset(
    {
        (".config", "gcloud"),
        (".config", "gh"),
        (".config", "op"),
        (".config", "hub"),
        ("share", "keyrings"),
    }
)


# Files that are secret only in this folder: a repository's config keeps remote URLs with
# ``user:token@`` and ``actions/checkout``'s ``http.extraheader`` (the CI token); Mercurial's
# keeps ``[auth]`` passwords.
_SECRET_FILES_IN = frozenset({(".git", "config"), (".hg", "hgrc")})


def _bare_name(name: str) -> str:
    """``name`` without backup suffixes (``id_rsa.bak`` → ``id_rsa``); unchanged if nothing remains."""
    stripped = _BACKUP.sub("", name)
    return stripped or name


def secret_name(name: str) -> bool:
    """Whether a file *called* ``name`` looks like it holds a secret (no folder involved)."""
    bare = _bare_name(name)
    if _EXAMPLE.search(bare):
        return False
    if _ALWAYS.match(bare):
        return True
    if _FAMILY.match(bare):
        extension = bare.rpartition(".")[2].lower() if "." in bare.lstrip(".") else ""
        return extension not in _CODE_OR_PROSE
    return False


def secret_file(parent: str, name: str) -> bool:
    """Whether a file called ``name`` in a folder called ``parent`` looks like a secret."""
    return secret_name(name) or (parent, name) in _SECRET_FILES_IN


def secret_dir(parent: str, name: str) -> bool:
    """Whether the folder ``parent/name`` holds credentials as a whole (``.ssh``, ``.config/gh``…)."""
    return name in _SECRET_DIRS or (parent, name) in _SECRET_SUBDIRS


def looks_secret(path: str | os.PathLike[str], user_home: str | None = None) -> bool:
    """Whether a (real, absolute or relative) path looks like it holds a secret: its name, or a
    folder on the way (``…/.ssh/config``, ``…/.config/gh/hosts.yml``). ``user_home`` is accepted
    for callers of the old signature; folders are recognised wherever they are."""
    parts = [part for part in os.fspath(path).split(os.sep) if part]
    if not parts:
        return False
    if secret_file(parts[-2] if len(parts) > 1 else "", parts[-1]):
        return True
    for index, part in enumerate(parts[:-1]):
        if secret_dir(parts[index - 1] if index else "", part):
            return True
    return secret_dir(
        parts[-2] if len(parts) > 1 else "", parts[-1]
    )  # the folder itself


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class SecretGuard:
    """The checks of this module bound to one config home (and the user's home)."""

    def __init__(self, home: Home | None, user_home: str | None = None) -> None:
        self.home_root = os.path.realpath(home.root) if home is not None else None
        self.home_skills = (
            os.path.realpath(home.skills_dir) if home is not None else None
        )
        self.user_home = os.path.realpath(user_home or os.path.expanduser("~"))

    def looks_secret(self, real_path: str) -> bool:
        return looks_secret(real_path)

    def config_home_reason(self, real_path: str) -> str | None:
        """Why the model may not read ``real_path`` (inside the config home, outside its
        ``skills/``), or None."""
        if self.home_root is None or not _inside(real_path, self.home_root):
            return None
        if (
            self.home_skills is not None
            and _inside(real_path, self.home_skills)
            and real_path != self.home_root
        ):
            return None
        return (
            f"{real_path} is in the aiq config home ({self.home_root}), which the model never reads: "
            "sessions hold earlier tool results and config/ the permissions"
        )

    def hidden_in_config_home(self) -> list[str]:
        """What of the config home a process must not see: every entry but ``skills/``."""
        if self.home_root is None:
            return []
        try:
            names = os.listdir(self.home_root)
        except OSError:
            return []
        return [
            os.path.join(self.home_root, name)
            for name in sorted(names)
            if os.path.join(self.home_root, name) != self.home_skills
        ]


@dataclass(frozen=True)
class SecretScan:
    """Secret files and folders found under some roots. ``complete`` is False when the walk
    stopped at its entry budget (then callers must assume more are there)."""

    files: tuple[str, ...]
    dirs: tuple[str, ...]
    complete: bool


_Listing = tuple[int, int, int, tuple[str, ...], tuple[str, ...], tuple[str, ...], int]
"""(mtime_ns, ctime_ns, inode, secret files, secret dirs, sub-folders to walk, entries)."""


class SecretScanner:
    """Walks trees for secret-looking entries, remembering each folder's answer while the folder
    is unchanged (an added, removed or renamed entry moves its mtime; its ctime cannot be set
    back). Thread-safe; one per launcher policy."""

    SKIP = frozenset({".git"})
    """Not walked: git's own objects. Its ``config`` is checked on its own (it may hold tokens)."""

    def __init__(self, budget: int = 200_000) -> None:
        self.budget = budget
        self._listings: dict[str, _Listing] = {}
        self._lock = threading.Lock()

    def scan(
        self, roots: Iterable[str | os.PathLike[str]], skip: Sequence[str] = ()
    ) -> SecretScan:
        """Secret entries under ``roots`` (real paths), not descending into ``skip`` paths or
        symbolic links (a link's target is checked where it lives, if that is a root)."""
        files: list[str] = []
        dirs: list[str] = []
        seen = 0
        skipped = {os.path.realpath(path) for path in skip}
        stack = [os.path.realpath(root) for root in roots]
        visited: set[str] = set()
        while stack:
            folder = stack.pop()
            if folder in visited or folder in skipped:
                continue
            visited.add(folder)
            listing = self._listing(folder)
            if listing is None:
                continue
            files.extend(listing[3])
            dirs.extend(listing[4])
            seen += listing[6]
            if seen > self.budget:
                return SecretScan(tuple(files), tuple(dirs), False)
            stack.extend(listing[5])
        return SecretScan(tuple(sorted(set(files))), tuple(sorted(set(dirs))), True)

    def _listing(self, folder: str) -> _Listing | None:
        try:
            info = os.stat(folder)
        except OSError:
            return None
        with self._lock:
            cached = self._listings.get(folder)
        if cached is not None and cached[:3] == (
            info.st_mtime_ns,
            info.st_ctime_ns,
            info.st_ino,
        ):
            return cached
        secret_files: list[str] = []
        secret_dirs: list[str] = []
        walk: list[str] = []
        count = 0
        parent = os.path.basename(folder)
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    count += 1
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        continue
                    if is_dir:
                        if secret_dir(parent, entry.name):
                            secret_dirs.append(entry.path)
                        elif entry.name not in self.SKIP:
                            walk.append(entry.path)
                        else:  # not walked, but its config may hold a token
                            secret_files.extend(
                                inside
                                for inside in (
                                    os.path.join(entry.path, name)
                                    for folder, name in _SECRET_FILES_IN
                                    if folder == entry.name
                                )
                                if os.path.isfile(inside)
                            )
                    elif secret_file(parent, entry.name):
                        try:  # a link named like a secret is masked too (the mount covers its target)
                            regular = stat.S_ISREG(
                                entry.stat(follow_symlinks=True).st_mode
                            )
                        except OSError:
                            continue
                        if regular:
                            secret_files.append(entry.path)
        except OSError:
            return None
        listing: _Listing = (
            info.st_mtime_ns,
            info.st_ctime_ns,
            info.st_ino,
            tuple(secret_files),
            tuple(secret_dirs),
            tuple(walk),
            count,
        )
        with self._lock:
            self._listings[folder] = listing
        return listing
