"""The sandbox helper: restrict *this* process with Landlock, then ``execvp`` the command.

Run as a script by :mod:`aiq_tui.tools.launcher` (``python -I -S sandbox_exec.py …``), never
imported by the app: it must stay standard-library only and single-threaded, because
``unshare(CLONE_NEWUSER)`` refuses a threaded process and Landlock restricts the calling
thread. The restrictions are inherited by the command and everything it starts, and a
Landlock domain cannot ptrace (so cannot read ``/proc/PID/environ`` of) a process outside it.

Usage::

    sandbox_exec.py [--read PATH]… [--write PATH]… [--exec PATH]… [--protect PATH]…
                    [--hide PATH]… [--hide-with FILE] [--limit NAME=VALUE]…
                    [--no-network] [--no-unix-sockets] [--require-landlock] [--no-landlock]
                    [--no-namespaces] -- PROGRAM ARG…

``--read`` trees are readable (files, directories; execute too, so tools and scripts there
run), ``--write`` trees are also writable, ``--exec`` trees are readable and executable
(system directories). The command runs as PID 1 of a new user + PID namespace (when the kernel allows
unprivileged namespaces): when it exits, the kernel kills everything it left behind, even
``setsid`` daemons. ``--protect`` paths (a project's ``.git``) stay read-only inside a
``--write`` tree — Landlock cannot take back what it grants to a whole tree, so they are bound
read-only onto themselves in a private mount namespace, which the command cannot undo (it has
no capability left after ``exec``, and Landlock forbids mounting); the launch fails (exit 125)
rather than run with them writable. ``--hide`` paths (the config home, secret files under the
readable roots) are covered in the same mount namespace — a folder by an empty read-only tmpfs,
a file by the empty file ``--hide-with`` — so even a command given ``.`` reads nothing of them;
again the launch fails rather than run with them visible. ``--limit nproc=N`` (processes and
threads, counted in the command's own user namespace; root is exempt from it, so
``pids=N`` also caps the PID namespace's ``pid_max``), ``data=BYTES`` (memory per process),
``fsize=BYTES`` (largest file written) and ``core=0`` are set before ``exec``.
``--no-unix-sockets`` installs a seccomp filter that refuses ``socket(AF_UNIX, …)`` and
``io_uring_setup``: a network namespace does not cover sockets named by a path (ssh-agent,
docker.sock, D-Bus), and Landlock scopes only abstract ones. ``--no-network`` adds a network namespace (no interface but a down
loopback: no protocol reaches anything); when namespaces are not available and the Landlock
ABI is ≥ 4, TCP bind/connect is denied instead. With
``--require-landlock`` a failure to apply Landlock stops the launch (exit 125) instead of
running the command unrestricted.

Exit codes of the helper itself: 125 sandbox could not be applied, 126 the command could not
be executed, 127 the command was not found.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import stat
import struct
import sys
import warnings  # noqa: F401  os.execvp imports it lazily; after Landlock the stdlib may be unreadable

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = (
    444,
    445,
    446,
)  # x86_64 and arm64 alike
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWUSER, CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWNS = (
    0x10000000,
    0x40000000,
    0x20000000,
    0x00020000,
)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1 << 5, 1 << 12, 1 << 14, 1 << 18
# statvfs flags a remount must keep (they are locked in a less privileged mount namespace)
# and the mount flags that say the same.
_KEPT_MOUNT_FLAGS = (
    (2, 2),
    (4, 4),
    (8, 8),
    (1024, 1024),
    (2048, 2048),
    (4096, 1 << 21),
)

# Filesystem rights, with the ABI that introduced them.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = (
    1 << 8,
    1 << 9,
    1 << 10,
    1 << 11,
    1 << 12,
)
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1}
FS_ALL_LATEST = (1 << 16) - 1
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

FILE_ONLY_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ_RIGHTS = READ_FILE | READ_DIR
EXEC_RIGHTS = READ_RIGHTS | EXECUTE
WRITE_RIGHTS = (
    READ_RIGHTS
    | WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SYM
    | MAKE_FIFO
    | MAKE_SOCK
    | REFER
    | TRUNCATE
)
DEVICE_RIGHTS = READ_FILE | WRITE_FILE | TRUNCATE

# Always reachable: the system's programs and libraries, a few harmless devices.
SYSTEM_EXEC = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/nix/store",
)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
# /etc is readable entry by entry, minus what holds secrets (Landlock only ever adds access).
ETC_SECRETS = frozenset(
    {
        "shadow",
        "shadow-",
        "gshadow",
        "gshadow-",
        "sudoers",
        "sudoers.d",
        "ssh",
        "security",
        "master.passwd",
        "krb5.keytab",
        "NetworkManager",
        "wireguard",
        "ppp",
        "openvpn",
        "credstore",
        "credstore.encrypted",
        "libvirt",
        "docker",
        "containerd",
    }
)
SSL_SECRETS = frozenset({"private"})


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(number: int, *args: object) -> int:
    result = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is missing or disabled."""
    try:
        return _syscall(
            SYS_CREATE_RULESET,
            None,
            ctypes.c_size_t(0),
            ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION),
        )
    except OSError:
        return 0


