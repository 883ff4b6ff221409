"""The prompt builder: system prompt sections, history and tools, with an exact breakdown.

The system prompt is, in order (seed 000, seed 004, Agent Skills client guidance):

1. base instructions;
2. the skills catalog — one line per skill (name + description) in the caller's rank order,
   each description as long as :func:`~aiq_tui.context.catalog_line.fit_catalog` allows for the
   whole catalog and the window (whole while the catalog keeps to
   ``disclosure.descriptions_share``), bounded by ``context.catalog_share`` of the window; what
   does not fit is named by count ("(+12 more skills not listed; use use_skill with a name)"). When a
   prompt would not fit the window otherwise, compression shortens it for the turn
   (:class:`CatalogLevel`: shorter descriptions, then names only, then only the Active
   skills) — never dropping an Active skill;
3. loaded skills, each exactly ``## Skill: <name>\\n<description>\\n\\n<content>``, Active
   first, then Relevant, then Inactive (input order within a state);
4. instructions for the ``use_skill`` tool.

With no skills at all (empty catalog and nothing loaded) sections 2–4 are left out entirely.

Exactness: every section ends with a blank line and starts with a non-space character, so
tiktoken's pre-tokeniser never merges across a boundary and the tokens of the whole system
prompt equal the sum of its sections' tokens (tested). The breakdown therefore adds up to
exactly what :class:`~aiq_tui.context.tokens.TokenCounter` counts for the request:

* ``system`` — base instructions + use_skill instructions + the system message framing and
  reply primer + **all tool specs** (tools are sent with every request, so they are fixed cost);
* ``catalog`` — the catalog section; ``skills[name]`` — each loaded skill's section;
* ``history`` — every non-TOOL message (user, assistant incl. tool calls, summaries);
* ``tool_results`` — TOOL messages; ``reserve`` — tokens kept for the answer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aiq_tui.config import ContextSettings, DisclosureSettings
from aiq_tui.context.catalog_line import (
    CATALOG_HEADER,
    NAMES_HEADER,
    CatalogFit,
    CatalogLevel,
    LineCut,
    catalog_line,
    fit_catalog,
    line_cuts,
)
from aiq_tui.context.model import Breakdown, CatalogOption
from aiq_tui.context.tokens import MESSAGE_OVERHEAD, REPLY_PRIMER, TokenCounter
from aiq_tui.skills.model import Phase, SkillState
from aiq_tui.skills.validate import DESCRIPTION_MAX

if (
    TYPE_CHECKING
):  # the skills pane lists catalog lines before the engine (and the conversation) load
    from aiq_tui.conversation import Message, ToolSpec

DEFAULT_BASE_INSTRUCTIONS = (
    "You are aiq, a careful assistant working in the user's terminal. Answer concisely and "
    "accurately. Use the tools you are given when they help, explain what you are about to "
    "change before you change it, and say so plainly when you do not know."
)


USE_SKILL_INSTRUCTIONS = (
    "# Using skills\n"
    "When a task matches a listed skill whose instructions are not already in this prompt "
    "as `## Skill: <name>`, call the `use_skill` tool with the skill's exact "
    "name to load its full instructions and the list of its resource files, then follow them. "
    "Do not guess a skill's instructions from its description."
)

STATE_ORDER = {SkillState.ACTIVE: 0, SkillState.RELEVANT: 1, SkillState.INACTIVE: 2}


@dataclass(frozen=True)
class LoadedSkill:
    """A skill whose brief or full text is in the prompt."""

    name: str
    description: str
    content: str
    state: SkillState = SkillState.RELEVANT
    phase: Phase = Phase.FULL


@dataclass(frozen=True)
class PromptInputs:
    base_instructions: str = DEFAULT_BASE_INSTRUCTIONS
    catalog: Sequence[tuple[str, str]] = ()  # (name, description), best-ranked first
    loaded: Sequence[LoadedSkill] = ()
    history: Sequence[Message] = ()
    tools: Sequence[ToolSpec] = ()
    window: int = 8192
    reserve: int = 1024
    window_source: str = ""  # where the window came from, shown with the budget
    catalog_level: CatalogLevel = (
        CatalogLevel.FULL
    )  # shortened by compression for one turn


@dataclass(frozen=True)
class Prompt:
    system: str
    messages: list[Message]
    tools: list[ToolSpec]
    breakdown: Breakdown
    catalog_listed: int = 0
    catalog_omitted: int = 0
    skills_order: tuple[str, ...] = field(default_factory=tuple)
    catalog_fit: CatalogFit | None = (
        None  # how long its catalog lines' descriptions may be, and why
    )
    catalog_entries: tuple[
        tuple[str, str], ...
    ] = ()  # (name, description) of the lines listed, in order
    catalog_level: CatalogLevel = CatalogLevel.FULL

    @property
    def sent_tokens(self) -> int:
        """Tokens of the request itself (the breakdown total minus the output reserve)."""
        return self.breakdown.total - self.breakdown.reserve


def section(text: str) -> str:
    """A system-prompt section: trimmed, ending in a blank line (keeps counts additive)."""
    return text.strip() + "\n\n"


def skill_section(skill: LoadedSkill) -> str:
    """``## Skill: <name>\\n<description>\\n\\n<content>`` as a section (seed 000 format)."""
    return section(
        f"## Skill: {skill.name}\n{skill.description.strip()}\n\n{skill.content.strip()}"
    )


