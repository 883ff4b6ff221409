"""Import skills: from a skill folder, a SKILL.md, a .zip, or an http(s) URL of either.

Every imported skill is validated before anything is written (a dangerous script or a broken
frontmatter refuses the import), lands in its own folder under the target skills directory
(staged in a temp folder and renamed into place, so a failure never leaves half a skill),
and records where it came from (seed 002: imported skills carry their origin) in the config
home's ``skills-lock.json`` — never in the SKILL.md, whose frontmatter stays exactly as its
author wrote it (a ``source:`` field there would make it invalid for the Agent Skills
specification and every harness that follows it).
A .zip is read with limits — no absolute or ``..`` paths, no links, a size cap — and may
hold one skill or a folder of skills. A folder's links may point anywhere inside what the user
named; a link leading out of it (``notes.md -> ~/.ssh/id_rsa``) refuses the import, since the
copy would bring the target's content into the config home, whose skills the model reads. URLs are fetched with the http tool's limits
(``tools.http_timeout_seconds``, ``tools.http_max_bytes``, ``tools.http_max_redirects``) and
its address checks: a redirect to a private, loopback or link-local address on a host the user
did not name is refused, and the lockfile records the URL the skill finally came from.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tempfile
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from aiq_tui.config import AppConfig
from aiq_tui.file_io import DIR_MODE
from aiq_tui.problems import Severity
from aiq_tui.skills.check import check_file
from aiq_tui.skills.resources import SKILL_FILE
from aiq_tui.skills.store import StoreError, check_skill_name
from aiq_tui.tools.run_outside import foreign_write_refusal

if TYPE_CHECKING:  # httpx loads when a URL is imported
    import httpx

    from aiq_tui.locations import Home
    from aiq_tui.skills.install.preflight import RiskCheck


class ImportError_(Exception):
    """The source cannot be imported; ``str()`` says why and what to fix."""


def import_skills(
    source: str,
    target: Path,
    config: AppConfig,
    *,
    force: bool = False,
    transport: httpx.BaseTransport | None = None,
    home: Home | None = None,
    skipped: list[str] | None = None,
    risk_checks: Sequence[RiskCheck] = (),
    warnings: list[str] | None = None,
) -> list[tuple[str, Path]]:
    """Import every skill ``source`` holds into ``target``; returns ``(name, SKILL.md path)``.
    A file that would land where another program runs it (:mod:`aiq_tui.executed_files`) is
    left out, and why is appended to ``skipped``.
    ``transport`` replaces the network for a URL (tests pass an ``httpx.MockTransport``);
    ``home``: the config home whose lockfile records where each skill came from;
    ``risk_checks``: run on every skill before anything is written (the CLI passes the
    doctor's safety scan) — an error refuses the whole import, naming the skill, file and
    line; their warnings are appended to ``warnings``."""
    with tempfile.TemporaryDirectory(prefix="aiq-import-") as scratch:
        work = Path(scratch)
        recorded = str(Path(source).expanduser().resolve())
        if source.startswith(("http://", "https://")):
            data, recorded = _fetch(
                source, config, transport
            )  # the final URL, after redirects
            if data[:4] == b"PK\x03\x04":
                root = _unzip(data, work / "unzipped", config)
            else:
                root = work / "skill"
                root.mkdir()
                (root / SKILL_FILE).write_bytes(_as_skill_md(data, source))
        else:
            path = Path(source).expanduser()
            if not path.exists():
                raise ImportError_(f"{path} does not exist")
            if path.is_file() and zipfile.is_zipfile(path):
                root = _unzip(path.read_bytes(), work / "unzipped", config)
            elif path.is_file():
                root = work / "skill"
                root.mkdir()
                (root / SKILL_FILE).write_bytes(
                    _as_skill_md(path.read_bytes(), path.name)
                )
            else:
                root = path
        folders = _skill_folders(root)
        if not folders:
            raise ImportError_(f"no {SKILL_FILE} found in {source}")
        # A link may lead anywhere inside what the user named (or what was unpacked), never out.
        bound = Path(
            os.path.realpath(
                root
                if source.startswith(("http://", "https://"))
                or not Path(source).expanduser().is_dir()
                else Path(source).expanduser()
            )
        )
        for folder in folders:
            _refuse_links_out(folder, bound)
        _refuse_flagged(folders, config, risk_checks, warnings)
        imported = [
            _install(folder, target, config, force, skipped) for folder in folders
        ]
        if home is not None:
            _record(home, target, imported, recorded, root, folders)
        return imported


def _record(
    home: Home,
    target: Path,
    imported: list[tuple[str, Path]],
    recorded: str,
    root: Path,
    folders: list[Path],
) -> None:
    """Where each skill came from, in the config home's lockfile (the one home of that fact)."""
    from aiq_tui.skills.install.folder_hash import skill_folder_hash
    from aiq_tui.skills.install.lockfile import LockedSkill, read_lock, write_lock
    from aiq_tui.skills.install.targets import lock_path

    lock = read_lock(lock_path("user", home, Path.cwd()))
    url = recorded.startswith(("http://", "https://"))
    in_home = os.path.realpath(target) == os.path.realpath(home.skills_dir)
    for (name, skill_md), folder in zip(imported, folders):
        relative = os.path.relpath(folder, root).replace(os.sep, "/")
        lock = lock.with_skill(
            name,
            LockedSkill(
                source=recorded,
                source_type="direct-url" if url else "local",
                computed_hash=skill_folder_hash(skill_md.parent),
                skill_path=None
                if url
                else ("SKILL.md" if relative == "." else f"{relative}/SKILL.md"),
                dir=None if in_home else str(target),
            ),
        )
    write_lock(lock)


def _as_skill_md(data: bytes, origin: str) -> bytes:
    """A SKILL.md as is; a plain markdown document (no frontmatter) becomes an instruction skill
    (lango's import of a reference document): named after the file, described by its title."""
    import re

    from aiq_tui.skills.builder import build_instruction_skill
    from aiq_tui.skills.store import render

    text = data.decode("utf-8-sig", errors="replace")
    if text.lstrip().startswith("---"):
        return data
    stem = PurePosixPath(origin.split("?")[0].rstrip("/")).stem
    if stem.upper() in ("SKILL", "README", "INDEX", ""):
        stem = PurePosixPath(origin.split("?")[0].rstrip("/")).parent.name or "imported"
    name = re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-") or "imported"
    title = next(
        (line.lstrip("#").strip() for line in text.splitlines() if line.strip()), ""
    )
    entry = build_instruction_skill(
        name, title[:200] or f"Reference guide for {name}", text.strip("\n")
    )
    return render(entry).encode("utf-8")


def _skill_folders(root: Path) -> list[Path]:
    if (root / SKILL_FILE).is_file():
        return [root]
    return sorted(
        child
        for child in root.iterdir()
        if child.is_dir()
        and not child.name.startswith(".")
        and (child / SKILL_FILE).is_file()
    )


def _refuse_links_out(folder: Path, bound: Path) -> None:
    """Refuse a skill folder holding a link whose target lies outside ``bound``: copying would
    bring the target's content (``notes.md -> ~/.ssh/id_rsa``, a link to the config home's
    sessions) into the config home, whose skills the model reads without asking. Linked
    folders inside ``bound`` are copied too, so they are checked the same way."""
    root = str(bound).rstrip(os.sep) + os.sep
    seen: set[str] = set()
    stack = [str(folder)]
    while stack:
        directory = stack.pop()
        real = os.path.realpath(directory)
        if real in seen:
            continue
        seen.add(real)
        for entry in os.scandir(directory):
            if entry.name.startswith(".") or entry.name == "__pycache__":
                continue  # not copied
            target = os.path.realpath(entry.path)
            if entry.is_symlink() and not (target + os.sep).startswith(root):
                shown = os.path.relpath(entry.path, folder)
                raise ImportError_(
                    f"{shown} in {folder} is a link to {target}, outside {bound}; a skill "
                    "brings its own files only (copy the file into the folder instead)"
                )
            if entry.is_dir():
                stack.append(entry.path)


def _refuse_flagged(
    folders: list[Path],
    config: AppConfig,
    risk_checks: Sequence[RiskCheck],
    warnings: list[str] | None,
) -> None:
    """Nothing is written when a risk check finds an error in any of the skills."""
    from aiq_tui.skills.install.preflight import risk_checks_of

    refused: list[str] = []
    for folder in folders:
        errors, found = risk_checks_of(folder, config.skills, risk_checks)
        refused += errors
        if warnings is not None:
            warnings.extend(found)
    if refused:
        raise ImportError_("nothing was imported: " + "; ".join(refused))


def _install(
    folder: Path,
    target: Path,
    config: AppConfig,
    force: bool,
    skipped: list[str] | None = None,
) -> tuple[str, Path]:
    report = check_file(folder / SKILL_FILE, config.skills)
    errors = [p for p in report.problems if p.severity is Severity.ERROR]
    if errors:
        raise ImportError_(
            f"{report.path} is not a valid skill: " + "; ".join(str(p) for p in errors)
        )
    if not report.name:
        raise ImportError_(f"{report.path} has no name")
    name = check_skill_name(report.name.strip())
    destination = target / name
    if destination.exists() and not force:
        raise ImportError_(
            f"{destination} already exists; use --force to replace it, or remove it first "
            f"(aiq-tui skills rm {name})"
        )
    refusal = foreign_write_refusal(destination / SKILL_FILE)
    if refusal is not None:
        raise ImportError_(refusal)
    target.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=target))
    hidden = shutil.ignore_patterns(".*", "__pycache__")

    def ignored(directory: str, names: list[str]) -> set[str]:
        # What another program would run where the file lands (a skill's AGENTS.md or
        # CLAUDE.md, a folder inside .husky/): left out, and said (aiq_tui.executed_files).
        left_out = set(hidden(directory, names))
        relative = os.path.relpath(directory, folder)
        for entry in names:
            if entry in left_out:
                continue
            landing = os.path.normpath(os.path.join(destination, relative, entry))
            refusal = foreign_write_refusal(landing)
            if refusal is not None:
                left_out.add(entry)
                if skipped is not None:
                    skipped.append(refusal)
        return left_out

    try:
        shutil.copytree(
            folder,
            staging,
            dirs_exist_ok=True,
            symlinks=False,
            ignore=ignored,
        )
        if destination.exists():
            shutil.rmtree(destination)
        os.rename(staging, destination)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return name, destination / SKILL_FILE


