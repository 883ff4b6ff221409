"""Stage, verify, then rename into place: an install is whole or absent, never half written.

:func:`stage` copies a skill folder into a hidden folder *beside* its destination (same file
system, so the final step is a rename) and hashes the copy. :func:`put_in_place` swaps it in:
with Linux's ``renameat2(RENAME_EXCHANGE)`` an existing version and the new one trade places in
one step, and the old one is deleted after; elsewhere the old version is renamed aside first.
Either way a crash leaves the old version or the new one at the destination, plus a hidden
folder that :func:`recover` (run before every install) puts back or deletes.

What a copy holds: the files :mod:`.folder_hash` counts (regular files, no ``.git`` or
``node_modules``). A link to a file inside the skill stays a link (neither tool's hash reads
links); a link to something elsewhere in the repository becomes a copy of what it points to
(the link would dangle in an agent's folder), and a link leading out of the repository refuses
the install: the copy would bring that file's content into the agent's folder.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from aiq_tui.skills.install.folder_hash import SKIPPED_DIRS, skill_folder_hash

STAGE_PREFIX = ".aiq-stage-"
OLD_PREFIX = ".aiq-old-"


class StagingError(Exception):
    """The skill cannot be copied as it is; ``str()`` says which file and why."""


@dataclass(frozen=True)
class Staged:
    """A verified copy waiting beside its destination."""

    folder: Path
    destination: Path
    hash: str
    """The copy's ``computedHash`` (equal to the source's unless links were copied as files)."""
    dereferenced: tuple[str, ...] = ()
    """Links that became copies of their targets."""


def stage(source: Path, destination: Path, bound: Path) -> Staged:
    """Copy ``source`` to a hidden folder beside ``destination``; ``bound`` is what links may
    point into (the repository or the folder the user named)."""
    destination.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    folder = Path(
        tempfile.mkdtemp(
            prefix=f"{STAGE_PREFIX}{destination.name}-", dir=destination.parent
        )
    )
    try:
        dereferenced = _copy_tree(source, folder, source, Path(os.path.realpath(bound)))
        os.chmod(folder, 0o755)
        return Staged(
            folder, destination, skill_folder_hash(folder), tuple(dereferenced)
        )
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def discard(staged: Staged) -> None:
    shutil.rmtree(staged.folder, ignore_errors=True)


def put_in_place(staged: Staged) -> None:
    """Make the staged copy the destination, atomically (see the module doc)."""
    destination = staged.destination
    if os.path.islink(destination) or destination.is_file():
        os.unlink(destination)
    if not os.path.lexists(destination):
        os.rename(staged.folder, destination)
        return
    if _exchange(staged.folder, destination):
        shutil.rmtree(staged.folder)  # now the old version
        return
    old = Path(
        tempfile.mkdtemp(
            prefix=f"{OLD_PREFIX}{destination.name}-", dir=destination.parent
        )
    )
    os.rmdir(old)
    os.rename(destination, old)
    try:
        os.rename(staged.folder, destination)
    except BaseException:
        os.rename(old, destination)
        raise
    shutil.rmtree(old, ignore_errors=True)


def recover(parent: Path) -> list[str]:
    """Finish what an interrupted install left in ``parent``: a set-aside old version whose
    destination is missing goes back; every other hidden stage or old folder is deleted.
    Returns what was done, for a note."""
    done: list[str] = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return done
    for entry in entries:
        if entry.name.startswith(OLD_PREFIX) and entry.is_dir(follow_symlinks=False):
            name = entry.name[len(OLD_PREFIX) :].rsplit("-", 1)[0]
            target = parent / name
            if name and not os.path.lexists(target):
                os.rename(entry.path, target)
                done.append(f"restored {target} (an update was interrupted)")
            else:
                shutil.rmtree(entry.path, ignore_errors=True)
        elif entry.name.startswith(STAGE_PREFIX) and entry.is_dir(
            follow_symlinks=False
        ):
            shutil.rmtree(entry.path, ignore_errors=True)
            done.append(f"removed {entry.path} (an install was interrupted)")
    return done


def link(target: Path, link_path: Path) -> None:
    """A relative symbolic link ``link_path`` → ``target``, replacing what was there (a link,
    or an earlier copy), made beside it and renamed into place."""
    link_path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    real_parent = os.path.realpath(link_path.parent)
    relative = os.path.relpath(os.path.realpath(target), real_parent)
    temp = link_path.parent / f"{STAGE_PREFIX}{link_path.name}-link"
    if os.path.lexists(temp):
        os.unlink(temp)
    os.symlink(relative, temp)
    if os.path.isdir(link_path) and not os.path.islink(link_path):
        staged = Staged(temp, link_path, "")
        put_in_place(staged)  # the old copy is swapped out and deleted
        return
    os.replace(temp, link_path)


def _copy_tree(source: Path, target: Path, skill_root: Path, bound: Path) -> list[str]:
    dereferenced: list[str] = []
    root = os.path.realpath(skill_root)
    for directory, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        relative_dir = os.path.relpath(directory, source)
        out_dir = target if relative_dir == "." else target / relative_dir
        for name in list(dirs):
            path = os.path.join(directory, name)
            if os.path.islink(path):
                dirs.remove(name)  # a linked folder: handled like a linked file
                files.append(name)
            else:
                os.makedirs(out_dir / name, mode=0o755, exist_ok=True)
        for name in files:
            path = os.path.join(directory, name)
            relative = os.path.normpath(os.path.join(relative_dir, name))
            if os.path.islink(path):
                real = os.path.realpath(path)
                if _inside(real, root) and os.path.exists(path):
                    os.symlink(os.readlink(path), out_dir / name)
                    continue
                if not _inside(real, str(bound)):
                    raise StagingError(
                        f"{relative} in {skill_root} is a link to {real}, outside the repository; "
                        "a skill brings its own files only"
                    )
                if not os.path.exists(path):
                    continue  # a dangling link: nothing to copy
                if os.path.isdir(real):
                    shutil.copytree(real, out_dir / name, symlinks=False)
                else:
                    shutil.copyfile(real, out_dir / name)
                dereferenced.append(relative)
                continue
            if not os.path.isfile(path):
                continue  # a fifo or a socket: not a skill's file
            shutil.copyfile(path, out_dir / name)
            mode = os.stat(path).st_mode
            os.chmod(out_dir / name, 0o755 if mode & 0o111 else 0o644)
    return dereferenced


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2``); False where it is not available."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    result = renameat2(
        _AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE
    )
    return result == 0
