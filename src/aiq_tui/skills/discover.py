"""Find skills: which directories, in what precedence, and a metadata-only scan of them.

The scan reads only the frontmatter of each ``SKILL.md`` (see :func:`read_frontmatter_fd`),
never a body. A skill without ``name`` where Claude Code reads it (``.claude/skills``, a Claude
Code plugin) is named after its folder, as Claude Code names it (with a warning). One bad skill never stops the others: every defect becomes a warning
:class:`Problem` and the skill is skipped. The hot loop works on ``str`` paths and
``os.scandir`` because ``pathlib`` overhead dominates a 10,000-skill scan.

A folder the user names (``--skills-dir``, ``skills.dirs``) is searched in the layouts
collections use (:mod:`~aiq_tui.skills.layouts`); a harness folder (``.claude/skills``,
``~/.agents/skills``) is read as its harness reads it, one level deep. The same SKILL.md
reached twice (the ``skills`` CLI links ``.claude/skills/NAME`` to ``.agents/skills/NAME``)
is one skill, silently.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from aiq_tui.config import AppConfig, SkillsSettings
from aiq_tui.file_io import NotRegularFile, open_regular_fd
from aiq_tui.locations import Home
from aiq_tui.problems import Problem, Severity
from aiq_tui.skills.definition import DEFINITION_FIELD
from aiq_tui.skills.model import SkillMeta
from aiq_tui.skills.parse import read_frontmatter_fd
from aiq_tui.skills.resources import SKILL_FILE
from aiq_tui.skills.validate import validate, with_stand_ins

if TYPE_CHECKING:
    from aiq_tui.skills.catalog import SkillCatalog

ORIGINS = ("flag", "config", "project", "home", "user")
"""Where a skills directory came from, highest precedence first."""

_EXPLICIT = frozenset({"flag", "config"})
LAYOUT_DEPTH = 5  # skills.layouts.LIMITS.depth, said in messages

DISABLED_SUFFIX = ".disabled"
"""A skill folder named ``NAME.disabled`` is skipped with a note (seed 001)."""


class SkillDir(msgspec.Struct, frozen=True):
    """One directory to scan. ``origin`` is one of :data:`ORIGINS`."""

    path: Path
    origin: str
    project_trusted: bool = False
    """For a ``project`` directory: whether the user trusts the project (``aiq-tui trust``)."""
    in_project: bool = False
    """A ``config`` directory given relative, so inside the project: as trusted as the project."""

    @property
    def explicit(self) -> bool:
        """Named by the user (flag or config): a missing one is worth a warning."""
        return self.origin in _EXPLICIT

    @property
    def trusted(self) -> bool:
        """The user's own folders (flag, config, the config home, ~/.claude/skills…) are
        trusted; a project's only when the user trusts the project."""
        return (
            self.origin != "project" and not self.in_project
        ) or self.project_trusted


class ScanResult(msgspec.Struct, frozen=True):
    metas: dict[str, SkillMeta]
    problems: tuple[Problem, ...]
    failed: frozenset[str]
    """SKILL.md paths that exist but could not be loaded (live reload keeps their last good version)."""