def _unzip(data: bytes, into: Path, config: AppConfig) -> Path:
    limit = config.skills.max_skill_bytes
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ImportError_(f"not a valid .zip: {exc}") from exc
    total = 0
    with archive:
        for info in archive.infolist():
            name = PurePosixPath(info.filename)
            if (
                info.filename.startswith("/")
                or ".." in name.parts
                or ":" in info.filename.split("/")[0]
            ):
                raise ImportError_(
                    f"zip entry {info.filename!r} leaves the archive folder; refused"
                )
            if stat.S_ISLNK(info.external_attr >> 16):
                raise ImportError_(
                    f"zip entry {info.filename!r} is a symbolic link; refused"
                )
            total += info.file_size
            if total > limit:
                raise ImportError_(
                    f"the zip unpacks to more than {limit} bytes (skills.max_skill_bytes)"
                )
            if "__MACOSX" in name.parts:
                continue
            destination = into.joinpath(*name.parts)
            if info.is_dir():
                destination.mkdir(parents=True, exist_ok=True)
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as source, open(destination, "wb") as handle:
                shutil.copyfileobj(source, handle)
    # A zip of one top-level folder (e.g. "my-skill/SKILL.md"): that folder is the root.
    children = (
        [c for c in into.iterdir() if not c.name.startswith(".")]
        if into.is_dir()
        else []
    )
    if len(children) == 1 and children[0].is_dir() and not (into / SKILL_FILE).exists():
        inner = children[0]
        return (
            inner if (inner / SKILL_FILE).is_file() or _skill_folders(inner) else into
        )
    return into


