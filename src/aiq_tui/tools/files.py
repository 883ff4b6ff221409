"""``file_operations``: read / write / list / exists inside the config home and the cwd.

Containment is decided on the *real* path: symlinks and ``..`` are resolved
(``os.path.realpath``) before the check, and the comparison is an exact, case-sensitive
prefix check on path components (never relying on a case-insensitive file system). Paths with
NUL bytes or a leading ``~`` are refused (no home expansion: ``~`` would name a place the
policy never saw). Relative paths are relative to the cwd.

Skill folders of *trusted* skills known to the catalog are extra *read-only* roots, so
level-3 resources of a skill in ``~/.claude/skills`` can be read (seed 004) but never written;
such a read is capped at ``skills.max_resource_bytes``. An untrusted project's skill folder adds
nothing (a link in a cloned repository must not open a folder outside it).

What the model can never do, whatever it is approved for:

* read the config home, except its ``skills/`` (:mod:`aiq_tui.secret_guard`): sessions hold
  earlier tool results — secrets a user once approved — and ``config/`` the permissions;
* write into the config home (``config/``, ``skills/``, ``sessions/``): a write there could
  allowlist a shell or turn ``deny`` into ``allow`` for a later session — the home is not a
  write root, even when the project contains it;
* write into a ``.git`` directory (hooks run code);
* read or write a FIFO, socket or device (opened non-blocking, checked with ``fstat``).

What asks: reading a file that looks like a secret (``.env*``, ``id_*``, ``*.pem``, ``*.key``,
credentials, ``~/.ssh``, ``~/.aws``, … with backup variants) is permission ``file_read_secret``,
asked every time; when started in ``~`` or ``/`` every read is ``file_read_unscoped`` (asked,
rememberable). Writing a file that another program runs or auto-loads (:mod:`aiq_tui.executed_files`,
the one list: ``.claude/settings.json``, ``.vscode/tasks.json``, ``AGENTS.md``, every harness's
skill folders, ``.husky/``, ``.envrc``, ``.npmrc``, … — plus ``core.hooksPath`` and the
configured skill folders and ``.mcp.json``, judged from the project root and the work tree on the
resolved path and without case, :func:`~aiq_tui.tools.run_outside.runner_of`) is
``file_write:runs``: the approval names what runs it, and only an interactive yes approves it
(never ``--yes``, a config ``allow`` or an "always").

Writes are atomic: a temporary file in the target's directory, flushed and fsynced, then
``os.replace``. Reads and writes are capped at ``tools.file_max_bytes``; listings at
``tools.file_list_max_entries``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from aiq_tui.config import ToolSettings
from aiq_tui.conversation import ToolSpec
from aiq_tui.file_io import atomic_write
from aiq_tui.locations import Home
from aiq_tui.secret_guard import SecretGuard
from aiq_tui.tools.base import ToolResult
from aiq_tui.tools.policy import looks_secret
from aiq_tui.tools.run_outside import (
    WRITE_KEY,
    ProjectLayout,
    project_layout,
    runner_of,
)

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
            "content": {
                "type": "string",
                "description": "Text to write (operation write).",
            },
        },
        "required": ["operation", "path"],
        "additionalProperties": False,
    },
)


class PathRefused(Exception):
    """A path outside what the tool may touch; ``str()`` says why."""


def _contained(path: str, roots: Iterable[str]) -> bool:
    return any(
        path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots
    )


class FileOperationsTool:
    """The ``file_operations`` tool. ``catalog`` (optional) adds skill folders as read roots."""

    def __init__(
        self,
        settings: ToolSettings,
        *,
        home: Home,
        cwd: Path,
        catalog: Any = None,
        resource_cap: int | None = None,
        layout: ProjectLayout | None = None,
    ) -> None:
        self._settings = settings
        self._cwd = os.path.realpath(cwd)
        self._home = os.path.realpath(home.root)
        self._user_home = os.path.realpath(os.path.expanduser("~"))
        self._write_roots = (self._cwd,)
        self._guard = SecretGuard(home)
        # Reads reach the project and the config home's skills; writes only the project.
        self._read_base = tuple(
            dict.fromkeys((self._cwd, os.path.realpath(home.skills_dir)))
        )
        self._catalog = catalog
        self._resource_cap = resource_cap
        self.unscoped = self._cwd in ("/", self._user_home)
        # What aiq-tui itself reads in this project (its configured skill folders, .mcp.json).
        self._layout = layout if layout is not None else project_layout(self._cwd)

    @property
    def spec(self) -> ToolSpec:
        return SPEC

    def permission_key(self, arguments: dict[str, Any]) -> str:
        if arguments.get("operation") == "write":
            return WRITE_KEY if self._runner(arguments) is not None else "file_write"
        try:
            real = self.resolve(arguments.get("path"), write=False)
        except PathRefused:
            return "file_read"  # run() refuses it with the reason
        if looks_secret(real, self._user_home):
            return "file_read_secret"
        if self.unscoped:
            return "file_read_unscoped"
        return "file_read"

    def describe(self, arguments: dict[str, Any]) -> str:
        text = f"{arguments.get('operation', '?')} {arguments.get('path', '')}"
        runner = (
            self._runner(arguments) if arguments.get("operation") == "write" else None
        )
        return f"{text}\n{runner.warning()}" if runner is not None else text

    def _runner(self, arguments: dict[str, Any]) -> Any:
        """Who runs the file a write would change (a git hook, a hook manager…), or None."""
        try:
            real = self.resolve(arguments.get("path"), write=True)
        except PathRefused:
            return None  # run() refuses it with the reason
        return runner_of(real, self._layout)

    def read_roots(self) -> tuple[str, ...]:
        """Where reading is allowed: the project, the config home's skills and every trusted
        catalog skill folder."""
        return tuple(
            dict.fromkeys((*self._read_base, *self._skill_folders(trusted_only=True)))
        )

    def _skill_folders(self, *, trusted_only: bool = False) -> tuple[str, ...]:
        if self._catalog is None:
            return ()
        try:
            return tuple(
                os.path.realpath(meta.folder)
                for meta in self._catalog
                if not trusted_only or getattr(meta, "trusted_source", False)
            )
        except Exception:
            return ()

    def resolve(self, raw: Any, *, write: bool) -> str:
        """The real path for ``raw`` if it may be touched, else :class:`PathRefused`."""
        if not isinstance(raw, str) or not raw:
            raise PathRefused("path must be a non-empty string")
        if "\x00" in raw:
            raise PathRefused("path must not contain NUL bytes")
        if raw.startswith("~"):
            raise PathRefused(
                "'~' is not expanded; give a path relative to the project or an absolute path"
            )
        joined = raw if os.path.isabs(raw) else os.path.join(self._cwd, raw)
        try:
            real = os.path.realpath(joined)
        except (OSError, ValueError) as exc:
            raise PathRefused(f"cannot resolve {raw!r}: {exc}") from exc
        reason = self._guard.config_home_reason(real)
        if reason is not None and not write:
            raise PathRefused(reason)
        roots: Sequence[str] = self._write_roots if write else self.read_roots()
        if not _contained(real, roots):
            where = "written" if write else "read"
            raise PathRefused(
                f"{raw!r} resolves to {real!r}, outside what may be {where}: {', '.join(roots)}"
            )
        if write:
            self._check_writable(raw, real)
        return real

    def _check_writable(self, raw: str, real: str) -> None:
        if _contained(real, (self._home,)):
            raise PathRefused(
                f"{raw!r} is inside the config home ({self._home}); the agent never writes there "
                "(config, skills and sessions change only by the user's hand)"
            )
        if ".git" in real.casefold().split(os.sep):  # .GIT is the git dir on macOS too
            raise PathRefused(
                f"{raw!r} is inside a .git directory; the agent never writes there"
            )

    def refusal(self, arguments: dict[str, Any]) -> str | None:
        """Why :meth:`run` refuses the call's path (asked before the approval), or None."""
        operation = arguments.get("operation")
        if operation not in OPERATIONS:
            return (
                f"operation must be one of {', '.join(OPERATIONS)}; got {operation!r}"
            )
        try:
            self.resolve(arguments.get("path"), write=operation == "write")
        except PathRefused as exc:
            return f"refused: {exc}"
        return None

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        operation = arguments.get("operation")
        if operation not in OPERATIONS:
            return ToolResult.failure(
                f"operation must be one of {', '.join(OPERATIONS)}; got {operation!r}"
            )
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
            return ToolResult.failure(
                f"{operation} {arguments.get('path')!r}: {exc.strerror or exc}"
            )

    def _read(self, path: str) -> ToolResult:
        cap = self._settings.file_max_bytes
        capped_by = "tools.file_max_bytes"
        if self._resource_cap is not None and _contained(path, self._skill_folders()):
            if self._resource_cap < cap:
                cap, capped_by = self._resource_cap, "skills.max_resource_bytes"
        if os.path.isdir(path):
            return ToolResult.failure(f"{path} is a directory; use operation list")
        # Non-blocking open + fstat: a FIFO named like a file must not hang the turn.
        fd = os.open(
            path,
            os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0),
        )
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                return ToolResult.failure(
                    f"{path} is not a regular file (a FIFO, socket or device); refused"
                )
            os.set_blocking(fd, True)
            with os.fdopen(fd, "rb", closefd=True) as handle:
                fd = -1
                data = handle.read(cap + 1)
        finally:
            if fd >= 0:
                os.close(fd)
        truncated = len(data) > cap
        data = data[:cap]
        text = data.decode("utf-8", errors="replace")
        content = {
            "path": path,
            "content": text,
            "bytes": len(data),
            "truncated": truncated,
            "binary": b"\x00" in data,
        }
        if truncated:
            content["limit"] = f"{cap} bytes ({capped_by})"
        return ToolResult(
            ok=True,
            content=content,
            summary=f"read {len(data)} bytes" + (" (truncated)" if truncated else ""),
        )

    def _write(self, path: str, text: Any) -> ToolResult:
        if not isinstance(text, str):
            return ToolResult.failure("operation write needs content (a string)")
        data = text.encode("utf-8")
        cap = self._settings.file_max_bytes
        if len(data) > cap:
            return ToolResult.failure(
                f"content is {len(data)} bytes; the limit is {cap} (tools.file_max_bytes)"
            )
        if os.path.isdir(path):
            return ToolResult.failure(f"{path} is a directory")
        if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
            return ToolResult.failure(
                f"{path} is not a regular file (a FIFO, socket or device); refused"
            )
        directory = os.path.dirname(path)
        os.makedirs(directory, exist_ok=True)
        # makedirs may follow a symlink created meanwhile: check the real directory again.
        if not _contained(os.path.realpath(directory), self._write_roots):
            raise PathRefused(f"{directory!r} resolves outside the writable roots")
        existed = os.path.exists(path)
        mode = stat.S_IMODE(os.stat(path).st_mode) if existed else 0o644
        atomic_write(Path(path), data, mode)
        return ToolResult(
            ok=True,
            content={"path": path, "bytes": len(data), "created": not existed},
            summary=f"wrote {len(data)} bytes",
        )

    def _list(self, path: str) -> ToolResult:
        if not os.path.isdir(path):
            return ToolResult.failure(f"{path} is not a directory")
        cap = self._settings.file_list_max_entries
        names: list[os.DirEntry[str]] = []
        more = False
        with os.scandir(path) as iterator:
            for (
                entry
            ) in iterator:  # never more than cap + 1 held: a huge directory stays cheap
                names.append(entry)
                if len(names) > cap:
                    more = True
                    break
        entries = []
        for entry in sorted(names[:cap], key=lambda e: e.name):
            kind = (
                "symlink" if entry.is_symlink() else "dir" if entry.is_dir() else "file"
            )
            if kind == "file" and not entry.is_file(follow_symlinks=False):
                kind = "other"  # FIFO, socket, device
            size = entry.stat(follow_symlinks=False).st_size if kind == "file" else None
            entries.append({"name": entry.name, "type": kind, "size": size})
        content: dict[str, Any] = {"path": path, "entries": entries, "truncated": more}
        if more:
            content["limit"] = f"{cap} entries (tools.file_list_max_entries)"
        return ToolResult(
            ok=True,
            content=content,
            summary=f"{len(entries)} entries" + (" (capped)" if more else ""),
        )

    def _exists(self, path: str) -> ToolResult:
        exists = os.path.exists(path)
        kind = None if not exists else "dir" if os.path.isdir(path) else "file"
        return ToolResult(
            ok=True,
            content={"path": path, "exists": exists, "type": kind},
            summary="exists" if exists else "does not exist",
        )