def skill_directories(
    config: AppConfig | SkillsSettings,
    home: Home,
    cwd: Path | None = None,
    extra_dirs: Iterable[str | os.PathLike[str]] = (),
    *,
    project_trusted: bool | None = None,
) -> list[SkillDir]:
    """Directories to scan, highest precedence first, without duplicates, each with its trust.

    Order: ``--skills-dir`` flags, config ``skills.dirs``, project dirs under ``cwd``
    (``skills.project_dirs``: ``.agents/skills``, ``.aiq/skills``, ``.claude/skills``), the
    project folders of ``skills.harnesses``, the same project dirs in the parents up to the
    repository root (``skills.ancestor_dirs``) and in sub-folders (``skills.nested_dirs``), the
    home's ``skills/``, then (unless ``skills.include_user_agent_dirs`` is false)
    ``$CLAUDE_CONFIG_DIR/skills`` (``~/.claude/skills``) and ``~/.agents/skills``, then the
    user folders of ``skills.harnesses``.

    Trust is decided here, once: project dirs — and a relative ``skills.dirs`` entry, which
    resolves into the project — are trusted when the project is
    (``project_trusted``; None reads the user's decision from the config home, undecided
    meaning untrusted). A project dir that *is* one of the user's own folders (started in
    ``~``) counts as the user's; one inside the config home is trusted with it. An untrusted
    project's dirs come after every trusted one, so a cloned repository cannot shadow the
    user's skill of the same name.
    """
    settings = config.skills if isinstance(config, AppConfig) else config
    base = Path.cwd() if cwd is None else Path(cwd)
    user_dirs = default_user_dirs() if settings.include_user_agent_dirs else []
    harness_project, harness_user = _harness_dirs(settings, base)
    user_dirs += [path for path in harness_user if path not in user_dirs]
    user_keys = {os.path.realpath(path) for path in user_dirs}
    home_root = os.path.realpath(home.root)
    if project_trusted is None and (
        settings.project_dirs or any(not _absolute(raw) for raw in settings.dirs)
    ):
        from aiq_tui.trust import project_trust

        project_trusted = project_trust(home, base).trusted
    found: list[SkillDir] = []
    seen: set[str] = set()

    def add(raw: str | os.PathLike[str], origin: str, in_project: bool = False) -> None:
        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = base / path
        path = Path(os.path.normpath(path))
        key = os.path.realpath(path)
        if key in seen:
            return
        seen.add(key)
        trusted = bool(project_trusted)
        if origin == "project" and key in user_keys:
            origin = "user"  # started in ~: the "project" folder is the user's own
        elif origin == "project" and (
            key == home_root or key.startswith(home_root + os.sep)
        ):
            trusted = True  # inside the config home, which is the user's
        found.append(
            SkillDir(
                path,
                origin,
                trusted if origin == "project" or in_project else False,
                in_project,
            )
        )

    for raw in extra_dirs:
        add(raw, "flag")
    for raw in settings.dirs:
        # A relative entry names a folder of whatever project aiq-tui starts in: its files are
        # the project's, as trusted as the project — not the user's because the config named it.
        add(raw, "config", in_project=not _absolute(raw))
    for raw in settings.project_dirs:
        add(raw, "project")
    for path in [*harness_project, *around_project(settings, base)]:
        add(path, "project")
    add(home.skills_dir, "home")
    for path in user_dirs:
        add(path, "user")
    return sorted(
        found, key=lambda directory: not directory.trusted
    )  # stable: trusted first


def default_user_dirs(env: dict[str, str] | None = None) -> list[Path]:
    """The user's own agent folders read by default: Claude Code's (``CLAUDE_CONFIG_DIR``
    honoured) and the shared ``~/.agents/skills``."""
    from aiq_tui.skills.harnesses import PROFILES, expand

    claude = next(f for f in PROFILES["claude-code"].folders if f.scope == "user")
    return [expand(claude, env), Path.home() / ".agents" / "skills"]


def _harness_dirs(
    settings: SkillsSettings, base: Path
) -> tuple[list[Path], list[Path]]:
    """(project folders, user and admin folders) of the harnesses ``skills.harnesses`` names."""
    if not settings.harnesses:
        return [], []
    from aiq_tui.skills.harnesses import profile, skill_folders

    project: list[Path] = []
    user: list[Path] = []
    for name in settings.harnesses:
        for folder in skill_folders(profile(name), base):
            (project if folder.scope == "project" else user).append(folder.path)
    return project, user


NESTED_FOLDER_BUDGET = 2_000
"""Most folders the search for nested project folders lists (a start stays quick in a big
repository)."""


def around_project(settings: SkillsSettings, base: Path) -> list[Path]:
    """The project dirs (``skills.project_dirs``) in the parents of ``base`` up to its
    repository root, nearest first (``skills.ancestor_dirs``), then in its sub-folders down to
    ``skills.nested_depth`` levels, breadth first (``skills.nested_dirs``); existing ones only.
    Nothing outside a git repository (a home folder is no monorepo)."""
    if not settings.project_dirs or not (
        settings.ancestor_dirs or settings.nested_dirs
    ):
        return []
    from aiq_tui.skills.harnesses import repo_root

    root = repo_root(base)
    if root is None:
        return []
    found: list[Path] = []
    if settings.ancestor_dirs and root != base:
        for parent in base.parents:
            found += [
                parent / raw for raw in settings.project_dirs if (parent / raw).is_dir()
            ]
            if parent == root:
                break
    if settings.nested_dirs:
        found += _nested_project_dirs(settings, base)
    return found