def _fs_rights(abi: int) -> int:
    return FS_BY_ABI.get(abi, FS_ALL_LATEST)


def _add_rule(ruleset: int, path: str, rights: int, handled: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a missing optional path (e.g. /lib32) is simply not granted
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= FILE_ONLY_RIGHTS
        attr = _PathBeneathAttr(allowed_access=rights & handled, parent_fd=fd)
        if attr.allowed_access:
            _syscall(
                SYS_ADD_RULE,
                ctypes.c_int(ruleset),
                ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH),
                ctypes.byref(attr),
                ctypes.c_uint32(0),
            )
    finally:
        os.close(fd)


def _etc_rules() -> list[str]:
    paths: list[str] = []
    try:
        names = os.listdir("/etc")
    except OSError:
        return paths
    for name in names:
        if name in ETC_SECRETS:
            continue
        if name == "ssl":
            try:
                paths.extend(
                    f"/etc/ssl/{inner}"
                    for inner in os.listdir("/etc/ssl")
                    if inner not in SSL_SECRETS
                )
            except OSError:
                pass
            continue
        paths.append(f"/etc/{name}")
    return paths


def apply_landlock(
    reads: list[str], writes: list[str], execs: list[str], *, deny_tcp: bool
) -> int:
    """Restrict this process; returns the ABI used. Raises OSError when it cannot."""
    abi = landlock_abi()
    if abi < 1:
        raise OSError(errno.ENOSYS, "Landlock is not available in this kernel")
    handled = _fs_rights(abi)
    attr = _RulesetAttr(handled_access_fs=handled)
    size = 8
    if abi >= 4:
        size = 16
        if deny_tcp:
            attr.handled_access_net = (
                NET_BIND_TCP | NET_CONNECT_TCP
            )  # no rule: every TCP denied
    if abi >= 6:
        size = 24
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
    ruleset = _syscall(
        SYS_CREATE_RULESET,
        ctypes.byref(attr),
        ctypes.c_size_t(size),
        ctypes.c_uint32(0),
    )
    try:
        for path in (*SYSTEM_EXEC, *execs):
            _add_rule(ruleset, path, EXEC_RIGHTS, handled)
        for path in _etc_rules():
            _add_rule(ruleset, path, READ_RIGHTS, handled)
        for path in reads:
            _add_rule(ruleset, path, EXEC_RIGHTS, handled)
        for path in writes:
            _add_rule(ruleset, path, WRITE_RIGHTS | EXECUTE, handled)
        for path in DEVICES:
            _add_rule(ruleset, path, DEVICE_RIGHTS, handled)
        # Only this process's own /proc entry (same pid after exec): never another's.
        _add_rule(ruleset, f"/proc/{_host_pid()}", READ_RIGHTS, handled)
        if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            code = ctypes.get_errno()
            raise OSError(code, f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(code)}")
        _syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    return abi


