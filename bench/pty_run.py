"""Run a terminal program in a pseudo-terminal, as a person would, and time what it draws.

The program gets a real pty of a fixed size (its own session, the pty as its controlling
terminal), so it takes the same path it takes in a terminal window: the real driver, the real
output. The parent reads what it writes and strips the escape sequences; each *marker* (a
regular expression over the visible text) is timed from just before the fork to the read that
first shows it. CPU seconds of the process are read from ``/proc`` at the same moment, so a
busy machine moves the wall-clock figures but barely the CPU ones.

After the last marker the program is left to finish its background work (the process stays
idle for :data:`IDLE_SECONDS`), its peak resident memory (``VmHWM``) is read, and it is sent
``ctrl+q``. Linux only (``/proc``).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

# CSI (colours, cursor moves, modes), OSC (titles, clipboard), DCS/PM/APC strings, character
# set designations, then any other two-byte escape.
_ESCAPES = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P^_][^\x1b]*\x1b\\"
    rb"|\x1b[()*+].|\x1b."
)
IDLE_SECONDS = 0.6
"""How long the process must use (almost) no CPU before its work counts as finished."""
IDLE_CPU = 0.03
QUIT = b"\x11"  # ctrl+q
_TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class PtyRun:
    """What one run showed: seconds from spawn to each marker, CPU seconds at each, peak RSS."""

    seen_s: dict[str, float] = field(default_factory=dict)
    cpu_s: dict[str, float] = field(default_factory=dict)
    peak_rss_mb: float = 0.0
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The marker's regex groups at the first match (e.g. the number of skills listed)."""
    text: str = ""


def visible_text(raw: bytes) -> str:
    """What a stream of terminal output says, escape sequences removed (cursor moves included:
    one widget's line is written as one run of text, so a title stays in one piece)."""
    return _ESCAPES.sub(b"", raw).decode("utf-8", errors="replace")


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime (fields 14, 15)


def _peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def run_in_pty(
    argv: Sequence[str],
    markers: Mapping[str, str],
    *,
    size: tuple[int, int] = (120, 36),
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    timeout: float = 120.0,
    settle: bool = True,
) -> PtyRun:
    """Spawn ``argv`` in a ``size`` (columns, rows) pty and time each marker (name → regex over
    the visible text, matched in order of appearance anywhere so far). Raises TimeoutError if a
    marker does not show within ``timeout`` seconds, RuntimeError if the program exits first."""
    patterns = {name: re.compile(regex) for name, regex in markers.items()}
    started = time.perf_counter()
    pid, fd = _spawn(argv, size, env, cwd)
    result = PtyRun()
    raw = bytearray()
    try:
        deadline = started + timeout
        while len(result.seen_s) < len(patterns):
            if not _read(fd, raw, min(0.5, deadline - time.perf_counter())):
                raise RuntimeError(
                    f"{argv[0]} exited before {sorted(set(patterns) - set(result.seen_s))}:\n"
                    f"{visible_text(bytes(raw))[-800:]}"
                )
            now = time.perf_counter()
            text = visible_text(bytes(raw))
            for name, pattern in patterns.items():
                if name in result.seen_s:
                    continue
                found = pattern.search(text)
                if found:
                    result.seen_s[name] = now - started
                    result.cpu_s[name] = _cpu_seconds(pid)
                    result.groups[name] = found.groups()
            if now > deadline:
                raise TimeoutError(
                    f"{argv[0]}: no {sorted(set(patterns) - set(result.seen_s))} "
                    f"in {timeout:.0f} s:\n{text[-800:]}"
                )
        if settle:
            _wait_idle(pid, fd, raw, deadline)
        result.peak_rss_mb = _peak_rss_mb(pid)
        result.text = visible_text(bytes(raw))
        os.write(fd, QUIT)
        _wait_exit(pid, fd, raw)
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    return result