def _nested_project_dirs(settings: SkillsSettings, base: Path) -> list[Path]:
    from collections import deque

    from aiq_tui.skills.layouts import SKIPPED

    heads = {Path(raw).parts[0] for raw in settings.project_dirs if Path(raw).parts}
    found: list[Path] = []
    queue: deque[tuple[str, int]] = deque([(str(base), 0)])
    listed = 0
    while queue and listed < NESTED_FOLDER_BUDGET:
        folder, depth = queue.popleft()
        listed += 1
        try:
            with os.scandir(folder) as entries:
                names = sorted(
                    entry.name
                    for entry in entries
                    if entry.is_dir(follow_symlinks=False) and entry.name not in SKIPPED
                )
        except OSError:
            continue
        if depth > 0:
            found += [
                Path(folder) / raw
                for raw in settings.project_dirs
                if Path(raw).parts
                and Path(raw).parts[0] in names
                and os.path.isdir(os.path.join(folder, raw))
            ]
        if depth < settings.nested_depth:
            queue.extend(
                (os.path.join(folder, name), depth + 1)
                for name in names
                if name[:1] != "." and name not in heads
            )
    return found


def _absolute(raw: str | os.PathLike[str]) -> bool:
    """Whether a configured skills folder names one place (absolute or ``~``) rather than a folder
    of the project."""
    return Path(raw).expanduser().is_absolute()


def discover(dirs: Sequence[SkillDir], settings: SkillsSettings) -> SkillCatalog:
    """Scan ``dirs`` (metadata only) into a :class:`SkillCatalog`."""
    from aiq_tui.skills.catalog import SkillCatalog

    return SkillCatalog(dirs, settings)


def scan(dirs: Sequence[SkillDir], settings: SkillsSettings) -> ScanResult:
    """The metadata of every loadable skill in ``dirs``; name clashes go to the first dir."""
    state = _Scan(settings)
    for directory in dirs:
        state.directory(directory)
    return ScanResult(state.metas, tuple(state.problems), frozenset(state.failed))


