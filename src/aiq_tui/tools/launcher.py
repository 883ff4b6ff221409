"""The one launcher for every process the agent starts (``execute_command``, script skills).

What every launch gets, whatever the caller:

* **An OS sandbox** where the kernel has Landlock: the child runs through the helper script
  :mod:`aiq_tui.tools.sandbox_exec`, which restricts itself and then ``execvp``\\ s the
  command (the Codex helper pattern; never ``preexec_fn``, which is unsafe in a threaded app
  such as the Textual one). The child may read the system's programs and libraries, ``/etc``
  minus secrets and the ``read_roots``; it may write only the ``write_roots`` and a private
  temp dir (``TMPDIR``) removed after the call. Landlock scopes ptrace, so the child cannot
  read ``/proc/PID/environ`` of this process (the API keys).
* **No network** unless ``network=True``: a new user + network namespace (every protocol);
  where namespaces are unavailable, Landlock ABI ≥ 4 denies TCP; otherwise it is reported as
  not enforced (:attr:`ProcessResult.network`).
* **An environment from an allowlist** (:func:`child_environment`), never the parent's minus
  a denylist: ``DATABASE_URL`` and friends carry credentials too.
* **A process group per command**, and where namespaces work a PID namespace whose PID 1 is
  the command: the timeout kills the whole group, so does the end of the call, and the
  kernel kills whatever is left in the namespace (even ``setsid`` daemons).
* **Output streamed with a byte cap** per stream; the rest is read and dropped.
* **Bounded processes and memory** (:class:`ProcessLimits`): at most ``processes`` tasks in the
  command's own user namespace (a fork bomb stops there), ``memory`` of data per process, files
  no larger than ``file_size``, no core dumps.
* **No UNIX sockets** (a seccomp filter): the network namespace does not cover a socket named by
  a path — ssh-agent, docker.sock, D-Bus — and Landlock scopes only abstract ones.
* **Hidden paths** (``hide``): the config home and the secret files under the readable roots
  are covered in a private mount namespace, so a command given ``.`` cannot read ``.env``.

What each launch may read and write is not decided here: :mod:`aiq_tui.tools.launch_policy`
computes it once for every process the agent starts (:func:`launch` runs its plan).

Where Landlock is unavailable (or ``AIQ_SANDBOX=off`` is set by the user) the command runs
directly and :func:`sandbox_mode` says ``"policy only"``: only the caller's policy checks
(allowlist, argument rules) stand between the model and the machine. Callers show that
string in the banner, in ``ask`` output and in tool results.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiq_tui.tools.launch_policy import LaunchPlan

LANDLOCK = "landlock"
POLICY_ONLY = "policy only"

_HELPER = Path(__file__).with_name("sandbox_exec.py")
_ENV_NAMES = frozenset({"PATH", "HOME", "LANG", "TERM", "TZ"})
_SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class ProcessLimits:
    """Per-command bounds (``tools.process_limit`` and friends in config.yaml)."""

    processes: int = 64
    memory_bytes: int = 1024 * 1024 * 1024
    file_bytes: int = 1024 * 1024 * 1024

    def helper_args(self) -> list[str]:
        # nproc binds every user but root; the PID namespace's pid_max (never below the
        # kernel's 301) binds root too.
        return [
            "--limit",
            f"nproc={self.processes}",
            "--limit",
            f"pids={self.processes + 2}",
            "--limit",
            f"data={self.memory_bytes}",
            "--limit",
            f"fsize={self.file_bytes}",
            "--limit",
            "core=0",
        ]


@dataclass(frozen=True)
class ProcessResult:
    """What a launched process did. ``sandbox`` is ``"landlock"`` or ``"policy only"``."""

    exit_code: int | None  # negative: killed by that signal; None: it never started
    stdout: str
    stderr: str
    timed_out: bool
    truncated: bool  # stdout or stderr went past ``output_cap`` bytes
    sandbox: str
    network: str = "not enforced"  # "off (namespace)" | "off (landlock tcp)" | "on" | "not enforced"
    duration_s: float = 0.0
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    removed: tuple[
        str, ...
    ] = ()  # run-outside files the launch created, taken away afterwards


def child_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """Only PATH, HOME, LANG, LC_*, TERM and TZ from ``environ`` (PATH defaults to a safe one).
    PATH keeps its absolute entries only: a relative one (``bin``, ``node_modules/.bin``, an
    empty one meaning ``.``) names the folder the command runs in — the project, which a cloned
    repository fills — so ``ls`` or ``sh`` would be the repository's."""
    env = {
        name: value
        for name, value in environ.items()
        if (name in _ENV_NAMES or name.startswith("LC_")) and "\x00" not in value
    }
    entries = [
        entry for entry in env.get("PATH", "").split(os.pathsep) if os.path.isabs(entry)
    ]
    env["PATH"] = os.pathsep.join(dict.fromkeys(entries)) or _SAFE_PATH
    return env