def _spawn(
    argv: Sequence[str],
    size: tuple[int, int],
    env: Mapping[str, str] | None,
    cwd: str | None,
) -> tuple[int, int]:
    """Fork ``argv`` onto a new pty of ``size`` (columns, rows): (pid, the parent's fd)."""
    columns, rows = size
    environment = dict(os.environ if env is None else env)
    environment.update(
        TERM="xterm-256color",
        COLORTERM="truecolor",
        COLUMNS=str(columns),
        LINES=str(rows),
    )
    pid, fd = pty.fork()
    if pid == 0:  # the child: size the terminal before the program can ask for it
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
            if cwd is not None:
                os.chdir(cwd)
            os.execve(argv[0], list(argv), environment)
        finally:
            os._exit(127)
    return pid, fd


class Terminal:
    """A program in a pty driven like a person drives it: send keys, then time what it draws.

    ``with Terminal(argv) as term: term.expect(regex); seconds = term.timed(b"\\x1bOP", regex)``.
    :meth:`expect` and :meth:`timed` look only at what was drawn after the last keys sent, so
    a marker that was already on screen does not count.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        size: tuple[int, int] = (120, 36),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        timeout: float = 120.0,
    ) -> None:
        self.argv, self.timeout = list(argv), timeout
        self.raw = bytearray()
        self._since = 0  # where the output after the last keys starts
        self.pid, self.fd = _spawn(argv, size, env, cwd)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, keys: bytes) -> None:
        self._since = len(self.raw)
        os.write(self.fd, keys)

    def expect(self, regex: str) -> re.Match[str]:
        """Read until what was drawn since the last keys matches ``regex``."""
        pattern = re.compile(regex)
        deadline = time.perf_counter() + self.timeout
        while True:
            found = pattern.search(visible_text(bytes(self.raw[self._since :])))
            if found:
                return found
            if time.perf_counter() > deadline:
                raise TimeoutError(
                    f"{self.argv[0]}: no {regex!r} in {self.timeout:.0f} s:\n"
                    f"{visible_text(bytes(self.raw))[-800:]}"
                )
            if not _read(self.fd, self.raw, min(0.5, deadline - time.perf_counter())):
                raise RuntimeError(
                    f"{self.argv[0]} exited before {regex!r}:\n{visible_text(bytes(self.raw))[-800:]}"
                )

    def timed(self, keys: bytes, regex: str) -> float:
        """Seconds from sending ``keys`` to the read that first shows ``regex``."""
        started = time.perf_counter()
        self.send(keys)
        self.expect(regex)
        return time.perf_counter() - started

    def idle(self) -> None:
        """Until the program has stopped working (see :func:`_wait_idle`)."""
        _wait_idle(self.pid, self.fd, self.raw, time.perf_counter() + self.timeout)

    def close(self) -> None:
        try:
            if _alive(self.pid):
                os.write(self.fd, QUIT)
                _wait_exit(self.pid, self.fd, self.raw)
        finally:
            if _alive(self.pid):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            os.close(self.fd)


def _read(fd: int, into: bytearray, wait: float) -> bool:
    """Read what is there within ``wait`` seconds; False once the program has closed the pty."""
    ready, _, _ = select.select([fd], [], [], max(0.0, wait))
    if not ready:
        return True
    try:
        chunk = os.read(fd, 1 << 16)
    except OSError:  # EIO: the other side is closed
        return False
    into.extend(chunk)
    return bool(chunk)


def _wait_idle(pid: int, fd: int, raw: bytearray, deadline: float) -> None:
    """Until the process has used less than :data:`IDLE_CPU` CPU seconds in :data:`IDLE_SECONDS`
    (its start-up workers are done), reading its output so it never blocks on a full pty."""
    quiet_since, cpu = time.perf_counter(), _cpu_seconds(pid)
    while time.perf_counter() < deadline:
        if not _read(fd, raw, 0.05):
            return
        now, used = time.perf_counter(), _cpu_seconds(pid)
        if used - cpu > IDLE_CPU:
            quiet_since, cpu = now, used
        elif now - quiet_since >= IDLE_SECONDS:
            return


def _alive(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == 0


def _wait_exit(pid: int, fd: int, raw: bytearray, grace: float = 10.0) -> None:
    end = time.perf_counter() + grace
    while time.perf_counter() < end and _alive(pid):
        if not _read(fd, raw, 0.05):
            break
    end = time.perf_counter() + grace
    while time.perf_counter() < end and _alive(pid):
        time.sleep(0.02)
