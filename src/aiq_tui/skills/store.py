"""Skill folders on disk: render/parse SKILL.md entries, write them atomically (seed 002).

No list of skills lives here — :class:`~aiq_tui.skills.catalog.SkillCatalog` is the one list;
it calls these functions to save, delete, change status and write resources. Also installs the bundled default skills (``ensure_defaults``): never overwrites an existing
skill folder and never deploys hidden or placeholder folders.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from aiq_tui.file_io import DIR_MODE, FILE_MODE, atomic_write
from aiq_tui.problems import Problem, Severity
from aiq_tui.skills.definition import definition_of
from aiq_tui.skills.parse import parse_skill_text
from aiq_tui.skills.resources import SKILL_FILE
from aiq_tui.skills.validate import SKILL_TYPES, STATUSES, status_of, validate

if TYPE_CHECKING:
    from importlib.abc import Traversable

_DEFINITION_KEYS = ("steps", "script", "template")
_KNOWN_KEYS = frozenset(
    {
        "name",
        "description",
        "type",
        "status",
        "parameters",
        "source",
        "allowed-tools",
        "created-by",
        *_DEFINITION_KEYS,
    }
)


class StoreError(Exception):
    """A store operation failed; ``str()`` names the skill or file and the reason."""


class SkillEntry(msgspec.Struct, frozen=True):
    """One lango skill. ``definition`` holds ``content`` (instruction) or steps/script/template."""

    name: str
    description: str
    type: str = "instruction"
    status: str = "active"
    definition: Mapping[str, Any] = msgspec.field(default_factory=dict)
    parameters: Mapping[str, Any] | None = None
    source: str = ""
    """Origin URL of an imported skill; empty for skills created locally."""
    allowed_tools: tuple[str, ...] = ()
    created_by: str = ""
    extras: Mapping[str, Any] = msgspec.field(default_factory=dict)
    """Other frontmatter fields (license, tags, metadata, …), preserved on save."""


# -- render / parse ---------------------------------------------------------------------------


@functools.cache
def _yaml_dump() -> Any:
    """``yaml.dump`` with multi-line strings as ``|`` blocks, so scripts and templates stay
    readable. Built on first write: reading a catalog never loads PyYAML's dumper."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def str_representer(dumper: Any, value: str) -> Any:
        style = "|" if "\n" in value and not value.endswith((" ", "\t")) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, str_representer)
    return functools.partial(yaml.dump, Dumper=Dumper)


def dump_yaml(data: Any, **options: Any) -> str:
    """YAML in the store's style (every SKILL.md this program writes uses it)."""
    return str(_yaml_dump()(data, **options))


def render(entry: SkillEntry) -> str:
    """The SKILL.md text of ``entry``: YAML frontmatter + markdown body.

    Instruction content is the body as plain markdown (no code fences); the definition of
    other types (steps / script / template) goes into the frontmatter.
    """
    front: dict[str, Any] = {"name": entry.name, "description": entry.description}
    if entry.type != "instruction":
        front["type"] = entry.type
    if (
        entry.status != "active"
    ):  # active is the default; the spec's place for the rest is metadata
        front["metadata"] = {
            **dict(entry.extras.get("metadata") or {}),
            "status": entry.status,
        }
    if entry.parameters:
        front["parameters"] = dict(entry.parameters)
    if entry.source:
        front["source"] = entry.source
    if entry.allowed_tools:
        front["allowed-tools"] = " ".join(entry.allowed_tools)
    if entry.created_by:
        front["created-by"] = entry.created_by
    for key in _DEFINITION_KEYS:
        if key in entry.definition:
            front[key] = entry.definition[key]
    for key, value in entry.extras.items():
        front.setdefault(key, value)
    head = dump_yaml(front, sort_keys=False, allow_unicode=True, width=100)
    body = str(entry.definition.get("content", "")).strip("\n")
    return f"---\n{head}---\n\n{body}\n" if body else f"---\n{head}---\n"