@functools.lru_cache(maxsize=1)
def _kernel_landlock_abi() -> int:
    """The kernel's Landlock ABI. The version query restricts nothing, so it is safe here."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        abi = libc.syscall(
            ctypes.c_long(444), None, ctypes.c_size_t(0), ctypes.c_uint32(1)
        )
    except (OSError, AttributeError):
        return 0
    return max(int(abi), 0)


@functools.lru_cache(maxsize=1)
def _namespaces_work() -> bool:
    """Whether unprivileged user, network and mount namespaces can be created here, and a
    path bound read-only in one (probed once)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-I",
                "-S",
                str(_HELPER),
                "--no-network",
                "--no-landlock",
                "--protect",
                str(_HELPER.parent),
                "--",
                "true",
            ],
            capture_output=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and not done.stderr


def unix_sockets_blocked() -> bool:
    """Whether the helper's seccomp filter refuses UNIX sockets here (Linux on x86-64 or arm64)."""
    import platform

    return sys.platform.startswith("linux") and platform.machine() in (
        "x86_64",
        "aarch64",
        "arm64",
    )


def landlock_abi() -> int:
    """The Landlock ABI the launcher uses (0: none, or switched off with ``AIQ_SANDBOX=off``)."""
    if os.environ.get("AIQ_SANDBOX", "").strip().lower() in ("off", "0", "no", "false"):
        return 0
    return _kernel_landlock_abi()


def sandbox_mode() -> str:
    """What enforcement processes get here: ``"landlock"`` or ``"policy only"``."""
    return LANDLOCK if landlock_abi() >= 1 else POLICY_ONLY


def scope_warning(cwd: Path | None = None) -> str:
    """``""``, or a warning when started in ``~`` or ``/``: there is no project to confine
    reads to, so every file read asks and commands may not write."""
    here = _real(cwd if cwd is not None else os.getcwd())
    if here == "/" or here == _real(os.path.expanduser("~")):
        return (
            f"⚠ started in {here}: no project folder — every file read asks and commands "
            "cannot write; start aiq-tui inside a project"
        )
    return ""


def sandbox_warning(cwd: Path | None = None) -> str:
    """Warning line(s) for the banner, or ``""`` when every process is sandboxed in a project."""
    lines = []
    if sandbox_mode() != LANDLOCK:
        lines.append(
            "⚠ sandbox: policy only — commands and scripts run without an OS sandbox "
            "(no Landlock here, or AIQ_SANDBOX=off); see docs/security.md"
        )
    scope = scope_warning(cwd)
    if scope:
        lines.append(scope)
    return "\n".join(lines)


def network_mode(network: bool) -> str:
    """How "no network" is enforced for a launch with ``network`` (see :class:`ProcessResult`)."""
    if network:
        return "on"
    if _namespaces_work():
        return "off (namespace)"
    if landlock_abi() >= 4:
        return "off (landlock tcp)"
    return "not enforced"


def describe_sandbox() -> str:
    """One line for banners and ``ask`` output, e.g. ``sandbox: landlock (ABI 7), network off``."""
    abi = landlock_abi()
    fs = f"landlock (ABI {abi})" if abi >= 1 else POLICY_ONLY
    net = network_mode(False)
    net_text = "network off" if net.startswith("off") else "network not blocked"
    sockets = "" if unix_sockets_blocked() else ", UNIX sockets not blocked"
    return f"sandbox: {fs}, {net_text}{sockets} for commands"


def _real(path: Path | str) -> str:
    return os.path.realpath(os.fspath(path))


def program_roots(program: str, environ: Mapping[str, str]) -> list[Path]:
    """What the program itself needs beyond the system directories: the resolved file, and
    for a Python interpreter outside ``/usr`` (pyenv, a venv) its installation prefix."""
    found = (
        shutil.which(program, path=environ.get("PATH", _SAFE_PATH))
        if os.sep not in program
        else program
    )
    if not found:
        return []
    real = Path(_real(found))
    named = Path(os.path.abspath(found))
    roots = [real]
    for prefix in {sys.base_prefix, sys.prefix}:
        base = Path(os.path.abspath(prefix))
        if base != Path("/usr") and (
            real.is_relative_to(base)
            or named.is_relative_to(base)
            or real.is_relative_to(_real(base))
        ):
            roots.append(base)
    return roots


