"""The composition root: home, config, sources and the skills catalog, opened in one call.

Every front end (TUI, headless commands, tests) starts from :meth:`Workspace.open`. It is
cheap: the catalog holds metadata only, nothing reads skill bodies.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from aiq_tui.config import AppConfig, load_config
from aiq_tui.locations import Home, resolve_home
from aiq_tui.migrate import MigrationReport, migrate_flat_layout
from aiq_tui.problems import Problem, Severity
from aiq_tui.secret_guard import SecretGuard

if (
    TYPE_CHECKING
):  # the catalog's modules load in complete(): the TUI's first frame needs none
    from aiq_tui.config import SourcesFile
    from aiq_tui.skills.catalog import SkillCatalog
    from aiq_tui.skills.discover import SkillDir
    from aiq_tui.trust import ProjectTrust

DEFAULTS_MARKER = "bundled-skills.json"
"""In ``data/``: names of bundled skills already offered, so a deleted one stays deleted."""


class Workspace(msgspec.Struct):
    home: Home
    config: AppConfig
    sources: SourcesFile
    catalog: SkillCatalog
    problems: tuple[Problem, ...]
    """Warnings to show the user: migration conflicts, skipped skills, missing directories."""
    migration: MigrationReport
    cwd: Path
    skill_dirs: tuple[SkillDir, ...]
    installed_defaults: tuple[str, ...] = ()
    """Bundled skills installed by this open (first run, or new ones in an upgrade)."""
    trust: ProjectTrust | None = None
    """The user's decision about the project in ``cwd`` (None when skills are off and nothing
    asked). Undecided counts as untrusted; see :mod:`aiq_tui.trust`."""

    def retrust(self) -> None:
        """Read the user's decision about the project again (the TUI's trust dialog, or
        ``aiq-tui trust`` meanwhile) and give the catalog the directories with their new trust;
        the engine's next reload sees the difference."""
        from aiq_tui.skills.discover import skill_directories
        from aiq_tui.trust import project_trust

        self.trust = project_trust(self.home, self.cwd)
        if not self.config.skills.enabled:
            return
        flags = tuple(d.path for d in self.skill_dirs if d.origin == "flag")
        self.skill_dirs = tuple(
            skill_directories(
                self.config,
                self.home,
                self.cwd,
                flags,
                project_trusted=self.trust.trusted,
            )
        )
        self.catalog.use_dirs(self.skill_dirs)

    @classmethod
    def open(
        cls,
        home_flag: str | os.PathLike[str] | None = None,
        skills_dirs: Iterable[str | os.PathLike[str]] = (),
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Workspace:
        """Resolve the home, create its layout, migrate, load config, install defaults, scan skills.

        Raises :class:`~aiq_tui.config.ConfigError` (a complete user-facing message) when
        ``config.yaml`` or ``sources.yaml`` cannot be used.
        """
        return cls.complete(cls.prepare(home_flag, env), skills_dirs, cwd)

    @staticmethod
    def prepare(
        home_flag: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> WorkspaceStart:
        """The cheap first half of :meth:`open`: home, layout, migration and the validated
        config. The TUI does this before its first frame (a broken config exits 2 before
        any screen) and :meth:`complete` after it."""
        home = resolve_home(home_flag, dict(env) if env is not None else None)
        home.ensure()
        migration = migrate_flat_layout(home)
        return WorkspaceStart(home, load_config(home), migration)

    @classmethod
    def complete(
        cls,
        start: WorkspaceStart,
        skills_dirs: Iterable[str | os.PathLike[str]] = (),
        cwd: str | os.PathLike[str] | None = None,
    ) -> Workspace:
        """The second half of :meth:`open`: bundled skills, sources and the skills catalog."""
        from aiq_tui.config import load_sources
        from aiq_tui.skills.catalog import SkillCatalog
        from aiq_tui.skills.catalog_cache import CatalogCache
        from aiq_tui.skills.discover import skill_directories
        from aiq_tui.trust import project_trust

        home, config = start.home, start.config
        base = project_directory(cwd, config, home)
        problems: list[Problem] = list(start.migration.problems)
        installed: list[str] = []
        if config.skills.enabled and config.skills.bundled:
            try:
                installed = _install_defaults(home)
            except OSError as exc:
                problems.append(
                    Problem(
                        home.skills_dir,
                        f"cannot install the bundled skills: {exc.strerror or exc}",
                        hint="check the permissions of the skills folder",
                        severity=Severity.WARNING,
                    )
                )
        sources = load_sources(home)
        trust = project_trust(
            home, base
        )  # decided once, here, for every path that uses it
        if config.skills.enabled:
            dirs = tuple(
                skill_directories(
                    config, home, base, skills_dirs, project_trusted=trust.trusted
                )
            )
            catalog = SkillCatalog(
                dirs, config.skills, CatalogCache(home.catalog_cache), SecretGuard(home)
            )
        else:
            dirs = ()
            catalog = SkillCatalog((), config.skills)
        problems.extend(catalog.problems)
        from aiq_tui.tools.permission_rules import startup_permission_problems

        problems.extend(startup_permission_problems(config, home.config_file, base))
        return cls(
            home,
            config,
            sources,
            catalog,
            tuple(problems),
            start.migration,
            base,
            dirs,
            tuple(installed),
            trust,
        )


def project_directory(
    cwd: str | os.PathLike[str] | None, config: AppConfig, home: Home
) -> Path:
    """Where tools and scripts work and project skills are found: ``cwd`` (``--cwd``), else
    config ``tools.cwd``, else the current directory; absolute. Raises
    :class:`~aiq_tui.config.ConfigError` when ``tools.cwd`` is not a directory (``--cwd`` is
    checked with the other global options)."""
    if cwd is not None:
        return Path(os.path.abspath(Path(cwd).expanduser()))
    if config.tools.cwd is None:
        return Path.cwd()
    path = Path(os.path.abspath(Path(config.tools.cwd).expanduser()))
    if not path.is_dir():
        from aiq_tui.config import ConfigError

        what = "is not a directory" if path.exists() else "does not exist"
        raise ConfigError(
            home.config_file,
            f"{path} {what}; set it to the project folder, or remove it",
            field="tools.cwd",
        )
    return path


class WorkspaceStart(msgspec.Struct, frozen=True):
    """What :meth:`Workspace.prepare` found: enough to draw the first frame."""

    home: Home
    config: AppConfig
    migration: MigrationReport


def _install_defaults(home: Home) -> list[str]:
    """Install bundled skills not offered before (a user's deletion is respected)."""
    from aiq_tui.file_io import atomic_write
    from aiq_tui.skills.store import bundled_defaults, ensure_defaults

    marker = home.data_dir / DEFAULTS_MARKER
    try:
        offered = set(json.loads(marker.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, RecursionError):
        offered = set()
    available = {
        item.name
        for item in bundled_defaults().iterdir()
        if item.is_dir()
        and not item.name.startswith(".")
        and item.joinpath("SKILL.md").is_file()
    }
    if available <= offered:
        return []
    installed = ensure_defaults(home.skills_dir, only=available - offered)
    atomic_write(marker, json.dumps(sorted(offered | available)) + "\n")
    return installed