class _Scan:
    def __init__(self, settings: SkillsSettings):
        self.settings = settings
        self.include = frozenset(settings.include)
        self.exclude = frozenset(settings.exclude)
        self.metas: dict[str, SkillMeta] = {}
        self.problems: list[Problem] = []
        self.failed: set[str] = set()
        self.trusted = (
            False  # the trust of the directory being scanned, stamped on its metas
        )

    def warn(self, path: str, message: str, hint: str) -> None:
        self.problems.append(_warning(path, message, hint))

    def directory(self, directory: SkillDir) -> None:
        self.trusted = directory.trusted
        root = str(directory.path)
        names = self.folder_names(directory, root)
        if names is None:
            return
        if directory.explicit and SKILL_FILE in names:
            # The user pointed straight at one skill folder.
            self.skill(
                directory.path, os.path.join(root, SKILL_FILE), os.path.basename(root)
            )
            return
        if directory.explicit and self.settings.search_layouts:
            self.layouts(directory, root, names)
            return
        self.folders(directory.path, root, names)

    def layouts(self, directory: SkillDir, root: str, names: list[str]) -> None:
        """A folder the user named, searched in the layouts collections use: each collection
        read as a skills folder, then the skill folders manifests name; when none holds a
        skill, a warning says where SKILL.md files are (or that there are none)."""
        from aiq_tui.skills.layouts import find_skills

        layout = find_skills(root)
        self.problems.extend(layout.problems)
        # Its own entries first (a broken link or a misnamed SKILL.md among them is said),
        # then the collections below it.
        self.folders(directory.path, root, names)
        for collection in layout.collections:
            if collection.path == root:
                continue
            listing = self.folder_names(directory, collection.path)
            if listing is not None:
                self.folders(directory.path, collection.path, listing)
        for folder, _how in layout.singles:
            self.skill(
                directory.path,
                os.path.join(folder, SKILL_FILE),
                os.path.basename(folder),
            )
        if layout.truncated:
            self.warn(
                root,
                f"searching it for skills {layout.truncated}; some may be missing",
                "point --skills-dir / skills.dirs at the folder that holds the skills",
            )
        if not layout.collections and not layout.singles and layout.deeper:
            shown = ", ".join(os.path.relpath(path, root) for path in layout.deeper)
            self.warn(
                root,
                "no skills found here, in skills/, in a plugin manifest or in folders "
                f"{LAYOUT_DEPTH} levels down, but SKILL.md files further down: {shown}",
                "give the folder that holds the skill folders",
            )

    def folder_names(self, directory: SkillDir, root: str) -> list[str] | None:
        """The sorted entries of ``root`` (hidden ones left out), or None with a warning for
        an explicit directory that cannot be listed."""
        try:
            with os.scandir(root) as entries:
                return sorted(entry.name for entry in entries if entry.name[0] != ".")
        except FileNotFoundError:
            if directory.explicit:
                self.warn(
                    root,
                    "skills directory does not exist; skipped",
                    "create it, or remove it from --skills-dir / skills.dirs",
                )
        except NotADirectoryError:
            if directory.explicit:
                self.warn(
                    root,
                    "skills directory is not a directory; skipped",
                    "point --skills-dir / skills.dirs at a folder of skill folders",
                )
        except OSError as exc:
            self.warn(
                root,
                f"cannot list skills directory: {exc.strerror or exc}; skipped",
                "check its permissions",
            )
        return None

    def folders(self, source_dir: Path, root: str, names: list[str]) -> None:
        """Each entry of a skills directory as a skill folder."""
        for name in names:
            if name.endswith(DISABLED_SUFFIX):
                self.disabled(root, name)
            else:
                self.skill(
                    source_dir, f"{root}{os.sep}{name}{os.sep}{SKILL_FILE}", name
                )

    def disabled(self, root: str, name: str) -> None:
        """The aiq design (001): a skill is disabled by renaming its folder; say so."""
        if os.path.isfile(f"{root}{os.sep}{name}{os.sep}{SKILL_FILE}"):
            self.problems.append(
                Problem(
                    Path(root) / name,
                    f"skill folder {name!r} is disabled (its name ends in "
                    f"{DISABLED_SUFFIX}); not loaded",
                    hint=f"aiq-tui skills enable {name[: -len(DISABLED_SUFFIX)]}",
                    severity=Severity.WARNING,
                )
            )

    def skill(self, source_dir: Path, skill_md: str, folder: str) -> None:
        parsed = self.parse(source_dir, skill_md, folder)
        self.problems.extend(parsed.problems)
        if parsed.meta is not None:
            self.admit(parsed.meta, parsed.name_line)

    def parse(self, source_dir: Path, skill_md: str, folder: str) -> Parsed:
        """Read and validate one SKILL.md on its own (no include/exclude, no clash check).
        A file that exists but cannot be loaded is added to :attr:`failed`."""
        settings = self.settings
        try:
            # Non-blocking open + fstat: a FIFO named SKILL.md must not hang the scan.
            fd, info = open_regular_fd(skill_md)
        except FileNotFoundError:
            # Not a skill folder — unless its SKILL.md is a broken link or misnamed: say so.
            problem = missing_skill_file_problem(os.path.dirname(skill_md))
            return Parsed(
                None, None, [_skipped(problem)] if problem is not None else []
            )
        except NotADirectoryError:
            return Parsed(None, None, [])  # a plain file next to the skill folders
        except NotRegularFile:
            self.failed.add(skill_md)
            return Parsed(
                None,
                None,
                [
                    _warning(
                        skill_md,
                        "SKILL.md is not a regular file (a FIFO, socket, device or directory); skill skipped",
                        "make it a markdown file",
                    )
                ],
            )
        except OSError as exc:
            self.failed.add(skill_md)
            return Parsed(
                None,
                None,
                [
                    _warning(
                        skill_md,
                        f"cannot read SKILL.md: {exc.strerror or exc}; skill skipped",
                        "check the file's permissions and symbolic links",
                    )
                ],
            )
        try:
            if info.st_size > settings.max_skill_md_bytes:
                self.failed.add(skill_md)
                return Parsed(
                    None,
                    info,
                    [
                        _warning(
                            skill_md,
                            f"SKILL.md is {info.st_size} bytes, over the {settings.max_skill_md_bytes}"
                            "-byte limit; skill skipped",
                            "move long material into resource files, or raise skills.max_skill_md_bytes",
                        )
                    ],
                )
            # The path stays a str: a Path is built only for a problem (see SkillMeta.path).
            result = read_frontmatter_fd(fd, skill_md, settings.max_skill_md_bytes)
        finally:
            os.close(fd)
        fields = result.meta_fields
        errors = [p for p in result.problems if p.severity is Severity.ERROR]
        warnings: list[Problem] = []
        stood_in: list[Problem] = []
        if (
            fields is not None
            and not errors
            and "name" not in fields
            and _named_by_folder(skill_md)
        ):
            fields, stood_in = with_stand_ins(fields, folder, skill_md)
            warnings = list(stood_in)
        if fields is not None and not errors:
            checked = validate(fields, skill_md, folder, lines=result.field_lines)
            if checked:
                errors = [p for p in checked if p.severity is Severity.ERROR]
                warnings += [p for p in checked if p.severity is not Severity.ERROR]
        if fields is None or errors:
            self.failed.add(skill_md)
            return Parsed(
                None,
                info,
                [_skipped(p) for p in (errors or result.problems)] + stood_in,
            )
        problems = [*result.problems, *warnings] if result.problems or warnings else []
        extras = {
            key: value
            for key, value in fields.items()
            if key != "name" and key != "description"
        }
        meta = SkillMeta(
            fields["name"].strip(),
            fields["description"].strip(),
            skill_md,  # type: ignore[arg-type]  # a str: read back as a Path (_LazyPath)
            source_dir,
            extras,
            info.st_size,
            info.st_mtime_ns,
            result.body_offset,
            self.trusted,
        )
        if (
            meta.type in DEFINITION_FIELD
            and DEFINITION_FIELD[meta.type] not in extras
            and meta.status == "active"
        ):
            unusable = _body_definition_problem(
                skill_md, meta.type, result.body_offset, settings.max_skill_md_bytes
            )
            if (
                unusable is not None
            ):  # (not kept at its last good version: a dangerous edit must take effect)
                return Parsed(None, info, [*problems, unusable])
        return Parsed(meta, info, problems, result.field_lines.get("name"))

    def admit(self, meta: SkillMeta, name_line: int | None) -> None:
        """Include/exclude, then the first directory's skill of a name wins (the clash is worded)."""
        name = meta.name
        if (self.include and name not in self.include) or name in self.exclude:
            return
        if name in self.metas:
            winner = self.metas[name]
            if _same_file(winner.file, meta.file):
                return  # one skill reached by two paths (a link): not a clash
            untrusted_loser = not meta.trusted_source and winner.trusted_source
            self.problems.append(
                Problem(
                    meta.path,
                    f"skill {name!r} is also defined in {winner.path}, which takes precedence; this one is "
                    + (
                        "ignored (its project is not trusted, and an untrusted project never shadows your own skill)"
                        if untrusted_loser
                        else "ignored"
                    ),
                    field="name",
                    line=name_line,
                    hint="`aiq-tui trust` trusts the project (its skills then take precedence)"
                    if untrusted_loser
                    else "rename one of them, or remove the copy you do not want",
                    severity=Severity.WARNING,
                )
            )
            return
        self.metas[name] = meta