def parse_entry(text: str, path: Path | None = None) -> SkillEntry:
    """A :class:`SkillEntry` from SKILL.md text; :class:`StoreError` when it has no usable
    frontmatter (lango: a file without ``---`` delimiters is an error)."""
    result = parse_skill_text(text, path)
    if not result.has_frontmatter or result.meta_fields is None:
        reason = (
            result.problems[0].message
            if result.problems
            else "no YAML frontmatter between --- lines"
        )
        raise StoreError(f"{path or '<text>'}: {reason}")
    fields = result.meta_fields
    errors = [
        p
        for p in validate(
            fields,
            path,
            path.parent.name if path else None,
            lines=result.field_lines,
            body=result.body,
        )
        if p.severity is Severity.ERROR
    ]
    if errors:
        raise StoreError("; ".join(str(problem) for problem in errors))
    kind = fields.get("type") or "instruction"
    body = result.body.strip("\n")
    definition: dict[str, Any] = definition_of(kind, fields, body)
    if kind == "instruction" or body:
        definition["content"] = body
    tools = fields.get("allowed-tools", ())
    return SkillEntry(
        name=fields["name"],
        description=fields["description"],
        type=kind,
        status=status_of(fields),
        definition=definition,
        parameters=fields.get("parameters"),
        source=fields.get("source") or "",
        allowed_tools=tuple(tools.split())
        if isinstance(tools, str)
        else tuple(str(t) for t in tools),
        created_by=fields.get("created-by") or "",
        extras={key: value for key, value in fields.items() if key not in _KNOWN_KEYS},
    )


# -- skill folders on disk ----------------------------------------------------------------------
# The catalog (skills/catalog.py) is the only list of skills; these functions change the files
# under it, and the catalog rescans after each change.


def check_skill_name(name: str) -> str:
    """``name`` when it can be a folder name; :class:`StoreError` otherwise."""
    if (
        not name
        or name.startswith(".")
        or "/" in name
        or "\\" in name
        or name in (".", "..")
        or "\x00" in name
    ):
        raise StoreError(
            f"invalid skill name {name!r}: use letters, digits and hyphens"
        )
    return name


def write_skill(root: Path, entry: SkillEntry) -> Path:
    """Create or replace ``<root>/<name>/SKILL.md`` (atomically); returns its path.

    The rendered file is validated first, exactly as ``skills validate`` and ``skills import``
    check a SKILL.md (lenient, definition included): a skill that would not load — a composite
    without steps, a script matching a dangerous pattern, an empty name — raises
    :class:`StoreError` naming each problem, and nothing is written."""
    if entry.type not in SKILL_TYPES:
        raise StoreError(
            f"skill {entry.name!r}: unknown type {entry.type!r}; valid types: {', '.join(SKILL_TYPES)}"
        )
    folder = Path(root) / check_skill_name(entry.name)
    target = folder / SKILL_FILE
    text = render(entry)
    errors = text_errors(text, target)
    if errors:
        raise StoreError(
            f"skill {entry.name!r} not saved: "
            + "; ".join(
                f"{p.message}" + (f" ({p.hint})" if p.hint else "") for p in errors
            )
        )
    _refuse_foreign(target)
    Path(root).mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    folder.mkdir(mode=DIR_MODE, exist_ok=True)
    atomic_write(target, text)
    return target


def _refuse_foreign(target: Path) -> None:
    """:class:`StoreError` when ``target`` lands where another program runs it (a skill folder
    linked into ``.husky/``, a resource named ``AGENTS.md``): :mod:`aiq_tui.executed_files`."""
    from aiq_tui.tools.run_outside import foreign_write_refusal

    refusal = foreign_write_refusal(target)
    if refusal is not None:
        raise StoreError(refusal)


def text_errors(text: str, path: Path) -> list[Problem]:
    """The errors that would stop the SKILL.md ``text`` at ``path`` from loading."""
    result = parse_skill_text(text, path)
    if result.meta_fields is None:
        return [p for p in result.problems if p.severity is Severity.ERROR]
    return [
        p
        for p in (
            *result.problems,
            *validate(
                result.meta_fields,
                path,
                path.parent.name,
                lines=result.field_lines,
                body=result.body,
            ),
        )
        if p.severity is Severity.ERROR
    ]


def read_entry(skill_md: Path) -> SkillEntry:
    """The :class:`SkillEntry` of one SKILL.md file."""
    try:
        text = Path(skill_md).read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise StoreError(f"{skill_md}: not found") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"{skill_md}: cannot read: {exc}") from exc
    return parse_entry(text, Path(skill_md))


