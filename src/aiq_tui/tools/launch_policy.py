"""The one launcher policy: what every process the agent starts may read, write and reach.

``execute_command`` and script skills both ask :meth:`LaunchPolicy.plan` and run the
:class:`LaunchPlan` it returns with :func:`aiq_tui.tools.launcher.launch`; neither has a policy of
its own. A plan says:

* **read roots** — the project and the config home's ``skills/`` folder (plus what the caller
  adds, e.g. a script's temp folder). Never the rest of the config home: sessions hold earlier
  tool results (secrets a user once approved), ``config/`` the permissions.
* **write roots** — the project, unless it is ``/``, the user's home, or contains or lies in
  the config home (Landlock can only add access: a root holding protected paths stays
  read-only as a whole).
* **protected** — read-only inside the write roots: each one's ``.git``, the repository's
  ``core.hooksPath``, hook-manager configs, ``.envrc``, the skill folders as configured and
  ``.mcp.json`` (:mod:`aiq_tui.tools.run_outside`, :class:`~aiq_tui.tools.run_outside.ProjectLayout`):
  what runs outside the sandbox later.
* **hidden** — covered in the sandbox: the config home (all but ``skills/``) where a read root
  contains it, and every secret-looking file or folder under the read roots
  (:mod:`aiq_tui.secret_guard`), so ``grep -r … .`` does not read ``.env``.
* **absent** — run-outside paths that do not exist yet (a ``.git`` in a project that is no
  repository, a ``core.hooksPath`` folder not made yet, ``lefthook-local.yml``…): nothing can
  hold them read-only, so :func:`~aiq_tui.tools.launcher.launch` removes whatever the launch
  created there once its processes are gone, and says so.
* **exposed** — what the sandbox *cannot* hide here (no unprivileged namespaces, or more files
  than the secret scan checks): the caller must then ask (``file_read_secret``) before running.
* **network** (off unless asked) and **limits** (``tools.process_limit``,
  ``tools.memory_limit_mb``, ``tools.file_size_limit_mb``); the **environment** is the
  launcher's allowlist (:func:`~aiq_tui.tools.launcher.child_environment`), the same for all.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from aiq_tui.secret_guard import SecretGuard, SecretScanner
from aiq_tui.tools import launcher, run_outside
from aiq_tui.tools.launcher import ProcessLimits

if TYPE_CHECKING:
    from aiq_tui.config import ToolSettings
    from aiq_tui.locations import Home

MB = 1024 * 1024
_NEVER_WALKED = (
    "/proc",
    "/sys",
    "/dev",
)  # not files; never readable by commands anyway


@dataclass(frozen=True)
class LaunchPlan:
    """Everything one launch is allowed (see the module doc)."""

    cwd: Path
    read_roots: tuple[Path, ...]
    write_roots: tuple[Path, ...]
    protect: tuple[str, ...]
    hide: tuple[str, ...]
    exposed: tuple[str, ...]
    network: bool
    limits: ProcessLimits
    namespaces: bool
    absent: tuple[str, ...] = ()

    def exposure_note(self, limit: int = 5) -> str:
        """The approval text when the sandbox cannot hide what it should ("" when nothing)."""
        if not self.exposed:
            return ""
        shown = ", ".join(self.exposed[:limit]) + (
            f" and {len(self.exposed) - limit} more"
            if len(self.exposed) > limit
            else ""
        )
        return f"this command can read files the sandbox cannot hide here: {shown}"


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class LaunchPolicy:
    """The policy for one project and config home; one per engine, shared by every tool."""

    def __init__(
        self,
        settings: ToolSettings,
        *,
        home: Home,
        project: Path,
        scanner: SecretScanner | None = None,
        layout: run_outside.ProjectLayout | None = None,
    ) -> None:
        self.settings = settings
        self.home = home
        self.project = Path(os.path.realpath(project))
        # The configured skill folders and .mcp.json: read-only for every launch, like hooks.
        self.layout = (
            layout if layout is not None else run_outside.project_layout(self.project)
        )
        self.guard = SecretGuard(home)
        self.scanner = scanner or SecretScanner()
        self._home_root = os.path.realpath(home.root)
        self._user_home = os.path.realpath(os.path.expanduser("~"))

    # -- roots ------------------------------------------------------------------------------

    @property
    def roots(self) -> tuple[Path, ...]:
        """Where a command may be started and name paths: the project (unless it lies in the
        config home outside ``skills/``) and the config home's ``skills/``."""
        roots: list[Path] = []
        if self.guard.config_home_reason(str(self.project)) is None:
            roots.append(self.project)
        roots.append(Path(os.path.realpath(self.home.skills_dir)))
        return tuple(dict.fromkeys(roots))

    @property
    def write_roots(self) -> tuple[Path, ...]:
        project = str(self.project)
        if (
            project in ("/", self._user_home)
            or _inside(self._home_root, project)
            or _inside(project, self._home_root)
        ):
            return ()
        return (self.project,)

    @property
    def limits(self) -> ProcessLimits:
        settings = self.settings
        return ProcessLimits(
            processes=settings.process_limit,
            memory_bytes=settings.memory_limit_mb * MB,
            file_bytes=settings.file_size_limit_mb * MB,
        )

    # -- the plan ---------------------------------------------------------------------------

    def plan(
        self,
        cwd: Path | None = None,
        *,
        extra_read: Sequence[Path] = (),
        network: bool = False,
    ) -> LaunchPlan:
        """The plan for one launch started in ``cwd`` (default: the project)."""
        read_roots = tuple(
            dict.fromkeys(
                (*self.roots, *(Path(os.path.realpath(p)) for p in extra_read))
            )
        )
        write_roots = self.write_roots
        namespaces = launcher._namespaces_work()
        hide: list[str] = []
        config_home = self.guard.hidden_in_config_home()
        # The config home, where a readable tree holds it: everything but skills/.
        if any(_inside(self._home_root, str(root)) for root in read_roots):
            hide.extend(config_home)
        found = self.scanner.scan(
            [str(root) for root in (*read_roots, *write_roots)],
            skip=[*config_home, *_NEVER_WALKED],
        )
        hide.extend((*found.dirs, *found.files))
        exposed: list[str] = []
        if not found.complete:
            exposed.append(
                f"files past the first {self.scanner.budget} entries (not checked for secrets)"
            )
        protect: list[str] = []
        if namespaces:
            protect = [
                *launcher.protected_paths(write_roots),
                *run_outside.protected_in(write_roots, self.layout),
            ]
        else:
            exposed[:0] = hide  # nothing can be covered without a mount namespace
            hide = []
        return LaunchPlan(
            cwd=Path(os.path.realpath(cwd)) if cwd is not None else self.project,
            read_roots=read_roots,
            write_roots=write_roots,
            protect=tuple(protect),
            hide=tuple(dict.fromkeys(hide)),
            exposed=tuple(exposed),
            network=network,
            limits=self.limits,
            namespaces=namespaces,
            absent=tuple(run_outside.absent_in(write_roots, self.layout)),
        )
