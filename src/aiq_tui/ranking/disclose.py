"""Progressive disclosure (seeds 003, 004): how much of a skill the model sees.

Three phases chosen by match confidence against ``config.disclosure`` thresholds:
metadata (name + one line, ~50 tokens) below ``brief_threshold``; brief (description,
parameters, the first section of the body, ~200 tokens) up to ``full_threshold``; full
(the whole body plus a listing of its resources) from there on. Resource contents are
never inlined: they are read on demand (level 3).

:class:`SkillTexts` produces and caches the three texts — metadata permanently, brief and
full with the configured TTLs — and drops an entry as soon as the SKILL.md changes on
disk. :func:`assign_states` turns a ranking into Active / Relevant / Inactive transitions,
each with a human-readable reason. Nothing here reads the catalog directly: bodies come
from a loader callable, so this module works with any skill source.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from aiq_tui.figures import decisive
from aiq_tui.skills.model import (
    Match,
    Phase,
    Ranking,
    Resource,
    Skill,
    SkillMeta,
    SkillState,
)

Loader = Callable[[str], Skill]
ResourceLister = Callable[[str], "tuple[Resource, ...]"]
Clock = Callable[[], float]
TokenCounter = Callable[[str], int]


class Thresholds(Protocol):
    """What disclosure needs from ``config.disclosure`` (a ``DisclosureSettings``)."""

    brief_threshold: float
    full_threshold: float


def phase_for(confidence: float | None, thresholds: Thresholds) -> Phase:
    """Metadata below ``brief_threshold`` (or with no confidence), brief below
    ``full_threshold``, full from there on (seed 003: 0.15 / 0.7 by default)."""
    if confidence is None or confidence < thresholds.brief_threshold:
        return Phase.METADATA
    if confidence < thresholds.full_threshold:
        return Phase.BRIEF
    return Phase.FULL


def estimate_tokens(text: str) -> int:
    """A cheap token estimate (≈ 4 characters per token for English prose)."""
    return (len(text) + 3) // 4


# -- texts ---------------------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _trim_words(text: str, tokens: int, count: TokenCounter) -> str:
    """Cut ``text`` to about ``tokens`` at a word boundary, marking the cut with "…"."""
    if count(text) <= tokens:
        return text
    pieces = text.split(" ")
    low, high = 0, len(pieces)
    while low < high:  # the longest prefix that still fits
        middle = (low + high + 1) // 2
        if count(" ".join(pieces[:middle]) + " …") <= tokens:
            low = middle
        else:
            high = middle - 1
    return " ".join(pieces[:low]).rstrip(" ,;:") + " …"


def metadata_text(
    meta: SkillMeta, tokens: int = 50, count: TokenCounter = estimate_tokens
) -> str:
    """Phase 1: ``name: one-line description``, trimmed to about ``tokens``."""
    return _trim_words(f"{meta.name}: {_one_line(meta.description)}", tokens, count)


def _parameters(extras: Mapping[str, Any]) -> list[str]:
    """Lines for a frontmatter ``parameters`` field (a mapping or a list of mappings/names)."""
    value = extras.get("parameters")
    lines: list[str] = []
    if isinstance(value, Mapping):
        for key, spec in value.items():
            lines.append(_parameter_line(str(key), spec))
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, Mapping) and "name" in item:
                lines.append(_parameter_line(str(item["name"]), item))
            elif item is not None:
                lines.append(f"- {item}")
    return lines


def _parameter_line(name: str, spec: Any) -> str:
    if isinstance(spec, Mapping):
        kind = spec.get("type")
        # As the tool's JSON schema has it (skill_tools.skill_as_tool.parameters_schema): a declared
        # parameter without a default is required unless it says otherwise.
        required = ", required" if spec.get("required", "default" not in spec) else ""
        description = spec.get("description")
        head = f"- {name}" + (
            f" ({kind}{required})"
            if kind
            else (f" ({required[2:]})" if required else "")
        )
        return head + (f": {_one_line(str(description))}" if description else "")
    if spec is None:
        return f"- {name}"
    return f"- {name}: {_one_line(str(spec))}"


_HEADING = re.compile(r"^#{1,6}\s")


def first_section(body: str) -> str:
    """The body up to its second heading (the first heading and what follows it)."""
    lines = body.strip("\n").splitlines()
    out: list[str] = []
    headings = 0
    for line in lines:
        if _HEADING.match(line):
            headings += 1
            if headings > 1 or (
                headings == 1 and out and any(part.strip() for part in out)
            ):
                # A heading after some text (or the second heading) ends the first section.
                if headings > 1 or out:
                    break
        out.append(line)
    return "\n".join(out).strip()


def _trim_blocks(text: str, tokens: int, count: TokenCounter) -> str:
    """Keep whole paragraphs (blank-line separated) while they fit; words if none does."""
    if count(text) <= tokens:
        return text
    kept: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        candidate = "\n\n".join([*kept, block])
        if count(candidate) > tokens:
            break
        kept.append(block)
    if kept:
        return "\n\n".join(kept)
    return _trim_words(_one_line(text), tokens, count)


def parameters_block(meta: SkillMeta) -> str:
    """``Parameters:`` and one line per declared parameter, or "" when there are none."""
    parameters = _parameters(meta.extras)
    return "Parameters:\n" + "\n".join(parameters) if parameters else ""


_RUNS = {
    "composite": "returns the numbered plan of tool calls to make, in order",
    "script": "runs its script in the sandbox (the user approves it first)",
    "template": "returns its template rendered with the parameters",
}


def tool_usage(meta: SkillMeta) -> str:
    """For a composite / script / template skill, the ``skill_<name>`` tool it provides and
    what calling it does ("" for an instruction skill, whose body is the whole content)."""
    does = _RUNS.get(meta.type)
    if does is None:
        return ""
    from aiq_tui.skills.tool_names import (
        tool_name_for,
    )  # the one mapping of skill → tool name

    return f"This is a {meta.type} skill: call the tool `{tool_name_for(meta.name)}`, which {does}."


def brief_text(
    skill: Skill, tokens: int = 200, count: TokenCounter = estimate_tokens
) -> str:
    """Phase 2: description, parameters (when the frontmatter has them) and the first
    section of the body, trimmed at a paragraph boundary to about ``tokens``."""
    # The prompt section already carries the name and description (context.prompt.skill_section):
    # the brief adds what the model does not have yet.
    parameters = parameters_block(skill.meta)
    head = _trim_blocks(parameters, tokens, count) if parameters else ""
    room = tokens - (count(head) + 2 if head else 0)
    section = first_section(skill.body)
    if room <= 0 or not section:
        return head
    rest = _trim_blocks(section, room, count)
    if not rest or count(rest) > room:
        return head
    return f"{head}\n\n{rest}" if head else rest


LISTING_TOKENS = 1_500
"""The resource listing's token bound when the caller passes none: the default of
``disclosure.resource_listing_tokens`` (config.py is its home; a test keeps them equal)."""


def resources_listing(
    resources: Iterable[Resource],
    skill: Skill | None = None,
    max_tokens: int = LISTING_TOKENS,
    count: TokenCounter = estimate_tokens,
) -> str:
    """``Resources`` list: one line per file — relative path, kind, size (or why rejected).

    With ``skill``, the listing names the skill folder and how to read a file (level 3):
    ``read_skill_resource`` with the relative path, or ``file_operations`` with the full path.
    The lines take at most ``max_tokens`` (``disclosure.resource_listing_tokens``): the files
    past them are named by count, and a walk that stopped early
    (:attr:`~aiq_tui.skills.resources.ResourceListing.stopped`) says so."""
    ordered = sorted(resources, key=lambda item: item.relpath)
    lines: list[str] = []
    used = 0
    for resource in ordered:
        note = (
            f"rejected: {resource.rejected}"
            if resource.rejected
            else f"{resource.size} bytes"
        )
        line = f"- {resource.relpath} ({resource.kind.value}, {note})"
        used += count(line) + 1
        if used > max_tokens:
            break
        lines.append(line)
    if not ordered:
        return "Resources: none"
    left = len(ordered) - len(lines)
    if left:
        lines.append(
            f"- … and {left:,} more not listed here (disclosure.resource_listing_tokens); "
            "list a folder with file_operations to see them"
        )
    stopped = getattr(resources, "stopped", None)
    if stopped:
        lines.append(f"- … and possibly more: {stopped}")
    if skill is None:
        return (
            "Resources (read on demand with the file tools, paths relative to the skill folder):\n"
            + "\n".join(lines)
        )
    return (
        f"Resources in {skill.meta.folder} (read one with read_skill_resource "
        f'{{"skill_name": "{skill.name}", "path": "<path>"}}, or file_operations with '
        f"{skill.meta.folder}/<path>):\n" + "\n".join(lines)
    )


def full_text(
    skill: Skill,
    resources: Iterable[Resource] = (),
    listing_tokens: int = LISTING_TOKENS,
    count: TokenCounter = estimate_tokens,
) -> str:
    """Phase 3: everything the brief had and the rest — for an executable skill the tool it
    provides, the parameters, the whole body — then its resources listing (the prompt section
    carries the ``## Skill: NAME`` heading, so no second title here)."""
    parts = (
        tool_usage(skill.meta),
        parameters_block(skill.meta),
        skill.body.strip(),
        resources_listing(resources, skill, listing_tokens, count),
    )
    return "\n\n".join(part for part in parts if part)


def use_skill_text(skill: Skill, resources: Iterable[Resource]) -> str:
    """What ``use_skill`` returns (seed 004): the full instructions — for a composite, script
    or template skill the ``skill_<name>`` tool it provides and its parameters first — then
    every bundled resource with its relative path and kind, so the model can ask for one by path."""
    return f"# Skill: {skill.name}\n\n{full_text(skill, resources)}"


# -- cached generator ----------------------------------------------------------------------


@dataclass
class _Entry:
    text: str
    mtime_ns: int
    expires: float | None  # clock time, None = permanent


class SkillTexts:
    """Generates and caches the three phase texts per skill (seed 003 ``DescriptionGenerator``).

    ``load`` returns a skill with its body (the catalog's ``load``); ``lookup`` returns
    metadata without the body (the catalog's ``get``) and defaults to ``load(name).meta``;
    ``resources`` lists a skill's files for the full phase. Caches: metadata permanent,
    brief ``settings.brief_ttl_seconds``, full ``settings.full_ttl_seconds``; every entry is
    dropped when the SKILL.md's mtime differs from the one it was built from.
    """

    def __init__(
        self,
        load: Loader,
        settings: Any,
        *,
        lookup: Callable[[str], SkillMeta | None] | None = None,
        resources: ResourceLister | None = None,
        clock: Clock = time.monotonic,
        count: TokenCounter = estimate_tokens,
        owner: Callable[[str], str | None] | None = None,
    ) -> None:
        self._load = load
        self._lookup = lookup
        self._owner = owner  # tool name → skill name (skills.tool_names.skill_for_tool)
        self._resources = resources
        self._settings = settings
        self._clock = clock
        self._count = count
        self._cache: dict[tuple[str, Phase], _Entry] = {}
        self.loads = (
            0  # how many times a body was read through ``load`` (for tests, stats)
        )

    def _meta(self, name: str) -> SkillMeta:
        if self._lookup is not None:
            meta = self._lookup(name)
            if meta is None:
                raise KeyError(f"unknown skill {name!r}")
            return meta
        return self._skill(name).meta

    def _skill(self, name: str) -> Skill:
        self.loads += 1
        return self._load(name)

    @staticmethod
    def _current_mtime(meta: SkillMeta) -> int:
        try:
            return meta.path.stat().st_mtime_ns
        except OSError:
            return meta.mtime_ns  # in-memory or vanished: trust what discovery saw

    def _cached(self, name: str, phase: Phase, mtime_ns: int) -> str | None:
        entry = self._cache.get((name, phase))
        if entry is None:
            return None
        if entry.mtime_ns != mtime_ns or (
            entry.expires is not None and self._clock() >= entry.expires
        ):
            del self._cache[(name, phase)]
            return None
        return entry.text

    def _store(
        self, name: str, phase: Phase, text: str, mtime_ns: int, ttl: float | None
    ) -> str:
        expires = None if ttl is None else self._clock() + ttl
        self._cache[(name, phase)] = _Entry(text, mtime_ns, expires)
        return text

    def metadata_text(self, meta: SkillMeta) -> str:
        """Phase 1 for ``meta`` (cached permanently, until the file changes)."""
        mtime = self._current_mtime(meta)
        cached = self._cached(meta.name, Phase.METADATA, mtime)
        if cached is not None:
            return cached
        # The seeds' phase-1 text: the fixed catalog size when one is set, else the seeds' budget.
        tokens = self._settings.metadata_tokens or self._settings.metadata_min_tokens
        text = metadata_text(meta, tokens, self._count)
        return self._store(meta.name, Phase.METADATA, text, mtime, None)

    def brief_text(self, skill: Skill) -> str:
        """Phase 2 for a loaded skill (cached for the brief TTL)."""
        mtime = self._current_mtime(skill.meta)
        cached = self._cached(skill.name, Phase.BRIEF, mtime)
        if cached is not None:
            return cached
        text = brief_text(skill, self._settings.brief_tokens, self._count)
        return self._store(
            skill.name, Phase.BRIEF, text, mtime, self._settings.brief_ttl_seconds
        )

    def full_text(self, skill: Skill) -> str:
        """Phase 3 for a loaded skill (cached for the full TTL)."""
        mtime = self._current_mtime(skill.meta)
        cached = self._cached(skill.name, Phase.FULL, mtime)
        if cached is not None:
            return cached
        listed = self._resources(skill.name) if self._resources is not None else ()
        tokens = getattr(self._settings, "resource_listing_tokens", LISTING_TOKENS)
        text = full_text(skill, listed, tokens, self._count)
        return self._store(
            skill.name, Phase.FULL, text, mtime, self._settings.full_ttl_seconds
        )

    def text_for(self, name: str, phase: Phase) -> str:
        """The text of ``name`` at ``phase``; reads the body only when a cache entry is
        missing, expired or stale."""
        if phase is Phase.METADATA:
            return self.metadata_text(self._meta(name))
        if self._lookup is not None:
            meta = self._meta(name)
            cached = self._cached(name, phase, self._current_mtime(meta))
            if cached is not None:
                return cached
        skill = self._skill(name)
        return self.brief_text(skill) if phase is Phase.BRIEF else self.full_text(skill)

    def phase_for(self, confidence: float | None) -> Phase:
        return phase_for(confidence, self._settings)

    def description_by_confidence(self, name: str, confidence: float) -> str:
        """Seed 003 ``getDescriptionByConfidence``: 0.10 → metadata, 0.50 → brief, 0.80 → full."""
        return self.text_for(name, self.phase_for(confidence))

    def resolve(self, tool_name: str, confidence: float | None = None) -> str:
        """Seed 003 tool-description resolution: no confidence → metadata (discovery).
        ``tool_name`` is a skill's name or its ``skill_<name>`` tool's name."""
        return self.text_for(self.skill_of(tool_name), self.phase_for(confidence))

    def skill_of(self, tool_name: str) -> str:
        """The skill a name means: itself when a skill has it, else the skill whose
        ``skill_<name>`` tool it is (``owner``, the catalog's one mapping)."""
        if self._lookup is not None and self._lookup(tool_name) is not None:
            return tool_name
        owner = self._owner(tool_name) if self._owner is not None else None
        return owner or tool_name

    def invalidate(self, name: str | None = None) -> None:
        """Drop the cached texts of one skill (or all), e.g. after a reload removed it."""
        if name is None:
            self._cache.clear()
            return
        for key in [key for key in self._cache if key[0] == name]:
            del self._cache[key]


# -- states --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Transition:
    """A skill changed state; ``reason`` says why in words a user can read."""

    name: str
    old: SkillState
    new: SkillState
    phase: Phase
    reason: str


def assign_states(
    ranking: Ranking,
    top_k: int,
    thresholds: Thresholds,
    explicit: set[str] | frozenset[str] = frozenset(),
    previous: Mapping[str, SkillState] | None = None,
) -> list[Transition]:
    """The state changes this ranking causes (skills whose state stays the same are omitted).

    Active: explicitly activated, or the top match with confidence in the full phase.
    Relevant: another match within the top ``top_k`` with at least brief confidence
    (its phase follows its confidence). Inactive: everything else (metadata only).
    Skills absent from ``previous`` count as Inactive. Order: active, relevant, inactive,
    then by name.
    """
    previous = previous or {}
    wanted: dict[str, tuple[SkillState, Phase, str]] = {}
    for name in sorted(explicit):
        wanted[name] = (SkillState.ACTIVE, Phase.FULL, "active: explicitly activated")
    top = ranking.matches[:top_k]
    for position, match in enumerate(top):
        if match.name in wanted:
            continue
        wanted[match.name] = _state_for(match, position, thresholds)
    for match in ranking.matches[top_k:]:
        if match.name not in wanted:
            wanted[match.name] = (
                SkillState.INACTIVE,
                Phase.METADATA,
                f"inactive: not in top {top_k}",
            )
    for name in previous:
        if name not in wanted:
            wanted[name] = (
                SkillState.INACTIVE,
                Phase.METADATA,
                "inactive: not matched",
            )
    transitions = [
        Transition(name, previous.get(name, SkillState.INACTIVE), state, phase, reason)
        for name, (state, phase, reason) in wanted.items()
        if previous.get(name, SkillState.INACTIVE) is not state
    ]
    order = {SkillState.ACTIVE: 0, SkillState.RELEVANT: 1, SkillState.INACTIVE: 2}
    return sorted(transitions, key=lambda item: (order[item.new], item.name))


def _state_for(
    match: Match, position: int, thresholds: Thresholds
) -> tuple[SkillState, Phase, str]:
    phase = phase_for(match.confidence, thresholds)
    c = decisive(
        match.confidence, (thresholds.brief_threshold, thresholds.full_threshold)
    )
    if match.explicit:
        return SkillState.ACTIVE, Phase.FULL, "active: explicitly activated"
    if phase is Phase.FULL and position == 0:
        return (
            SkillState.ACTIVE,
            phase,
            f"loaded full: confidence {c} ≥ {thresholds.full_threshold:g}",
        )
    if phase is Phase.FULL:
        return (
            SkillState.RELEVANT,
            phase,
            f"relevant: confidence {c} ≥ {thresholds.full_threshold:g}, not the top match",
        )
    if phase is Phase.BRIEF:
        return (
            SkillState.RELEVANT,
            phase,
            f"relevant: confidence {c} ≥ {thresholds.brief_threshold:g}",
        )
    return (
        SkillState.INACTIVE,
        phase,
        f"inactive: confidence {c} < {thresholds.brief_threshold:g}",
    )
