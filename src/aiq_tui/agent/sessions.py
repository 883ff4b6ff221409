"""Conversation sessions on disk: ``sessions/session_<id>.json``, written atomically.

A :class:`Session` is the engine's working state for one conversation (mutable on purpose);
:class:`SessionStore` saves it after every turn with temp file + fsync + ``os.replace`` +
directory fsync, so a crash (even SIGKILL mid-write) leaves either the previous or the new
complete file, never a torn one. A long session (from :data:`JOURNAL_FROM_BYTES`) is not
rewritten after every turn: the save appends what the turn added, one JSON line, to its journal
``session_<id>.jsonl`` (write + fsync; a line torn by a crash is ignored on load), and the whole
file is written again only when the journal has grown as large as it — so a turn's save costs the
turn, not the session. A turn whose compression rewrote the history appends the new history
whole (it is what fits the model's window, not the session) in place of the added messages. Each journal line names the file
it extends, so lines left over from before a rewrite are never applied twice. Session files
written before the journal existed (one JSON file) load as before. A file that does not parse is reported as a
:class:`~aiq_tui.problems.Problem` and skipped — it is never overwritten or deleted, so the
user can still rescue it by hand. API keys are never part of a session: only the provider's
config name and model are stored.

Odd text never stops a save: lone surrogates (a model can emit ``"\\ud83d"``) are written as
JSON ``\\uXXXX`` escapes and come back as the same string on load. Two writers of one
session never lose a turn silently: saving takes the session's lock file
(``.session_<id>.lock``, ``flock``) and checks that the file is still the one this store
loaded or last wrote; if another process changed it meanwhile, this turn is saved as a new
session and :class:`SessionBusy` says so. Temp files of killed saves are removed when a store
is opened (start-up) and on every scan.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiq_tui.config import SessionSettings
from aiq_tui.conversation import Message, Role
from aiq_tui.file_io import NotRegularFile, open_regular
from aiq_tui.json_bounds import JSONTooDeep, loads_bounded, nested_deeper_than
from aiq_tui.problems import Problem, Severity
from aiq_tui.replay.record import dump_turns, load_turns
from aiq_tui.skills.model import Phase, SkillState

SESSION_VERSION = 1
JOURNALED_VERSION = 3
"""A base file whose later turns are in its journal: an aiq-tui that knows only version 1 refuses
it rather than show a session missing its newest turns. Version 3's journal lines may replace the
history (``"history"``, after a compression), which version 2 would have appended to instead:
version 2 files still load."""
FILE_PREFIX = "session_"
FILE_SUFFIX = ".json"
JOURNAL_SUFFIX = ".jsonl"
JOURNAL_FROM_BYTES = 256 * 1024
"""A session file smaller than this is rewritten whole at every save (as cheap as an append);
from this size on, a save appends what the turn added to the journal."""
_TEMP_SUFFIX = ".tmp"
_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class SessionError(Exception):
    """A session cannot be used; ``str()`` says which one and what to do."""


class SessionBusy(SessionError, OSError):
    """Another process holds or changed the session; ``str()`` says what happened to this turn."""


class SessionNameError(SessionError):
    """The id given names no single session: not a valid id, an ambiguous prefix, or unknown.
    A usage error for commands (exit 2), where an unreadable file is a failure (exit 1)."""


class SessionNotFound(SessionNameError, KeyError):
    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "session not found"


UNTOUCHED = "the file was left untouched"


class SessionUnreadable(SessionError):
    """A session file that cannot be read: not JSON, the wrong shape, not a regular file, or
    over a limit of :class:`~aiq_tui.config.SessionSettings`. ``path``, ``reason`` and
    ``hint`` are what ``str()`` joins, for callers that show them apart (a listing's problem)."""

    def __init__(
        self,
        path: Path,
        reason: str,
        hint: str = f"{UNTOUCHED}; fix or remove it by hand",
    ):
        self.path, self.reason, self.hint = path, reason, hint
        super().__init__(f"{path}: cannot read session ({reason}); {hint}")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def new_session_id() -> str:
    """Sortable by creation time (UTC second) plus randomness against collisions."""
    return datetime.now(UTC).strftime("%Y%m%d%H%M%S") + "-" + secrets.token_hex(3)


@dataclass(frozen=True)
class ToolCallRecord:
    """One tool call as the tool-call log keeps it."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    summary: str
    ok: bool
    duration_s: float
    at: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "call_id": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
            "summary": self.summary,
            "ok": self.ok,
            "duration_s": self.duration_s,
            "at": self.at,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToolCallRecord:
        return cls(
            call_id=str(data.get("call_id", "")),
            name=str(data["name"]),
            arguments=dict(data.get("arguments") or {}),
            summary=str(data.get("summary", "")),
            ok=bool(data.get("ok", False)),
            duration_s=float(data.get("duration_s", 0.0)),
            at=str(data.get("at", "")),
        )


@dataclass(frozen=True)
class SkillStatus:
    """Where a skill stood when the session was saved (restored on resume)."""

    state: SkillState
    phase: Phase
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state.value,
            "phase": self.phase.label,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SkillStatus:
        phase = data.get("phase", "meta")
        by_label = {p.label: p for p in Phase}
        return cls(
            state=SkillState(data.get("state", "inactive")),
            phase=by_label[phase] if isinstance(phase, str) else Phase(int(phase)),
            reason=str(data.get("reason", "")),
        )


@dataclass(frozen=True)
class TokenFigures:
    """The last budget the engine computed plus cumulative provider-reported usage."""

    window: int = 0
    last_total: int = 0
    parts: dict[str, int] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "window": self.window,
            "last_total": self.last_total,
            "parts": dict(self.parts),
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TokenFigures:
        return cls(
            window=int(data.get("window", 0)),
            last_total=int(data.get("last_total", 0)),
            parts={str(k): int(v) for k, v in (data.get("parts") or {}).items()},
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
        )


@dataclass
class Session:
    """One conversation: what the engine needs to resume it and what the UI lists."""

    id: str
    title: str = ""
    created_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)
    provider: str = ""  # config name, e.g. "openai" — never a key
    model: str = ""
    messages: list[Message] = field(default_factory=list)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    skill_states: dict[str, SkillStatus] = field(default_factory=dict)
    summaries: list[str] = field(default_factory=list)
    tokens: TokenFigures = field(default_factory=TokenFigures)
    version: int = SESSION_VERSION
    replay: list[dict[str, Any]] = field(
        default_factory=list
    )  # engine events per turn (aiq_tui.replay)

    @property
    def display_title(self) -> str:
        """The title, else the first user message (shortened), else the id."""
        return self.title or self._first_words() or self.id

    def _first_words(self) -> str:
        for message in self.messages:
            if (
                message.role is Role.USER
                and not message.summary
                and message.content.strip()
            ):
                text = " ".join(message.content.split())
                # One ellipsis: a message that already ends in one is not given a second.
                return text if len(text) <= 60 else text[:57].rstrip(" .…") + "…"
        return ""

    def keep_title(self) -> None:
        """Before compression folds the first messages into a summary: the title they gave
        becomes the session's, so it never drifts to a later message."""
        if not self.title:
            self.title = self._first_words()

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "id": self.id,
            "title": self.title,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "provider": self.provider,
            "model": self.model,
            "messages": [m.to_json() for m in self.messages],
            "tool_calls": [c.to_json() for c in self.tool_calls],
            "skill_states": {
                name: s.to_json() for name, s in self.skill_states.items()
            },
            "summaries": list(self.summaries),
            "tokens": self.tokens.to_json(),
            "replay": dump_turns(self.replay),
        }

    @classmethod
    def from_data(cls, data: Any) -> Session:
        """A session from its file's parsed JSON. A session file is input, never authority: whatever
        its shape (a list where an object belongs, 1e999 tokens), the only error is a ValueError
        saying what is wrong (:func:`read_session_file` bounds its size and depth first)."""
        try:
            return cls.from_json(data)
        except ValueError:
            raise
        except (
            KeyError,
            TypeError,
            AttributeError,
            OverflowError,
            RecursionError,
        ) as exc:
            detail = (
                f"missing field {exc}"
                if isinstance(exc, KeyError)
                else str(exc) or type(exc).__name__
            )
            raise ValueError(
                f"not a session file ({type(exc).__name__}: {detail})"
            ) from None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Session:
        if not isinstance(data, dict):
            raise ValueError(f"expected a JSON object, found {type(data).__name__}")
        if not isinstance(data.get("id"), str) or not _ID_PATTERN.match(data["id"]):
            raise ValueError(
                f"the session id {str(data.get('id'))[:80]!r} is not letters, digits, '-' and '_'"
            )
        version = int(data.get("version", 0))
        if version > JOURNALED_VERSION:
            raise ValueError(
                f"session format version {version} is newer than this aiq-tui understands "
                f"({JOURNALED_VERSION}); upgrade aiq-tui"
            )
        return cls(
            id=str(data["id"]),
            title=str(data.get("title") or ""),
            created_at=str(data.get("created_at") or ""),
            updated_at=str(data.get("updated_at") or ""),
            provider=str(data.get("provider") or ""),
            model=str(data.get("model") or ""),
            messages=[Message.from_json(m) for m in data.get("messages") or ()],
            tool_calls=[
                ToolCallRecord.from_json(c) for c in data.get("tool_calls") or ()
            ],
            skill_states={
                str(name): SkillStatus.from_json(s)
                for name, s in (data.get("skill_states") or {}).items()
            },
            summaries=[str(s) for s in data.get("summaries") or ()],
            tokens=TokenFigures.from_json(data.get("tokens") or {}),
            version=SESSION_VERSION,
            replay=load_turns(
                data.get("replay")
            ),  # older sessions have none: replay from messages
        )