def order_skills(skills: Sequence[LoadedSkill]) -> list[LoadedSkill]:
    """Active first, then Relevant, then Inactive; stable within a state (caller's rank)."""
    return sorted(skills, key=lambda skill: STATE_ORDER[skill.state])


def catalog_cuts(prompt: Prompt, count: Callable[[str], int]) -> tuple[LineCut, ...]:
    """The lines of ``prompt``'s catalog whose description is shortened, from what to what
    (counted with ``count``, the builder's counter); why is ``prompt.catalog_fit.why()``."""
    if prompt.catalog_fit is None:
        return ()
    return line_cuts(
        prompt.catalog_entries, prompt.catalog_fit, count, prompt.catalog_level
    )


def omitted_note(count: int) -> str:
    return f"(+{count} more skills not listed; use use_skill with a name)\n"


FITS_KEPT = 4  # catalog fits remembered (by window, encoding and catalog): a turn asks for one several times


class PromptBuilder:
    """Builds a :class:`Prompt` from :class:`PromptInputs`; holds the counter, the settings and
    the catalog fit it last wrote with (:attr:`fit`)."""

    def __init__(
        self,
        counter: TokenCounter,
        settings: ContextSettings | None = None,
        disclosure: DisclosureSettings | None = None,
    ) -> None:
        self.counter = counter
        self.settings = settings or ContextSettings()
        self.disclosure = disclosure or DisclosureSettings()
        self._fits: dict[tuple[object, ...], CatalogFit] = {}
        self._fits_lock = threading.Lock()
        # The fit of the catalog last written: the skills pane prices each line with it.
        self.fit: CatalogFit | None = None

    # -- catalog --------------------------------------------------------------------------

    def fit_catalog(
        self, entries: Sequence[tuple[str, str]], window: int
    ) -> CatalogFit:
        """How long ``entries``' descriptions may be in a ``window``-token prompt
        (:func:`~aiq_tui.context.catalog_line.fit_catalog`; the same for any order of them)."""
        # The settings are in the key: the TUI's settings screen changes them in place.
        key = (
            window,
            self.counter.encoding,
            self.settings.catalog_share,
            self.disclosure.descriptions_share,
            self.disclosure.metadata_min_tokens,
            self.disclosure.metadata_tokens,
            frozenset(entries),
        )
        with self._fits_lock:  # the doctor's thread may ask while a turn builds
            fit = self._fits.get(key)
        if fit is None:
            fit = fit_catalog(
                entries,
                window,
                self.disclosure,
                self.settings.catalog_share,
                self.counter.count,
            )
            with self._fits_lock:
                if len(self._fits) >= FITS_KEPT:
                    self._fits.pop(next(iter(self._fits)))
                self._fits[key] = fit
        return fit

    @property
    def line_cap(self) -> int | None:
        """The description length :meth:`catalog_line` cuts at now (None before any catalog)."""
        return self.fit.cap_chars if self.fit is not None else None

    def catalog_line(
        self,
        name: str,
        description: str,
        level: CatalogLevel = CatalogLevel.FULL,
        fit: CatalogFit | None = None,
    ) -> str:
        """One skill's line in the catalog (what its metadata costs in the prompt), as ``fit``
        shapes it (default: the catalog last written; whole before any)."""
        fit = fit or self.fit
        return catalog_line(
            name,
            description,
            fit.cap_chars if fit is not None else DESCRIPTION_MAX,
            level,
        )

    def catalog_section(
        self,
        entries: Sequence[tuple[str, str]],
        window: int,
        level: CatalogLevel = CatalogLevel.FULL,
        active: Sequence[str] = (),
    ) -> tuple[str, int, int]:
        """``(text, listed, omitted)`` — best-ranked entries within the catalog share, each
        line as :meth:`fit_catalog` allows; at :attr:`CatalogLevel.ACTIVE` only the ``active``
        skills are listed."""
        if not entries:
            return "", 0, 0
        fit = self.fit = self.fit_catalog(entries, window)
        limit = int(window * self.settings.catalog_share)
        count = self.counter.count
        header = CATALOG_HEADER if level < CatalogLevel.NAMES else NAMES_HEADER
        listed_entries = (
            entries
            if level is not CatalogLevel.ACTIVE
            else [e for e in entries if e[0] in active]
        )
        used = count(header)
        lines: list[str] = []
        for index, (name, description) in enumerate(listed_entries):
            line = self.catalog_line(name, description, level, fit)
            remaining = len(entries) - index - 1
            # Keep room for the "+N more" note that would follow if the rest is left out.
            note = count(omitted_note(remaining)) if remaining else 0
            if used + count(line) + note > limit:
                break
            lines.append(line)
            used += count(line)
        while True:
            omitted = len(entries) - len(lines)
            text = section(
                header + "".join(lines) + (omitted_note(omitted) if omitted else "")
            )
            # Per-line sums can differ from the joined text by a token at the end; the
            # joined text is what is sent, so it is what must fit.
            if count(text) <= limit:
                return text, len(lines), omitted
            if not lines:
                return "", 0, omitted  # not even the header fits: say nothing
            lines.pop()

    def catalog_options(self, inputs: PromptInputs) -> tuple[CatalogOption, ...]:
        """The shorter catalogs compression may choose for ``inputs`` (mildest first), each
        with what it would cost; only those smaller than the catalog sent now."""
        if not inputs.catalog:
            return ()
        active = self._active_names(inputs)
        current, _, _ = self.catalog_section(
            inputs.catalog, inputs.window, inputs.catalog_level, active
        )
        tokens = self.counter.count(current)
        options = []
        for level in CatalogLevel:
            if level <= inputs.catalog_level:
                continue
            text, _, _ = self.catalog_section(
                inputs.catalog, inputs.window, level, active
            )
            cost = self.counter.count(text)
            if cost < tokens:
                options.append(CatalogOption(int(level), level.label, cost))
                tokens = cost
        return tuple(options)

    def _listed(self, inputs: PromptInputs, listed: int) -> tuple[tuple[str, str], ...]:
        """The entries of the ``listed`` lines :meth:`catalog_section` wrote for ``inputs``."""
        if inputs.catalog_level is not CatalogLevel.ACTIVE:
            return tuple(inputs.catalog[:listed])
        active = self._active_names(inputs)
        return tuple(entry for entry in inputs.catalog if entry[0] in active)[:listed]

    @staticmethod
    def _active_names(inputs: PromptInputs) -> tuple[str, ...]:
        return tuple(
            skill.name for skill in inputs.loaded if skill.state is SkillState.ACTIVE
        )

    # -- build ----------------------------------------------------------------------------

    def build(self, inputs: PromptInputs) -> Prompt:
        count = self.counter.count
        has_skills = bool(inputs.catalog) or bool(inputs.loaded)
        base = (
            section(inputs.base_instructions)
            if inputs.base_instructions.strip()
            else ""
        )
        catalog, listed, omitted = (
            self.catalog_section(
                inputs.catalog,
                inputs.window,
                inputs.catalog_level,
                self._active_names(inputs),
            )
            if has_skills
            else ("", 0, 0)
        )
        ordered = order_skills(inputs.loaded)
        skill_texts = [(skill.name, skill_section(skill)) for skill in ordered]
        instructions = section(USE_SKILL_INSTRUCTIONS) if has_skills else ""

        system = (
            base + catalog + "".join(text for _, text in skill_texts) + instructions
        )
        skills: dict[str, int] = {}
        for name, text in skill_texts:
            skills[name] = skills.get(name, 0) + count(text)

        from aiq_tui.conversation import (
            Role,
        )  # imported with the engine; the catalog lines need none

        history = tool_results = 0
        for message in inputs.history:
            tokens = self.counter.count_message(message)
            if message.role is Role.TOOL:
                tool_results += tokens
            else:
                history += tokens

        fixed = MESSAGE_OVERHEAD + REPLY_PRIMER + self.counter.count_tools(inputs.tools)
        breakdown = Breakdown(
            system=count(base) + count(instructions) + fixed,
            catalog=count(catalog),
            skills=skills,
            history=history,
            tool_results=tool_results,
            reserve=inputs.reserve,
            window=inputs.window,
            exact=self.counter.exact,
            encoding=self.counter.encoding,
            window_source=inputs.window_source,
        )
        return Prompt(
            system=system,
            messages=list(inputs.history),
            tools=list(inputs.tools),
            breakdown=breakdown,
            catalog_listed=listed,
            catalog_omitted=omitted,
            skills_order=tuple(skill.name for skill in ordered),
            catalog_fit=self.fit if catalog else None,
            catalog_entries=self._listed(inputs, listed),
            catalog_level=inputs.catalog_level,
        )