def isolate(*, network: bool, mounts: bool = False) -> bool:
    """New user + PID namespaces (+ a network namespace unless ``network``, + a mount
    namespace with ``mounts``), the caller's uid/gid mapped to themselves. Returns whether the
    PID namespace was created (then the caller must fork: the child is its PID 1, and when it
    exits the kernel kills every process left in the namespace — ``setsid`` cannot outlive
    the call)."""
    uid, gid = os.getuid(), os.getgid()
    base = (
        CLONE_NEWUSER
        | (0 if network else CLONE_NEWNET)
        | (CLONE_NEWNS if mounts else 0)
    )
    pid_namespace = True
    if _libc.unshare(base | CLONE_NEWPID) != 0:
        pid_namespace = False
        if _libc.unshare(base) != 0:
            code = ctypes.get_errno()
            raise OSError(code, f"unshare: {os.strerror(code)}")
    with open("/proc/self/setgroups", "w") as handle:
        handle.write("deny")
    with open("/proc/self/uid_map", "w") as handle:
        handle.write(f"{uid} {uid} 1")
    with open("/proc/self/gid_map", "w") as handle:
        handle.write(f"{gid} {gid} 1")
    return pid_namespace


def protect(paths: list[str]) -> None:
    """Bind each existing path read-only onto itself, in this (new, private) mount namespace."""
    _mount(None, "/", MS_REC | MS_PRIVATE)  # nothing below propagates back to the host
    for path in paths:
        if not os.path.lexists(path):
            continue
        _mount(path, path, MS_BIND | MS_REC)
        kept = os.statvfs(path).f_flag
        extra = 0
        for statvfs_flag, mount_flag in _KEPT_MOUNT_FLAGS:
            if kept & statvfs_flag:
                extra |= mount_flag
        _mount(None, path, MS_REMOUNT | MS_BIND | MS_RDONLY | extra)


def hide(paths: list[str], empty_file: str | None) -> None:
    """Cover each existing path in this (new, private) mount namespace: a folder by an empty
    read-only tmpfs, a file by the empty file ``empty_file`` bound read-only."""
    for path in paths:
        try:
            info = os.stat(path)
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(info.st_mode):
            _mount(
                "tmpfs",
                path,
                MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "tmpfs",
                "size=4k,nr_inodes=1,mode=0555",
            )
        else:
            if empty_file is None:
                raise OSError(errno.EINVAL, f"hide {path}: no --hide-with file given")
            _mount(empty_file, path, MS_BIND)
            _mount(
                None,
                path,
                MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
            )


def _mount(
    source: str | None,
    target: str,
    flags: int,
    fstype: str | None = None,
    data: str | None = None,
) -> None:
    if (
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        )
        != 0
    ):
        code = ctypes.get_errno()
        raise OSError(code, f"mount {target}: {os.strerror(code)}")


# -- limits ----------------------------------------------------------------------------------

_LIMITS = {
    "nproc": resource.RLIMIT_NPROC,
    "data": resource.RLIMIT_DATA,
    "fsize": resource.RLIMIT_FSIZE,
    "core": resource.RLIMIT_CORE,
}


def apply_limits(limits: list[str], *, in_own_user_namespace: bool = True) -> None:
    """``NAME=VALUE`` soft and hard limits. In its own user namespace ``nproc`` counts the
    command's tasks only (kernel ≥ 5.14 counts per user namespace); without one it counts every
    task of the user, so the user's current count is added to it."""
    for item in limits:
        name, _, value = item.partition("=")
        if name == "pids":
            continue  # the PID namespace's own pid_max, set by its PID 1 (limit_pid_namespace)
        number = int(value)
        if name == "nproc" and not in_own_user_namespace:
            number += _tasks_of_this_user()
        resource.setrlimit(_LIMITS[name], (number, number))