@dataclass(frozen=True)
class SessionSummary:
    """What ``sessions list`` shows, without keeping every message in memory."""

    id: str
    title: str
    created_at: str
    updated_at: str
    provider: str
    model: str
    messages: int
    path: Path

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "provider": self.provider,
            "model": self.model,
            "messages": self.messages,
            "path": str(self.path),
        }


@dataclass(frozen=True)
class SessionListing:
    sessions: tuple[SessionSummary, ...]
    problems: tuple[Problem, ...]


def _check_id(session_id: str) -> str:
    # Ids become file names: refuse anything that could leave the sessions directory.
    if not _ID_PATTERN.match(session_id):
        raise SessionNameError(
            f"invalid session id {session_id!r}: use letters, digits, '-' and '_' only"
        )
    return session_id


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps_session_json(data: Any) -> str:
    """JSON text that always encodes as UTF-8: lone surrogates become ``\\uXXXX`` escapes
    (valid JSON; ``json.loads`` restores them). They can only occur inside strings.

    Not indented: the session is written after every turn, and an indent makes ``json`` use its
    pure-Python encoder — at turn 150 of a long session that was a quarter of each turn (0.26 s),
    where the C encoder takes a third of the time for a file a third smaller."""
    text = json.dumps(data, ensure_ascii=False, default=str)
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group(0)):04x}", text)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so readers see the old or the new file, never a mix."""
    temp = path.with_name(
        f".{path.name}.{os.getpid()}.{secrets.token_hex(3)}{_TEMP_SUFFIX}"
    )
    data = text.encode("utf-8")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        temp.unlink(missing_ok=True)
        raise
    os.close(fd)
    try:
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def journal_path(path: Path) -> Path:
    """The journal beside a session file: ``session_<id>.jsonl`` (not a ``session_*.json`` file)."""
    return path.with_suffix(JOURNAL_SUFFIX)