def remove_skill_folder(folder: Path) -> None:
    """Remove a whole skill folder (it must hold a SKILL.md: never an arbitrary directory)."""
    folder = Path(folder)
    if not (folder / SKILL_FILE).is_file():
        raise StoreError(
            f"{folder} is not a skill folder (no {SKILL_FILE}); nothing removed"
        )
    import shutil

    shutil.rmtree(folder)


def write_resource(folder: Path, relpath: str, data: bytes | str) -> Path:
    """Write ``<folder>/<relpath>`` (sub-folders created); the path must stay inside the folder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise StoreError(f"skill folder {folder} does not exist; save the skill first")
    target = (folder / relpath).resolve()
    base = folder.resolve()
    if os.path.isabs(relpath) or base not in target.parents:
        raise StoreError(f"resource path {relpath!r} leaves the skill folder {folder}")
    if target.name == SKILL_FILE and target.parent == base:
        raise StoreError("SKILL.md is written by saving the skill, not as a resource")
    _refuse_foreign(target)
    for parent in reversed(target.relative_to(base).parents):
        (base / parent).mkdir(mode=DIR_MODE, exist_ok=True)
    atomic_write(target, data)
    return target


_FIELD_LINE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:")


def set_frontmatter_field(text: str, key: str, value: Any) -> str:
    """``text`` with the top-level frontmatter ``key`` set to ``value``; everything else (comments,
    order, body) byte for byte unchanged. A file without frontmatter gets one."""
    rendered = dump_yaml({key: value}, allow_unicode=True, width=10_000).rstrip("\n")
    return _replace_field(text, key, rendered)


def remove_frontmatter_field(text: str, key: str) -> str:
    """``text`` without the top-level frontmatter ``key`` (unchanged when it has none)."""
    return _replace_field(text, key, None)


def _replace_field(text: str, key: str, rendered: str | None) -> str:
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline)
    offset = 1 if lines and lines[0].lstrip("\ufeff").rstrip() == "---" else 0
    if not offset:
        return (
            text
            if rendered is None
            else f"---{newline}{rendered}{newline}---{newline}{text}"
        )
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if close is None:
        raise StoreError("the frontmatter has no closing --- line")
    for index in range(1, close):
        match = _FIELD_LINE.match(lines[index])
        if match and match.group(1) == key:
            end = index + 1  # a multi-line value continues on indented lines
            while end < close and (
                lines[end].startswith((" ", "\t")) or not lines[end].strip()
            ):
                end += 1
            while end > index + 1 and not lines[end - 1].strip():
                end -= (
                    1  # blank lines after the value separate it from the next key: kept
                )
            lines[index:end] = [] if rendered is None else [rendered]
            return newline.join(lines)
    if rendered is not None:
        lines.insert(close, rendered)
    return newline.join(lines)


def set_description_in_file(
    skill_md: Path, description: str, expected: str | None = None
) -> None:
    """Replace the frontmatter ``description`` of a SKILL.md (atomic write); every other byte of
    the file stays as it was. With ``expected``, refuse (:class:`StoreError`) when the file's
    description is no longer that text — it was edited since it was read. The result is parsed
    back before it is written: nothing is written unless it reads as the new description with
    every other field unchanged."""
    from aiq_tui.skills.validate import DESCRIPTION_MAX

    if not description.strip():
        raise StoreError(f"{skill_md}: a description cannot be empty")
    if len(description) > DESCRIPTION_MAX:
        raise StoreError(
            f"{skill_md}: the description is {len(description)} characters; the limit is {DESCRIPTION_MAX}"
        )
    path = Path(skill_md)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"{path}: cannot read: {exc}") from exc
    before = parse_skill_text(text, path).meta_fields
    if before is None:
        raise StoreError(f"{path}: the frontmatter does not parse; fix it first")
    if (
        expected is not None
        and str(before.get("description", "")).strip() != expected.strip()
    ):
        raise StoreError(
            f"{path}: the description changed on disk since it was read; run again"
        )
    _refuse_foreign(path)
    updated = set_frontmatter_field(text, "description", description)
    parsed = parse_skill_text(updated, path)
    after = parsed.meta_fields
    others = {key: value for key, value in before.items() if key != "description"}
    if (
        after is None
        or {k: v for k, v in after.items() if k != "description"} != others
        or str(after.get("description", "")).strip() != description.strip()
        or parsed.body != parse_skill_text(text, path).body
    ):
        raise StoreError(
            f"{path}: the new description could not be written without changing other fields; "
            "nothing was written"
        )
    atomic_write(path, updated)


def set_status_in_file(skill_md: Path, status: str) -> None:
    """Set a skill's status (atomic write; the rest of the file is unchanged).

    A file that already says ``status:`` at the top level (lango's way) is edited in place.
    Otherwise the status goes under ``metadata:`` — the one place the Agent Skills
    specification leaves for such fields, so the app's own edit never trips its own doctor —
    and ``active``, the default, is written as no status at all: enabling a disabled skill
    gives back the file as it was."""
    if status not in STATUSES:
        raise StoreError(f"unknown status {status!r}; valid: {', '.join(STATUSES)}")
    _refuse_foreign(Path(skill_md))
    text = Path(skill_md).read_text(encoding="utf-8")
    fields = parse_skill_text(text, Path(skill_md)).meta_fields or {}
    if "status" in fields:
        atomic_write(Path(skill_md), set_frontmatter_field(text, "status", status))
        return
    metadata = fields.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise StoreError(
            f"{skill_md}: `metadata` is not a mapping; fix it before changing the status"
        )
    metadata = dict(metadata or {})
    if status == "active":
        metadata.pop("status", None)
    else:
        metadata["status"] = status
    text = (
        set_frontmatter_field(text, "metadata", metadata)
        if metadata
        else remove_frontmatter_field(text, "metadata")
    )
    atomic_write(Path(skill_md), text)


# -- bundled defaults ---------------------------------------------------------------------------


def bundled_defaults() -> Traversable:
    """The folder of default skills shipped in the package: the folder itself when the package
    is on disk (every start looks at it: no importlib.resources machinery for that), else
    importlib.resources' view of it (a zipped install)."""
    folder = Path(__file__).with_name("defaults")
    if folder.is_dir():
        return folder
    from importlib import resources

    return resources.files("aiq_tui.skills").joinpath("defaults")


def ensure_defaults(
    skills_dir: Path,
    source: Traversable | Path | None = None,
    only: Collection[str] | None = None,
) -> list[str]:
    """Copy each bundled skill into ``skills_dir`` unless a folder of that name exists.

    ``source`` replaces the bundled folder (tests); ``only`` limits the names considered.

    Hidden folders (``.placeholder``) and folders without a SKILL.md are never deployed.
    Returns the names installed, sorted. Each skill is copied to a temp folder first and
    renamed into place, so a crash never leaves half a skill.
    """
    origin = bundled_defaults() if source is None else source
    if not origin.is_dir():
        return []
    skills_dir = Path(skills_dir)
    installed: list[str] = []
    for item in sorted(origin.iterdir(), key=lambda entry: entry.name):
        if item.name.startswith(".") or item.name == "__pycache__" or not item.is_dir():
            continue
        if not item.joinpath(SKILL_FILE).is_file() or (
            only is not None and item.name not in only
        ):
            continue
        target = skills_dir / item.name
        if target.exists() or target.is_symlink():
            continue
        skills_dir.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        import tempfile

        staging = Path(tempfile.mkdtemp(prefix=f".{item.name}.", dir=skills_dir))
        try:
            _copy_tree(item, staging)
            os.rename(staging, target)
        except BaseException:
            import shutil

            shutil.rmtree(staging, ignore_errors=True)
            raise
        installed.append(item.name)
    return installed


def _copy_tree(source: Traversable, target: Path) -> None:
    os.chmod(target, DIR_MODE)
    for item in source.iterdir():
        if item.name.startswith(".") or item.name == "__pycache__":
            continue
        if item.is_dir():
            sub = target / item.name
            sub.mkdir(mode=DIR_MODE)
            _copy_tree(item, sub)
        else:
            destination = target / item.name
            destination.write_bytes(item.read_bytes())
            os.chmod(
                destination,
                0o755 if item.name.endswith((".sh", ".bash")) else FILE_MODE,
            )