PID_MAX_MIN = 301  # the kernel's lowest pid_max (RESERVED_PIDS + 1)


def _kernel_at_least(major: int, minor: int) -> bool:
    try:
        parts = os.uname().release.split(".")
        return (int(parts[0]), int(parts[1].split("-")[0])) >= (major, minor)
    except (ValueError, IndexError):
        return False


def limit_pid_namespace(limits: list[str]) -> None:
    """In the namespace's PID 1: cap the namespace's ``pid_max`` (``pids=N``, at least 301), so
    at most N-1 tasks exist in it at once — even for root, whom RLIMIT_NPROC does not bind.
    ``pid_max`` is per PID namespace from Linux 6.14; on an older kernel the file is the host's,
    so it is never written there."""
    wanted = [
        int(item.partition("=")[2]) for item in limits if item.startswith("pids=")
    ]
    if not wanted or not _kernel_at_least(6, 14):
        return
    with open("/proc/sys/kernel/pid_max", "w") as handle:
        handle.write(str(max(PID_MAX_MIN, wanted[-1])))


def _tasks_of_this_user() -> int:
    uid = os.getuid()
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry}/task"))
            except OSError:
                continue
    return count


# -- seccomp: no UNIX sockets ------------------------------------------------------------------

PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ERRNO, SECCOMP_RET_ALLOW = (
    0x80000000,
    0x00050000,
    0x7FFF0000,
)
# arch, socket(2) number, io_uring_setup(2) number, whether x32 numbers must be refused
_SECCOMP_ARCH = {
    "x86_64": (0xC000003E, 41, 425, True),
    "aarch64": (0xC00000B7, 198, 425, False),
    "arm64": (0xC00000B7, 198, 425, False),
}
AF_UNIX = 1


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _bpf(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The BPF program: ``socket(AF_UNIX, …)`` and ``io_uring_setup`` fail with EACCES (an
    io_uring could open a socket without the socket syscall); a foreign syscall ABI kills the
    process (its numbers mean other calls). None on an architecture it does not know."""
    known = _SECCOMP_ARCH.get(machine or platform.machine())
    if known is None:
        return None
    arch, socket_nr, uring_nr, x32 = known
    ld_w_abs, jeq_k, jge_k, ret_k = 0x20, 0x15, 0x35, 0x06
    deny = SECCOMP_RET_ERRNO | errno.EACCES
    program = [
        _bpf(ld_w_abs, 0, 0, 4),  # seccomp_data.arch
        _bpf(jeq_k, 1, 0, arch),
        _bpf(ret_k, 0, 0, SECCOMP_RET_KILL_PROCESS),
        _bpf(ld_w_abs, 0, 0, 0),  # seccomp_data.nr
    ]
    if x32:
        program += [
            _bpf(jge_k, 0, 1, 0x40000000),
            _bpf(ret_k, 0, 0, SECCOMP_RET_KILL_PROCESS),
        ]
    program += [
        _bpf(jeq_k, 0, 1, uring_nr),
        _bpf(ret_k, 0, 0, deny),
        _bpf(jeq_k, 0, 3, socket_nr),
        _bpf(ld_w_abs, 0, 0, 16),  # args[0] (low half): the address family
        _bpf(jeq_k, 0, 1, AF_UNIX),
        _bpf(ret_k, 0, 0, deny),
        _bpf(ret_k, 0, 0, SECCOMP_RET_ALLOW),
    ]
    return b"".join(program)


def apply_no_unix_sockets() -> None:
    """Install :func:`unix_socket_filter` on this process (inherited by everything it starts)."""
    program = unix_socket_filter()
    if program is None:
        raise OSError(errno.ENOSYS, f"no seccomp filter for {platform.machine()}")
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(code)}")
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"seccomp: {os.strerror(code)}")


def _host_pid() -> int:
    """This process's pid as /proc (mounted in the outer PID namespace) names it."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


def _wait_for(child: int) -> int:
    """Wait for the namespace's PID 1 and exit like it did."""
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:  # pragma: no cover - PEP 475 retries already
            continue
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def _parse(argv: list[str]) -> tuple[dict[str, list[str]], set[str], list[str]]:
    lists: dict[str, list[str]] = {
        "--read": [],
        "--write": [],
        "--exec": [],
        "--protect": [],
        "--hide": [],
        "--hide-with": [],
        "--limit": [],
    }
    flags: set[str] = set()
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            return lists, flags, argv[index + 1 :]
        if arg in lists and index + 1 < len(argv):
            lists[arg].append(argv[index + 1])
            index += 2
            continue
        if arg in (
            "--no-network",
            "--require-landlock",
            "--no-landlock",
            "--no-namespaces",
            "--no-unix-sockets",
        ):
            flags.add(arg)
            index += 1
            continue
        raise SystemExit(f"sandbox_exec: unknown argument {arg!r}")
    return lists, flags, []


def _not_run(why: str) -> int:
    print(f"aiq sandbox: {why}; the command was not run", file=sys.stderr)
    return 125


def main(argv: list[str]) -> int:
    lists, flags, command = _parse(argv)
    if not command:
        print("sandbox_exec: no command given after --", file=sys.stderr)
        return 125
    network_isolated = pid_namespace = user_namespace = False
    protected, hidden = lists["--protect"], lists["--hide"]
    if (protected or hidden) and "--no-namespaces" in flags:
        return _not_run("--protect and --hide need namespaces")
    if "--no-namespaces" not in flags:
        try:
            pid_namespace = isolate(
                network="--no-network" not in flags, mounts=bool(protected or hidden)
            )
            network_isolated = "--no-network" in flags
            user_namespace = True
        except OSError as exc:
            if protected or hidden:
                return _not_run(
                    f"cannot keep protected paths read-only or hidden (no namespaces: {exc})"
                )
            if "--no-network" in flags:
                print(
                    f"aiq sandbox: network namespace unavailable ({exc}); TCP denied by Landlock "
                    "where the kernel supports it",
                    file=sys.stderr,
                )
        if protected or hidden:
            try:
                _mount(
                    None, "/", MS_REC | MS_PRIVATE
                )  # nothing below propagates back to the host
                covers = lists["--hide-with"]
                hide(hidden, covers[-1] if covers else None)
            except OSError as exc:
                return _not_run(
                    f"cannot hide {len(hidden)} secret or config-home path(s) ({exc})"
                )
            try:
                protect(protected)
            except OSError as exc:
                return _not_run(f"cannot keep {', '.join(protected)} read-only ({exc})")
    try:  # before the fork: the namespace's PID 1 and everything below inherit them
        apply_limits(lists["--limit"], in_own_user_namespace=user_namespace)
    except (OSError, ValueError, KeyError) as exc:
        return _not_run(f"cannot set the process limits ({exc})")
    if pid_namespace:
        child = os.fork()
        if child:
            return _wait_for(child)
        try:
            limit_pid_namespace(lists["--limit"])
        except (OSError, ValueError) as exc:
            return _not_run(f"cannot bound the processes of the PID namespace ({exc})")
    if "--no-landlock" not in flags:
        try:
            apply_landlock(
                lists["--read"],
                lists["--write"],
                lists["--exec"],
                deny_tcp="--no-network" in flags and not network_isolated,
            )
        except OSError as exc:
            if "--require-landlock" in flags:
                return _not_run(f"cannot apply Landlock ({exc})")
    if "--no-unix-sockets" in flags:
        try:
            apply_no_unix_sockets()
        except OSError as exc:
            return _not_run(f"cannot refuse UNIX sockets ({exc})")
    try:
        os.execvp(command[0], command)
    except FileNotFoundError:
        print(f"{command[0]}: command not found", file=sys.stderr)
        return 127
    except OSError as exc:
        print(f"{command[0]}: cannot execute: {exc.strerror}", file=sys.stderr)
        return 126
    return 126  # not reached: execvp replaces this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