_HEAD_FIELDS = (
    "title",
    "created_at",
    "updated_at",
    "provider",
    "model",
    "skill_states",
    "summaries",
    "tokens",
)


def apply_journal(data: Any, journal: str) -> Any:
    """The session file's JSON with its journal's entries applied, in order.

    A journal entry counts only if it is a whole line (a save killed mid-append leaves a torn
    last line: ignored) and names the base it extends (``"journal"``: a base rewritten after
    the journal was appended to already holds those entries, so they are skipped). The first
    line that does not parse ends the journal: what follows a damaged line cannot be trusted."""
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("journal"), str)
        or not journal
    ):
        return data
    generation = data["journal"]
    lines = journal.split("\n")[
        :-1
    ]  # the piece after the last newline is torn or empty
    for line in lines:
        try:
            entry = loads_bounded(line)
        except ValueError:  # JSONTooDeep too: a line nested past json's own limit
            break
        if not isinstance(entry, dict) or entry.get("journal") != generation:
            continue
        history = entry.get("history")
        if isinstance(
            history, list
        ):  # compression rewrote the history: this is all of it now
            data["messages"] = list(history)
        for key in ("messages", "tool_calls"):
            if not isinstance(data.get(key), list):
                data[key] = list(data.get(key) or ())
            data[key].extend(entry.get(key) or ())
        replay = data.get("replay")
        if isinstance(replay, dict) and isinstance(replay.get("turns"), list):
            replay["turns"].extend(entry.get("turns") or ())
        head = entry.get("head")
        if isinstance(head, dict):
            data.update({key: head[key] for key in _HEAD_FIELDS if key in head})
    return data


