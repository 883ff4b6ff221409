"""Imported skills are input until the user confirms what they pre-approve.

``aiq-tui skills import ZIP|URL`` and ``aiq-tui skills install SOURCE`` put a skill next to the
user's own and record where it came from in a ``skills-lock.json`` (the config home's, or the
project's: :mod:`aiq_tui.skills.install.provenance`); a ``source`` field in the frontmatter,
which earlier versions of ``skills import`` wrote, still counts. Its ``allowed-tools`` were written by
someone else, so they pre-approve nothing until the user has seen them and said yes
(``aiq-tui skills trust NAME``, or ``c`` in the TUI's skill viewer). The answer is kept in the
config home (which neither the model's tools nor a sandboxed command can write) with the exact
list confirmed: a re-import or an edit that changes ``allowed-tools`` needs confirming again.

And for every skill: a bare ``*`` in ``allowed-tools`` (``fnmatch`` would match every tool by
it) is refused — :func:`refused_entries` names it for a warning, and
:func:`~aiq_tui.tools.policy.allowed_by_skill` never matches it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiq_tui.locations import Home
    from aiq_tui.skills.model import SkillMeta

CONFIRMED_FILE = "confirmed-skills.json"
"""In the config home's ``config/``: ``{"skills": {SKILL.md path: {"allowed_tools": [...]}}}``."""


def confirmed_file(home: Home) -> Path:
    return home.config_dir / CONFIRMED_FILE


def is_bare_wildcard(entry: str) -> bool:
    """``*``, ``**``…: an entry that would name every tool."""
    text = entry.strip()
    return bool(text) and not text.strip("*")


def refused_entries(tools: Iterable[str] | None) -> tuple[str, ...]:
    """The entries of ``allowed-tools`` that are refused (a bare ``*``)."""
    return tuple(entry for entry in tools or () if is_bare_wildcard(entry))


def is_imported(meta: SkillMeta, home: Home | None = None) -> bool:
    """Whether the skill came in through ``skills import`` or ``skills install``: a lockfile
    names it (``home``: the config home whose lockfile to ask; default the one ``AIQ_HOME``
    names), or its frontmatter has the ``source`` earlier imports wrote."""
    return bool(source_of(meta, home))


def source_of(meta: SkillMeta, home: Home | None = None) -> str:
    """Where an imported or installed skill came from (``owner/repo@ref``, a URL or a path);
    empty for the user's own skills."""
    if meta.source:
        return meta.source
    from aiq_tui.skills.install.provenance import provenance

    found = provenance(meta.folder, home)
    return found.label if found is not None else ""


def _key(meta: SkillMeta) -> str:
    return os.path.realpath(meta.file)


def _load(home: Home) -> dict[str, list[str]]:
    """Every confirmation; a missing, unreadable or malformed file confirms nothing."""
    try:
        data = json.loads(confirmed_file(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    skills = data.get("skills") if isinstance(data, dict) else None
    if not isinstance(skills, dict):
        return {}
    found: dict[str, list[str]] = {}
    for path, entry in skills.items():
        tools = entry.get("allowed_tools") if isinstance(entry, dict) else None
        if isinstance(tools, list) and all(isinstance(tool, str) for tool in tools):
            found[path] = tools
    return found


def is_confirmed(home: Home, meta: SkillMeta) -> bool:
    """Whether the user confirmed this skill's present ``allowed-tools`` (True for a skill that
    was not imported, or names none)."""
    tools = meta.allowed_tools
    if not tools or not is_imported(meta, home):
        return True
    return _load(home).get(_key(meta)) == list(tools)


def pending_tools(home: Home, meta: SkillMeta) -> tuple[str, ...]:
    """The ``allowed-tools`` still waiting for the user's confirmation (empty when none)."""
    return () if is_confirmed(home, meta) else tuple(meta.allowed_tools or ())


def confirm(home: Home, meta: SkillMeta, *, forget: bool = False) -> Path:
    """Record that the user confirmed ``meta``'s present ``allowed-tools`` (``forget``: withdraw
    it). Atomic, private (0600)."""
    from aiq_tui.file_io import atomic_write

    entries = _load(home)
    if forget:
        entries.pop(_key(meta), None)
    else:
        entries[_key(meta)] = list(meta.allowed_tools or ())
    payload = {
        "skills": {
            path: {"allowed_tools": tools} for path, tools in sorted(entries.items())
        }
    }
    home.config_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(
        confirmed_file(home),
        json.dumps(payload, indent=2, ensure_ascii=False) + "\n",
        mode=0o600,
    )
    return confirmed_file(home)


def granted_tools(home: Home, meta: SkillMeta) -> tuple[str, ...] | None:
    """What ``meta``'s ``allowed-tools`` may pre-approve: None when it names none; nothing
    while an imported skill's list is not confirmed; never a bare ``*``."""
    tools = meta.allowed_tools
    if tools is None:
        return None
    if not is_confirmed(home, meta):
        return ()
    return tuple(entry for entry in tools if not is_bare_wildcard(entry))


# -- an imported skill's script: asked once, by a person, per content --------------------------

APPROVED_SCRIPTS_FILE = "approved-scripts.json"
"""In the config home's ``config/``: ``{"scripts": {SKILL.md path: sha256}}`` — the imported
skills whose script a person approved once, each for the exact content they saw."""


def approved_scripts_file(home: Home) -> Path:
    return home.config_dir / APPROVED_SCRIPTS_FILE


def skill_digest(meta: SkillMeta, resources: Iterable[object] = ()) -> str:
    """sha256 of what the skill's script may run: its SKILL.md and every readable resource (a
    script often runs ``scripts/x.sh`` beside it), in path order. A changed byte is a new
    script, asked again."""
    import hashlib

    digest = hashlib.sha256()
    folder = Path(meta.folder)
    files = ["SKILL.md"] + sorted(
        str(getattr(r, "relpath", ""))
        for r in resources
        if not getattr(r, "rejected", None)
    )
    for relpath in files:
        try:
            data = (folder / relpath).read_bytes()
        except OSError:
            data = b"\x00unreadable"
        digest.update(relpath.encode("utf-8", "surrogateescape") + b"\x00")
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def _approved(home: Home) -> dict[str, str]:
    try:
        data = json.loads(approved_scripts_file(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {
        k: v for k, v in scripts.items() if isinstance(k, str) and isinstance(v, str)
    }


def script_approved(home: Home, meta: SkillMeta, digest: str) -> bool:
    """Whether a person approved this skill's script once, for exactly this content."""
    return _approved(home).get(_key(meta)) == digest


def approve_script(home: Home, meta: SkillMeta, digest: str) -> Path:
    """Record a person's yes to the first run of ``meta``'s script at ``digest`` (atomic, 0600)."""
    from aiq_tui.file_io import atomic_write

    entries = _approved(home)
    entries[_key(meta)] = digest
    home.config_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(
        approved_scripts_file(home),
        json.dumps({"scripts": dict(sorted(entries.items()))}, indent=2) + "\n",
        mode=0o600,
    )
    return approved_scripts_file(home)