def protected_paths(write_roots: Sequence[Path]) -> list[str]:
    """What stays read-only inside the writable trees: each one's ``.git`` (a hook written
    there would run at the user's next commit), when namespaces can hold it so."""
    if not _namespaces_work():
        return []
    return [
        path
        for path in (os.path.join(_real(root), ".git") for root in write_roots)
        if os.path.lexists(path)
    ]


def _helper_argv(
    argv: Sequence[str],
    *,
    read_roots: Sequence[Path],
    write_roots: Sequence[Path],
    exec_roots: Sequence[Path],
    network: bool,
    landlock: bool,
    protect: Sequence[str] = (),
    hide: Sequence[str] = (),
    hide_with: Path | None = None,
    limits: ProcessLimits | None = None,
) -> list[str]:
    helper = [sys.executable, "-I", "-S", str(_HELPER)]
    if limits is not None:
        helper += limits.helper_args()
    if unix_sockets_blocked():
        helper.append("--no-unix-sockets")
    for path in hide:
        helper += ["--hide", path]
    if hide and hide_with is not None:
        helper += ["--hide-with", str(hide_with)]
    if landlock:
        helper.append("--require-landlock")
    else:
        helper.append("--no-landlock")
    for root in read_roots:
        helper += ["--read", _real(root)]
    for root in write_roots:
        helper += ["--write", _real(root)]
    for root in exec_roots:
        helper += ["--exec", _real(root)]
    for path in protect:
        helper += ["--protect", path]
    if not network:
        helper.append("--no-network")
    return [*helper, "--", *argv]


async def _drain(stream: asyncio.StreamReader, cap: int) -> tuple[bytes, bool]:
    """Read a stream to EOF, keeping at most ``cap`` bytes (the rest is read and dropped)."""
    kept = bytearray()
    truncated = False
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            return bytes(kept), truncated
        room = cap - len(kept)
        if room > 0:
            kept.extend(chunk[:room])
        if len(chunk) > max(room, 0):
            truncated = True


async def _feed(writer: asyncio.StreamWriter, data: bytes) -> None:
    """Write ``data`` to the child's stdin and close it (a child that stops reading is fine)."""
    try:
        writer.write(data)
        await writer.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        writer.close()


async def _exited(process: asyncio.subprocess.Process) -> None:
    """Until the process itself has exited. ``Process.wait()`` also waits for its pipes to
    close, which a background member of the group holding stdout would delay forever."""
    while process.returncode is None:
        await asyncio.sleep(0.02)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def _reap_cancelled(
    process: asyncio.subprocess.Process, readers: asyncio.Future[Any]
) -> None:
    """A cancelled call (Esc, a cancelled turn) still kills and reaps its process: a child left
    unwaited outlives its event loop and its transport complains when it is collected."""
    _kill_group(process.pid)
    readers.cancel()
    try:
        await asyncio.wait_for(asyncio.shield(process.wait()), 5)
    except (TimeoutError, asyncio.CancelledError):
        pass
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await readers
    _close_transport(process)