def _too_large(
    path: Path, size: int, limits: SessionSettings, what: str
) -> SessionUnreadable:
    return SessionUnreadable(
        path,
        f"{what} {size:,} bytes, over the {limits.max_file_bytes:,}-byte limit",
        f"{UNTOUCHED} — raise sessions.max_file_bytes in config.yaml to read it, or move it out of "
        f"{path.parent}",
    )


def _too_deep(path: Path, limits: SessionSettings) -> SessionUnreadable:
    return SessionUnreadable(
        path,
        f"JSON nested deeper than {limits.max_json_depth} levels",
        f"{UNTOUCHED} — aiq-tui writes 10 levels; sessions.max_json_depth in config.yaml is the limit",
    )


def _read_bounded(path: Path, budget: int) -> tuple[bytes, int] | None:
    """``path``'s bytes and its size, or None when there is no such file. Nothing is read of a
    file over ``budget`` (its bytes are then ``b""``), and never more than ``budget + 1`` bytes
    (it may grow after the size is taken). A FIFO does not hang the open and is refused
    (:class:`~aiq_tui.file_io.NotRegularFile`), as is a link to a device."""
    try:
        handle, info = open_regular(path)
    except FileNotFoundError:
        return None
    with handle:
        if info.st_size > budget:
            return b"", info.st_size
        data = handle.read(budget + 1)
    return data, max(info.st_size, len(data))


def _parse(path: Path, text: str, limits: SessionSettings) -> Any:
    try:
        return loads_bounded(text)
    except (
        JSONTooDeep
    ):  # json's own limit, near 1,000 levels: past max_json_depth (≤ 500)
        raise _too_deep(path, limits) from None
    except ValueError as exc:
        raise SessionUnreadable(path, f"not JSON: {exc}") from None