def _fetch(
    url: str, config: AppConfig, transport: httpx.BaseTransport | None = None
) -> tuple[bytes, str]:
    """The body at ``url`` and the URL it finally came from, redirects followed hop by hop.

    The host the user typed is their choice, private or not. Any other host a redirect leads
    to is checked like ``http_request`` checks it: resolved first, and refused when it is a
    private, loopback or link-local address; the address actually connected to is checked
    again before anything is read (a name that resolves differently the second time). One
    deadline (``tools.http_timeout_seconds``) covers every hop and the whole body.
    """
    import httpx

    from aiq_tui.tools.http import REDIRECTS

    settings = config.tools
    named = (urlsplit(url).hostname or "").lower()
    deadline = time.monotonic() + settings.http_timeout_seconds
    try:
        with httpx.Client(
            timeout=settings.http_timeout_seconds,
            follow_redirects=False,
            transport=transport,
        ) as client:
            for _hop in range(settings.http_max_redirects + 1):
                _refuse_inward(url, named, _resolved(url))
                with client.stream("GET", url) as response:
                    _refuse_inward(url, named, _connected(response))
                    location = response.headers.get("location")
                    if response.status_code in REDIRECTS and location:
                        url = urljoin(str(response.url), location)
                        if urlsplit(url).scheme not in ("http", "https"):
                            raise ImportError_(
                                f"the redirect to {url!r} is not an http(s) URL"
                            )
                        continue
                    if response.status_code >= 400:
                        raise ImportError_(f"GET {url}: HTTP {response.status_code}")
                    return _read(response, url, settings.http_max_bytes, deadline), url
    except httpx.HTTPError as exc:
        raise ImportError_(f"GET {url}: {type(exc).__name__}: {exc}") from exc
    raise ImportError_(
        f"GET {url}: more than {settings.http_max_redirects} redirects (tools.http_max_redirects)"
    )


def _resolved(url: str) -> list[str]:
    from aiq_tui.tools.http import addresses_of

    parts = urlsplit(url)
    return addresses_of(
        parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
    )


def _connected(response: httpx.Response) -> list[str]:
    """The address the response came from (none through a test transport)."""
    stream = response.extensions.get("network_stream")
    peer = stream.get_extra_info("server_addr") if stream is not None else None
    return [str(peer[0])] if peer else []


def _refuse_inward(url: str, named: str, addresses: list[str]) -> None:
    from aiq_tui.tools.http import is_public

    host = (urlsplit(url).hostname or "").lower()
    private = [address for address in addresses if not is_public(address)]
    if private and host != named:
        raise ImportError_(
            f"the redirect to {url} reaches {host} ({', '.join(private)}), a private, loopback or link-local "
            "address you did not name; nothing was imported. If you trust it, import from that URL directly"
        )


def _read(response: httpx.Response, url: str, cap: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > cap:
            raise ImportError_(
                f"GET {url}: larger than {cap} bytes (tools.http_max_bytes)"
            )
        if time.monotonic() > deadline:
            raise ImportError_(
                f"GET {url}: took longer than the deadline (tools.http_timeout_seconds)"
            )
        chunks.append(chunk)
    return b"".join(chunks)


__all__ = ["ImportError_", "StoreError", "import_skills"]