def _close_transport(process: asyncio.subprocess.Process) -> None:
    """Close the process's transport now, while its loop runs: a transport whose pipes a killed
    grandchild still held is otherwise closed by the garbage collector after the loop has
    closed, and that raises inside ``__del__``. ``Process`` exposes no ``close``; the transport
    is the object asyncio documents for it (``SubprocessTransport.close``)."""
    transport = getattr(process, "_transport", None)
    if transport is not None:
        transport.close()


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    timeout: float,
    output_cap: int,
    read_roots: Sequence[Path] = (),
    write_roots: Sequence[Path] = (),
    network: bool = False,
    env: Mapping[str, str] | None = None,
    exec_roots: Sequence[Path] = (),
    protect: Sequence[str] = (),
    hide: Sequence[str] = (),
    limits: ProcessLimits | None = None,
    stdin: bytes | None = None,
) -> ProcessResult:
    """Run ``argv`` (program resolved by the caller or found on PATH) sandboxed; never raises
    for the command's own failures. ``env`` is filtered through :func:`child_environment`
    (``None`` → this process's environment, filtered). stdin is empty unless ``stdin`` gives its
    bytes. ``exec_roots`` are
    extra read + execute trees (an interpreter's prefix); the program's own file (and a Python
    interpreter's prefix) is added automatically. ``protect`` paths stay read-only besides each
    write root's ``.git``; ``hide`` paths are covered (both need namespaces: the launch is
    refused without them). ``limits`` default to :class:`ProcessLimits`' defaults.

    This is the mechanism; what a launch may touch is the policy's to say
    (:func:`launch` with a :class:`~aiq_tui.tools.launch_policy.LaunchPlan`)."""
    if not argv:
        raise ValueError("argv is empty")
    landlock = sandbox_mode() == LANDLOCK
    child_env = child_environment(os.environ if env is None else env)
    exec_roots = [*exec_roots, *program_roots(argv[0], child_env)]
    private_tmp = Path(tempfile.mkdtemp(prefix="aiq-cmd-"))
    child_env["TMPDIR"] = str(private_tmp)
    child_env["PWD"] = _real(cwd)
    hide_with: Path | None = None
    if hide:
        # The file that covers hidden files: empty, outside every writable root (its own folder).
        hide_with = Path(tempfile.mkdtemp(prefix="aiq-hide-")) / "hidden"
        hide_with.touch(mode=0o444)
    if sys.platform.startswith("linux"):
        launch = _helper_argv(
            argv,
            read_roots=read_roots,
            write_roots=[*write_roots, private_tmp],
            exec_roots=exec_roots,
            network=network,
            landlock=landlock,
            protect=list(dict.fromkeys([*protected_paths(write_roots), *protect])),
            hide=hide,
            hide_with=hide_with,
            limits=limits or ProcessLimits(),
        )
    else:
        launch = list(argv)
    net = network_mode(network) if (landlock or not network) else "on"
    if not landlock and net == "off (landlock tcp)":
        net = "not enforced"
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        try:
            process = await asyncio.create_subprocess_exec(
                *launch,
                cwd=str(cwd),
                env=child_env,
                stdin=asyncio.subprocess.DEVNULL
                if stdin is None
                else asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # its own process group: the timeout kills all of it
            )
        except OSError as exc:
            return ProcessResult(
                None,
                "",
                f"cannot start {argv[0]}: {exc.strerror or exc}",
                False,
                False,
                sandbox_mode(),
                net,
                0.0,
            )
        assert process.stdout is not None and process.stderr is not None
        drains = asyncio.gather(
            _drain(process.stdout, output_cap), _drain(process.stderr, output_cap)
        )
        # What is awaited: the drains, and the stdin feeder beside them when there is input.
        readers: asyncio.Future[Any] = drains
        if stdin is not None and process.stdin is not None:
            feeder = asyncio.ensure_future(_feed(process.stdin, stdin))
            readers = asyncio.gather(drains, feeder)
        timed_out = False
        try:
            await asyncio.wait_for(_exited(process), timeout)
        except TimeoutError:
            timed_out = True
        except asyncio.CancelledError:
            await _reap_cancelled(process, readers)
            raise
        finally:
            _kill_group(process.pid)  # the group dies with the call, whatever happened
        await process.wait()
        try:
            await asyncio.wait_for(readers, 5)
            (out, out_cut), (err, err_cut) = drains.result()
        except TimeoutError:
            # A member that left the group (setsid) still holds the pipes; stop waiting.
            readers.cancel()
            out, out_cut, err, err_cut = b"", True, b"", True
        _close_transport(process)
        return ProcessResult(
            exit_code=process.returncode,
            stdout=out.decode("utf-8", errors="replace"),
            stderr=err.decode("utf-8", errors="replace"),
            timed_out=timed_out,
            truncated=out_cut or err_cut,
            sandbox=LANDLOCK if landlock else POLICY_ONLY,
            network=net,
            duration_s=round(loop.time() - started, 4),
            stdout_truncated=out_cut,
            stderr_truncated=err_cut,
        )
    finally:
        shutil.rmtree(private_tmp, ignore_errors=True)
        if hide_with is not None:
            shutil.rmtree(hide_with.parent, ignore_errors=True)


async def launch(
    argv: Sequence[str],
    plan: LaunchPlan,
    *,
    timeout: float,
    output_cap: int,
    env: Mapping[str, str] | None = None,
) -> ProcessResult:
    """Run ``argv`` as the launcher policy planned it (roots, protected and hidden paths,
    network, limits): how commands and script skills start processes. What it created where a
    file would run outside the sandbox (``plan.absent``) is removed when it has ended."""
    from dataclasses import replace

    from aiq_tui.tools.run_outside import remove_created

    done = await run_process(
        argv,
        cwd=plan.cwd,
        timeout=timeout,
        output_cap=output_cap,
        read_roots=plan.read_roots,
        write_roots=plan.write_roots,
        network=plan.network,
        env=env,
        protect=plan.protect,
        hide=plan.hide,
        limits=plan.limits,
    )
    removed = remove_created(plan.absent)
    return replace(done, removed=tuple(removed)) if removed else done
