"""``file_operations``: read / write / list / exists inside the config home and the cwd.

Containment is decided on the *real* path: symlinks and ``..`` are resolved
(``os.path.realpath``) before the check, and the comparison is an exact, case-sensitive
prefix check on path components (never relying on a case-insensitive file system). Paths with
NUL bytes or a leading ``~`` are refused (no home expansion: ``~`` would name a place the
policy never saw). Relative paths are relative to the cwd.

Skill folders known to the catalog are extra *read-only* roots, so level-3 resources of a
skill in ``~/.claude/skills`` can be read (seed 004) but never written.

Writes are atomic: a temporary file in the target's directory, flushed and fsynced, then
``os.replace``. Reads and writes are capped at ``tools.file_max_bytes``.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any, Iterable, Sequence

from aiq_tui.config import ToolSettings
from aiq_tui.conversation import ToolSpec
from aiq_tui.locations import Home
from aiq_tui.tools.base import ToolResult

OPERATIONS = ("read", "write", "list", "exists")

SPEC = ToolSpec(
    name="file_operations",
    description=(
        "Read, write, list or check files inside the project directory and the aiq config "
        "home (skill folders are readable too). Relative paths are relative to the project."
    ),
    parameters={
        "type": "object",
        "properties": {
            "operation": {"type": "string", "enum": list(OPERATIONS)},
            "path": {"type": "string", "description": "File or directory path."},
            "content": {"type": "string", "description": "Text to write (operation write)."},
        },
        "required": ["operation", "path"],
        "additionalProperties": False,
    },
)


class PathRefused(Exception):
    """A path outside what the tool may touch; ``str()`` says why."""


def _contained(path: str, roots: Iterable[str]) -> bool:
    for root in roots:
        if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
            return True
    return False


class FileOperationsTool:
    """The ``file_operations`` tool. ``catalog`` (optional) adds skill folders as read roots."""

    def __init__(self, settings: ToolSettings, *, home: Home, cwd: Path, catalog: Any = None) -> None:
        self._settings = settings
        self._cwd = os.path.realpath(cwd)
        self._write_roots = tuple(dict.fromkeys((self._cwd, os.path.realpath(home.root))))
        self._catalog = catalog

    @property
    def spec(self) -> ToolSpec:
        return SPEC

    def permission_key(self, arguments: dict[str, Any]) -> str:
        return "file_write" if arguments.get("operation") == "write" else "file_read"

    def describe(self, arguments: dict[str, Any]) -> str:
        return f"{arguments.get('operation', '?')} {arguments.get('path', '')}"

    def read_roots(self) -> tuple[str, ...]:
        """Where reading is allowed: the write roots plus every catalog skill folder."""
        extra: list[str] = []
        if self._catalog is not None:
            try:
                extra = [os.path.realpath(meta.folder) for meta in self._catalog]
            except Exception:  # a broken catalog narrows, never widens
                extra = []
        return tuple(dict.fromkeys((*self._write_roots, *extra)))

    def resolve(self, raw: Any, *, write: bool) -> str:
        """The real path for ``raw`` if it may be touched, else :class:`PathRefused`."""
        if not isinstance(raw, str) or not raw:
            raise PathRefused("path must be a non-empty string")
        if "\x00" in raw:
            raise PathRefused("path must not contain NUL bytes")
        if raw.startswith("~"):
            raise PathRefused("'~' is not expanded; give a path relative to the project or an absolute path")
        joined = raw if os.path.isabs(raw) else os.path.join(self._cwd, raw)
        try:
            real = os.path.realpath(joined)
        except (OSError, ValueError) as exc:
            raise PathRefused(f"cannot resolve {raw!r}: {exc}") from exc
        roots: Sequence[str] = self._write_roots if write else self.read_roots()
        if not _contained(real, roots):
            where = "written" if write else "read"
            raise PathRefused(
                f"{raw!r} resolves to {real!r}, outside what may be {where}: {', '.join(roots)}"
            )
        return real

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        operation = arguments.get("operation")
        if operation not in OPERATIONS:
            return ToolResult.failure(f"operation must be one of {', '.join(OPERATIONS)}; got {operation!r}")
        try:
            path = self.resolve(arguments.get("path"), write=operation == "write")
            if operation == "read":
                return self._read(path)
            if operation == "write":
                return self._write(path, arguments.get("content"))
            if operation == "list":
                return self._list(path)
            return self._exists(path)
        except PathRefused as exc:
            return ToolResult.failure(f"refused: {exc}")
        except OSError as exc:
            return ToolResult.failure(f"{operation} {arguments.get('path')!r}: {exc.strerror or exc}")

    def _read(self, path: str) -> ToolResult:
        cap = self._settings.file_max_bytes
        if os.path.isdir(path):
            return ToolResult.failure(f"{path} is a directory; use operation list")
        with open(path, "rb") as handle:
            data = handle.read(cap + 1)
        truncated = len(data) > cap
        data = data[:cap]
        text = data.decode("utf-8", errors="replace")
        content = {"path": path, "content": text, "bytes": len(data), "truncated": truncated,
                   "binary": b"\x00" in data}
        return ToolResult(ok=True, content=content,
                          summary=f"read {len(data)} bytes" + (" (truncated)" if truncated else ""))

    def _write(self, path: str, text: Any) -> ToolResult:
        if not isinstance(text, str):
            return ToolResult.failure("operation write needs content (a string)")
        data = text.encode("utf-8")
        cap = self._settings.file_max_bytes
        if len(data) > cap:
            return ToolResult.failure(f"content is {len(data)} bytes; the limit is {cap} (tools.file_max_bytes)")
        if os.path.isdir(path):
            return ToolResult.failure(f"{path} is a directory")
        directory = os.path.dirname(path)
        os.makedirs(directory, exist_ok=True)
        # makedirs may follow a symlink created meanwhile: check the real directory again.
        if not _contained(os.path.realpath(directory), self._write_roots):
            raise PathRefused(f"{directory!r} resolves outside the writable roots")
        existed = os.path.exists(path)
        mode = stat.S_IMODE(os.stat(path).st_mode) if existed else 0o644
        fd, temp = tempfile.mkstemp(prefix=".aiq-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temp, mode)
            os.replace(temp, path)
        except BaseException:
            if os.path.exists(temp):
                os.unlink(temp)
            raise
        return ToolResult(ok=True, content={"path": path, "bytes": len(data), "created": not existed},
                          summary=f"wrote {len(data)} bytes")

    def _list(self, path: str) -> ToolResult:
        if not os.path.isdir(path):
            return ToolResult.failure(f"{path} is not a directory")
        entries = []
        with os.scandir(path) as iterator:
            for entry in sorted(iterator, key=lambda e: e.name):
                kind = "symlink" if entry.is_symlink() else "dir" if entry.is_dir() else "file"
                size = entry.stat(follow_symlinks=False).st_size if kind == "file" else None
                entries.append({"name": entry.name, "type": kind, "size": size})
        return ToolResult(ok=True, content={"path": path, "entries": entries},
                          summary=f"{len(entries)} entries")

    def _exists(self, path: str) -> ToolResult:
        exists = os.path.exists(path)
        kind = None if not exists else "dir" if os.path.isdir(path) else "file"
        return ToolResult(ok=True, content={"path": path, "exists": exists, "type": kind},
                          summary="exists" if exists else "does not exist")
