"""The small files aiq keeps and a project brings, read and written safely — below every layer.

* :func:`atomic_write` writes through a temp file + fsync + rename: a reader (or a crash) never
  sees half a file. The skill store, the trust file, MCP approvals and config edits all use it.
* :func:`open_regular` / :func:`read_regular` open a path without blocking on a FIFO and refuse
  anything that is not a regular file (a link to ``/dev/zero``, a device), reading at most a
  given number of bytes: a SKILL.md, an eval set, a project's ``.mcp.json``.

Nothing here knows about skills, tools or trust: they all import it, it imports none of them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

DIR_MODE = 0o700
FILE_MODE = 0o644


def atomic_write(path: Path, data: bytes | str, mode: int = FILE_MODE) -> None:
    """Write ``data`` to ``path`` via a temp file + fsync + rename: readers never see half a file."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    import tempfile  # writes only: a start that reads never loads it

    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


# -- regular files only ------------------------------------------------------------------------


def open_regular(path: str | os.PathLike[str]) -> tuple[Any, os.stat_result]:
    """Open ``path`` for binary reading without blocking (a FIFO named SKILL.md would hang a
    plain open) and insist on a regular file. Raises ``OSError`` (``FileNotFoundError`` …) or
    :class:`NotRegularFile`."""
    fd, info = open_regular_fd(path)
    try:
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), info
    except BaseException:
        os.close(fd)
        raise


def open_regular_fd(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """:func:`open_regular` as a bare descriptor that the caller closes: no file object, and
    left non-blocking, which changes nothing for a regular file — half the cost per file of
    a 10,000-skill scan."""
    fd = os.open(
        path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
    )
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(f"{os.fspath(path)} is not a regular file")
        return fd, info
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The whole of a small input file a project may bring (an eval set, ``.mcp.json``),
    opened as :func:`open_regular` opens a SKILL.md: a FIFO does not hang, a link to
    ``/dev/zero`` is refused, and at most ``max_bytes`` are read. Raises ``OSError``
    (:class:`NotRegularFile`, :class:`FileTooLarge`, ``FileNotFoundError`` …)."""
    handle, info = open_regular(path)
    with handle:
        if info.st_size > max_bytes:
            raise FileTooLarge(
                f"{os.fspath(path)} is {info.st_size:,} bytes, over the {max_bytes:,}-byte limit"
            )
        data = handle.read(max_bytes + 1)  # the file may grow between fstat and read
    if len(data) > max_bytes:
        raise FileTooLarge(f"{os.fspath(path)} is over the {max_bytes:,}-byte limit")
    return data


class NotRegularFile(OSError):
    """A SKILL.md (or resource) that is a FIFO, socket, device or directory."""


class FileTooLarge(OSError):
    """An input file over the size its reader accepts."""