def read_session_file(path: Path, limits: SessionSettings | None = None) -> Session:
    """The session saved at ``path``, its journal (if any) applied: the one way a session file
    is read. A session file is input, never authority: a regular file only (a FIFO neither
    hangs nor is read), with its journal at most ``limits.max_file_bytes``, nested at most
    ``limits.max_json_depth`` deep, in the shape :meth:`Session.from_json` expects. Anything
    else raises :class:`SessionUnreadable`, whose message names the file and what to do;
    :class:`SessionNotFound` when there is no file."""
    limits = limits or SessionSettings()
    budget = limits.max_file_bytes
    try:
        base = _read_bounded(path, budget)
        if base is None:
            raise SessionNotFound(f"no session file {path}")
        data, size = base
        if size > budget:
            raise _too_large(path, size, limits, "the file is")
        journal = _read_bounded(journal_path(path), budget - size) or (b"", 0)
        if size + journal[1] > budget:
            raise _too_large(path, size + journal[1], limits, "with its journal it is")
        text, journal_text = data.decode("utf-8"), journal[0].decode("utf-8")
    except NotRegularFile as exc:
        raise SessionUnreadable(path, f"{exc}; a session is a regular file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SessionUnreadable(path, str(exc)) from None
    parsed = _parse(path, text, limits)
    if journal_text:
        try:
            parsed = apply_journal(parsed, journal_text)
        except (
            TypeError,
            ValueError,
            AttributeError,
        ) as exc:  # an entry of the wrong shape
            raise SessionUnreadable(
                path, f"journal {journal_path(path).name}: {exc}"
            ) from None
    # Once, over the file with its journal applied (an entry's lists join the file's at their depth).
    if nested_deeper_than(parsed, limits.max_json_depth):
        raise _too_deep(path, limits)
    try:
        return Session.from_data(parsed)
    except ValueError as exc:
        raise SessionUnreadable(path, str(exc)) from None


@dataclass
class _Written:
    """What the last save put on disk, by reference: a save whose lists still start with these
    very objects (the engine only appends) appends the rest; a history compression rebuilt is
    appended whole."""

    generation: str
    messages: tuple[Any, ...]
    tool_calls: tuple[Any, ...]
    turns: tuple[Any, ...]
    base_bytes: int
    journal_bytes: int = 0


def _extends(items: list[Any], written: tuple[Any, ...]) -> bool:
    return len(items) >= len(written) and all(a is b for a, b in zip(items, written))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SessionStore:
    """Sessions in one directory (``home.sessions_dir``)."""

    def __init__(
        self,
        directory: Path,
        *,
        journal_from: int = JOURNAL_FROM_BYTES,
        limits: SessionSettings | None = None,
    ):
        self.directory = Path(directory)
        self.journal_from = journal_from
        self.limits = (
            limits or SessionSettings()
        )  # what a read accepts (config: sessions.*)
        # What this store last loaded or wrote, per id: the file's and the journal's (inode,
        # mtime_ns, size). A change on disk at save time means another process wrote meanwhile.
        self._seen: dict[str, tuple[Any, Any]] = {}
        self._written: dict[str, _Written] = {}  # what a save may append to, per id
        self._clean_stale_temps()  # start-up: temp files of killed saves go

    # -- paths -----------------------------------------------------------------------------
    def path_for(self, session_id: str) -> Path:
        return self.directory / f"{FILE_PREFIX}{_check_id(session_id)}{FILE_SUFFIX}"

    def _files(self) -> Iterable[Path]:
        if not self.directory.is_dir():
            return ()
        return sorted(self.directory.glob(f"{FILE_PREFIX}*{FILE_SUFFIX}"))

    def _clean_stale_temps(self) -> None:
        # A writer killed mid-save leaves its temp file behind; the real file is intact.
        # Only temps of dead processes are removed, so a live writer is never disturbed.
        if not self.directory.is_dir():
            return
        for temp in self.directory.glob(f".{FILE_PREFIX}*{_TEMP_SUFFIX}"):
            parts = temp.name.split(".")
            try:
                pid = int(parts[-3])
            except (IndexError, ValueError):
                continue
            if not _pid_alive(pid):
                temp.unlink(missing_ok=True)

    # -- operations ------------------------------------------------------------------------
    def create(
        self, title: str = "", *, provider: str = "", model: str = ""
    ) -> Session:
        """A new, empty session, saved at once so it shows in ``list()``."""
        session = Session(
            id=new_session_id(), title=title, provider=provider, model=model
        )
        while self.path_for(
            session.id
        ).exists():  # pragma: no cover - 24 random bits per second
            session.id = new_session_id()
        self.save(session)
        return session

    @staticmethod
    def _stat(path: Path) -> tuple[int, int, int] | None:
        try:
            info = path.stat()
        except OSError:
            return None
        return (info.st_ino, info.st_mtime_ns, info.st_size)

    def _signature(self, path: Path) -> tuple[Any, Any] | None:
        base = self._stat(path)
        return None if base is None else (base, self._stat(journal_path(path)))

    def _lock(self, session_id: str) -> int:
        """The session's lock (an open fd holding ``flock``); :class:`SessionBusy` if taken."""
        lock_path = self.directory / f".{FILE_PREFIX}{_check_id(session_id)}.lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise SessionBusy(
                f"session {session_id} is being saved by another aiq-tui right now"
            ) from None
        return fd

    def save(self, session: Session) -> Path:
        """Atomically write ``session`` (updating ``updated_at``); returns the file path.

        Raises :class:`SessionBusy` when another process changed the file since this store
        loaded or wrote it: the turn is then saved as a new session, named in the message."""
        path = self.path_for(session.id)
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = self._lock(session.id)
        try:
            seen = self._seen.get(session.id)
            current = self._signature(path)
            if seen is not None and current is not None and current != seen:
                original = session.id
                session.id = new_session_id()
                while self.path_for(session.id).exists():  # pragma: no cover
                    session.id = new_session_id()
                forked = self.save(session)
                raise SessionBusy(
                    f"session {original} was changed by another aiq-tui while this turn ran; "
                    f"nothing was overwritten — this turn was saved as session {session.id} ({forked})"
                )
            session.updated_at = _now()
            if not self._append(session, path):
                self._write_whole(session, path)
            signature = self._signature(path)
            if signature is not None:
                self._seen[session.id] = signature
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        return path

    def _write_whole(self, session: Session, path: Path) -> None:
        """The whole session in one atomic write; a large one becomes the base of a new journal
        (the old journal's entries, named for the old base, are in this file and no longer apply)."""
        self._written.pop(session.id, None)
        data = session.to_json()
        text = dumps_session_json(data) + "\n"
        generation = ""
        if len(text) >= self.journal_from:
            generation = secrets.token_hex(8)
            data["version"], data["journal"] = JOURNALED_VERSION, generation
            text = dumps_session_json(data) + "\n"
        atomic_write_text(path, text)
        journal = journal_path(path)
        if journal.exists():
            journal.unlink(missing_ok=True)
            _fsync_dir(path.parent)
        if generation:
            self._written[session.id] = _Written(
                generation,
                tuple(session.messages),
                tuple(session.tool_calls),
                tuple(session.replay),
                base_bytes=len(text),
            )

    def _append(self, session: Session, path: Path) -> bool:
        """Append what this save adds to the journal; False when the session must be written
        whole (nothing written yet, the journal as large as the base, a list other than the
        history no longer starting with what was written)."""
        written = self._written.get(session.id)
        if (
            written is None
            or written.journal_bytes >= written.base_bytes
            or not _extends(session.tool_calls, written.tool_calls)
            or not _extends(session.replay, written.turns)
        ):
            return False
        # Compression rebuilds the history every few turns of a long session; the new history
        # is bounded by the model's window, so it goes in whole instead of the session again.
        if _extends(session.messages, written.messages):
            history = {
                "messages": [
                    m.to_json() for m in session.messages[len(written.messages) :]
                ]
            }
        else:
            history = {"history": [m.to_json() for m in session.messages]}
        entry = {
            "journal": written.generation,
            **history,
            "tool_calls": [
                c.to_json() for c in session.tool_calls[len(written.tool_calls) :]
            ],
            "turns": session.replay[len(written.turns) :],
            "head": {
                "title": session.title,
                "created_at": session.created_at,
                "updated_at": session.updated_at,
                "provider": session.provider,
                "model": session.model,
                "skill_states": {
                    name: s.to_json() for name, s in session.skill_states.items()
                },
                "summaries": list(session.summaries),
                "tokens": session.tokens.to_json(),
            },
        }
        line = (dumps_session_json(entry) + "\n").encode("utf-8")
        journal = journal_path(path)
        created = not journal.exists()
        fd = os.open(
            journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600
        )
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except BaseException:
            # A torn line is ignored on load; the next save writes the session whole.
            self._written.pop(session.id, None)
            raise
        finally:
            os.close(fd)
        if created:
            _fsync_dir(path.parent)
        written.messages, written.tool_calls = (
            tuple(session.messages),
            tuple(session.tool_calls),
        )
        written.turns = tuple(session.replay)
        written.journal_bytes += len(line)
        return True

    def resolve_id(self, id_or_prefix: str) -> str:
        """The full id for an id or a unique prefix of one."""
        if self.directory.is_dir() and _ID_PATTERN.match(id_or_prefix):
            if self.path_for(id_or_prefix).exists():
                return id_or_prefix
            found = [
                p.name[len(FILE_PREFIX) : -len(FILE_SUFFIX)]
                for p in self._files()
                if p.name[len(FILE_PREFIX) :].startswith(id_or_prefix)
            ]
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise SessionNameError(
                    f"session id prefix {id_or_prefix!r} is ambiguous: {', '.join(found[:5])}"
                    " — give more characters"
                )
        raise SessionNotFound(
            f"no session {id_or_prefix!r} in {self.directory} — see `aiq-tui sessions list`"
        )

    def load(self, id_or_prefix: str) -> Session:
        session_id = self.resolve_id(id_or_prefix)
        path = self.path_for(session_id)
        signature = self._signature(path)
        session = read_session_file(path, self.limits)
        if signature is not None:
            self._seen[session.id] = signature
        return session

    def scan(self) -> SessionListing:
        """Every readable session (newest first) and a problem for each unreadable file."""
        self._clean_stale_temps()
        summaries: list[SessionSummary] = []
        problems: list[Problem] = []
        for path in self._files():
            try:
                session = read_session_file(path, self.limits)
            except SessionUnreadable as exc:
                problems.append(
                    Problem(
                        path=path,
                        message=f"session file skipped: {exc.reason}",
                        hint=exc.hint,
                        severity=Severity.WARNING,
                    )
                )
                continue
            except SessionNotFound:  # removed since the listing
                continue
            summaries.append(
                SessionSummary(
                    id=session.id,
                    title=session.display_title,
                    created_at=session.created_at,
                    updated_at=session.updated_at,
                    provider=session.provider,
                    model=session.model,
                    messages=len(session.messages),
                    path=path,
                )
            )
        summaries.sort(key=lambda s: (s.updated_at, s.id), reverse=True)
        return SessionListing(tuple(summaries), tuple(problems))

    def list(self) -> list[SessionSummary]:
        return list(self.scan().sessions)

    def rename(self, id_or_prefix: str, title: str) -> Session:
        session = self.load(id_or_prefix)
        session.title = title.strip()
        self.save(session)
        return session

    def delete(self, id_or_prefix: str) -> Path:
        session_id = self.resolve_id(id_or_prefix)
        path = self.path_for(session_id)
        path.unlink()
        journal_path(path).unlink(missing_ok=True)
        self._written.pop(session_id, None)
        (self.directory / f".{FILE_PREFIX}{session_id}.lock").unlink(missing_ok=True)
        _fsync_dir(self.directory)
        return path

    def export_markdown(self, id_or_prefix: str) -> str:
        return session_markdown(self.load(id_or_prefix))