class Parsed(msgspec.Struct, frozen=True):
    """One SKILL.md read on its own: its metadata (None when it does not load), the stat it was
    read under, the problems it produced, and the line of its ``name`` (for clash warnings)."""

    meta: SkillMeta | None
    info: os.stat_result | None
    problems: list[Problem]
    name_line: int | None = None


def _named_by_folder(skill_md: str) -> bool:
    """Whether the harness that reads this skill names it after its folder when it has no
    ``name`` (Claude Code: in ``.claude/skills`` or a Claude Code plugin). Elsewhere a missing
    ``name`` skips the skill, as the seeds ask. Asked only of a skill without a name."""
    from aiq_tui.skills.harnesses import infer_harness

    return not infer_harness(skill_md).requires_name


def _same_file(first: str, second: str) -> bool:
    """Whether two SKILL.md paths are one file (asked only on a name clash)."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


LOWERCASE_SKILL_FILE = SKILL_FILE.lower()


def missing_skill_file_problem(folder: str | os.PathLike[str]) -> Problem | None:
    """Why the folder's SKILL.md cannot be read although the folder looks like a skill — its
    SKILL.md (or the folder itself) is a symbolic link whose target is gone, or the file is
    named ``skill.md`` — or None for a folder that is simply not a skill. Only called when
    SKILL.md was not found, so an ordinary scan pays nothing for it."""
    folder = os.fspath(folder)
    skill_md = os.path.join(folder, SKILL_FILE)
    for link, what in ((skill_md, "file"), (folder, "folder")):
        if os.path.islink(link) and not os.path.exists(link):
            return Problem(
                Path(link),
                f"{os.path.basename(link)} is a symbolic link to {os.readlink(link)!r}, "
                "which does not exist",
                hint=f"point the link at an existing {what}, or remove it",
                severity=Severity.WARNING,
            )
    lowercase = os.path.join(folder, LOWERCASE_SKILL_FILE)
    if os.path.isfile(lowercase):
        return misnamed_problem(Path(lowercase))
    return None


def misnamed_problem(path: Path) -> Problem:
    """A ``skill.md`` (any case but ``SKILL.md``): the Agent Skills format and Claude Code read a
    file named exactly ``SKILL.md`` (skills-ref also takes ``skill.md``; see docs/skills.md)."""
    return Problem(
        path,
        f"the file is named {path.name}; skills are read from a file named exactly {SKILL_FILE}",
        hint=f"rename it to {SKILL_FILE} (the name is case-sensitive: Claude Code does not load {path.name})",
        severity=Severity.WARNING,
    )


def _body_definition_problem(
    skill_md: str, kind: str, body_offset: int, max_bytes: int
) -> Problem | None:
    """The warning that skips an active executable skill whose definition is not in the
    frontmatter and not usable in the body either — missing (a composite without steps, a
    script without a ```sh block, …), invalid JSON, or a script matching a dangerous pattern —
    or None. Validation checks a frontmatter definition; a fenced one is in the body, which
    only this check reads: here, at parse time, so that a skill the catalog cache holds (it
    holds only files that produced no problem) was checked when it was cached, and a warm
    start reads no body and loads no pattern. Such a skill is never listed to the model nor
    offered as a ``skill_<name>`` tool."""
    from aiq_tui.skills.definition import DefinitionError, definition_from_body
    from aiq_tui.skills.executor import definition_problems
    from aiq_tui.skills.parse import decode_skill_bytes, unix_newlines

    try:
        fd, _ = open_regular_fd(skill_md)
        try:
            data = os.read(fd, max_bytes)
        finally:
            os.close(fd)
    except OSError:
        return None  # gone or unreadable since the frontmatter was read: loading it reports that
    text, _problem = decode_skill_bytes(data, None)
    if text is None:
        return None
    key = DEFINITION_FIELD[kind]
    try:
        definition = definition_from_body(kind, unix_newlines(text)[body_offset:])
    except DefinitionError as exc:
        return Problem(
            Path(skill_md),
            f"{exc} (skill skipped)",
            field=key,
            hint="fix the JSON of the ```json block",
            severity=Severity.WARNING,
        )
    problems = definition_problems(kind, definition, fenced=True)
    if not problems:
        return None
    problem = problems[0]
    outcome = "skill blocked" if problem.dangerous else "skill skipped"
    return Problem(
        Path(skill_md),
        f"{problem.message} ({outcome})",
        field=key,
        hint=problem.hint,
        severity=Severity.WARNING,
    )


def _warning(path: str, message: str, hint: str) -> Problem:
    return Problem(Path(path), message, hint=hint, severity=Severity.WARNING)


def _skipped(problem: Problem) -> Problem:
    return replace(
        problem, message=f"{problem.message} (skill skipped)", severity=Severity.WARNING
    )