_EXPORT_TOOL_CHARS = 2000


def _fence(text: str, lang: str = "") -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text}\n{fence}"


def session_markdown(session: Session) -> str:
    """A readable transcript: metadata, messages, tool calls and results, skills, figures."""
    lines = [f"# {session.display_title}", ""]
    lines.append(f"- Session: `{session.id}`")
    lines.append(f"- Created: {session.created_at}")
    lines.append(f"- Updated: {session.updated_at}")
    if session.provider or session.model:
        lines.append(f"- Model: {session.model or '?'} ({session.provider or '?'})")
    if session.tokens.window:
        lines.append(
            f"- Tokens: {session.tokens.last_total} / {session.tokens.window} in the last prompt; "
            f"usage {session.tokens.input_tokens} in, {session.tokens.output_tokens} out"
        )
    lines.append("")
    for message in session.messages:
        if message.role is Role.TOOL:
            lines.append(
                f"### Tool result: {message.name or message.tool_call_id or 'tool'}"
            )
            content = message.content
            if len(content) > _EXPORT_TOOL_CHARS:
                content = (
                    content[:_EXPORT_TOOL_CHARS]
                    + f"\n… ({len(message.content)} characters in all)"
                )
            lines += ["", _fence(content), ""]
            continue
        heading = (
            "Summary of earlier conversation"
            if message.summary
            else message.role.value.capitalize()
        )
        lines += [f"## {heading}", ""]
        if message.content:
            lines += [message.content, ""]
        for call in message.tool_calls:
            lines += [
                f"**Tool call** `{call.name}`",
                "",
                _fence(call.arguments_json(), "json"),
                "",
            ]
    if session.tool_calls:
        lines += [
            "## Tool calls",
            "",
            "| Tool | Result | OK | Seconds |",
            "|---|---|---|---|",
        ]
        for record in session.tool_calls:
            summary = record.summary.replace("|", "\\|").replace("\n", " ")
            lines.append(
                f"| {record.name} | {summary} | {'yes' if record.ok else 'no'} | {record.duration_s:.2f} |"
            )
        lines.append("")
    if session.skill_states:
        lines += ["## Skills", ""]
        for name, status in session.skill_states.items():
            lines.append(f"- {name}: {status.state.value}, {status.phase.label}")
        lines.append("")
    if session.summaries:
        lines += ["## Compression summaries", ""]
        lines += [f"- {s}" for s in session.summaries]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
