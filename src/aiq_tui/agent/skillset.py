"""Which skills are in the prompt, at which phase, and why: the engine's skill state.

:class:`LoadedSkills` turns a ranking into state changes (via
:func:`~aiq_tui.ranking.disclose.assign_states`), loads the phase texts through the cached
:class:`~aiq_tui.ranking.disclose.SkillTexts`, and answers what the prompt builder, the
compression planner and the skills pane need. Every change comes back as a
:class:`~aiq_tui.events.SkillStateChanged` for the engine to emit; nothing here emits,
does network I/O or knows about a UI.

Two rules go beyond the per-query ranking of seed 000, because an agent mid-task must not
lose its instructions:

* a skill activated explicitly (``/skill``, ``use_skill``) stays Active until it is evicted
  by compression, removed from disk, or the conversation is cleared;
* the Active skill of the previous turn stays Active on a follow-up that matches nothing
  better; it is unloaded only when another skill becomes Active by match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from aiq_tui.agent.sessions import SkillStatus
from aiq_tui.config import AppConfig
from aiq_tui.context.compress import SkillCost, priority_order
from aiq_tui.context.prompt import LoadedSkill, skill_section
from aiq_tui.context.tokens import TokenCounter
from aiq_tui.events import SkillStateChanged
from aiq_tui.ranking.disclose import SkillTexts, Transition, assign_states, phase_for
from aiq_tui.skills.invocation import (
    argument_names,
    model_invocable,
    substitute_arguments,
)
from aiq_tui.skills.model import Match, Phase, Ranking, SkillMeta, SkillState
from aiq_tui.skills.skill_view import SkillView, dormant_view, listed_view

KEPT_ACTIVE = "active: kept from the previous turn (nothing matched better)"


@dataclass(frozen=True)
class _Slot:
    """A skill that is in the prompt (Active or Relevant) with the text it costs."""

    skill: LoadedSkill
    tokens: int
    reason: str


class LoadedSkills:
    """The loaded skills of one conversation plus the last match figures of every skill."""

    def __init__(
        self,
        catalog,
        config: AppConfig,
        counter: TokenCounter,
        catalog_line: Callable[[str, str], str],
        granted: Callable[[SkillMeta], tuple[str, ...] | None] | None = None,
        line_cap: Callable[[], int | None] = lambda: None,
        window: Callable[[], int | None] = lambda: None,
    ) -> None:
        self.catalog = catalog
        # What a skill's allowed-tools may pre-approve (skills.imported.granted_tools: nothing of
        # an imported skill the user has not confirmed, never a bare `*`); default: all of them.
        self._granted = granted or (lambda meta: meta.allowed_tools)
        self.config = config
        self.counter = counter
        self._catalog_line = (
            catalog_line  # the prompt builder's: a skill costs what it is sent as
        )
        # How long the builder's lines are now: a catalog or window change moves it, and every count.
        self._line_cap = line_cap
        # The window in tokens now (None: unknown): one skill takes at most context.skill_share.
        self._window = window
        from aiq_tui.skills.tool_names import skill_for_tool

        self.texts = SkillTexts(
            catalog.load,
            config.disclosure,
            lookup=catalog.get,
            resources=catalog.resources,
            count=counter.count,
            owner=lambda tool: skill_for_tool(catalog, tool),
        )
        self._slots: dict[str, _Slot] = {}
        self.explicit: set[str] = set()
        self.invoked: set[str] = (
            set()
        )  # a tool of the skill was called (its script, its template)
        self._matches: dict[str, Match] = {}
        self._reasons: dict[str, str] = {}  # last reason of skills now Inactive
        self._catalog_tokens: dict[tuple[str, str], int] = {}
        self._catalog_encoding = (
            counter.encoding
        )  # the counts above are in this encoding
        self._catalog_cap: int | None = None  # … and for lines cut at this length
        self._turn = 0  # questions ranked so far: the clock of ``_referenced``
        self._referenced: dict[
            str, int
        ] = {}  # name → the question that last referenced it
        self._loaded_at: dict[str, int] = {}  # name → load order, while it is loaded
        self._loads = 0
        # What the user typed after /NAME (Claude Code's $ARGUMENTS), while the skill is loaded.
        self._arguments: dict[str, str] = {}

    # -- queries ----------------------------------------------------------------------------
    def __contains__(self, name: object) -> bool:
        return name in self._slots

    def loaded(self) -> list[LoadedSkill]:
        """The skills in the prompt, in priority order (:func:`~aiq_tui.context.compress.priority_order`,
        the order the compression planner keeps them in): Active, then Relevant; within a state
        by this question's confidence, then the most recent reference, then load order."""
        return [self._slots[cost.name].skill for cost in priority_order(self.costs())]

    def confidence(self, name: str) -> float:
        """``name``'s confidence for the current question (0 when it did not match)."""
        match = self._matches.get(name)
        return match.confidence if match else 0.0

    def names(self) -> list[str]:
        return list(self._slots)

    def state_of(self, name: str) -> SkillState:
        slot = self._slots.get(name)
        return slot.skill.state if slot else SkillState.INACTIVE

    def active_allowed_tools(self) -> tuple[str, ...] | None:
        """What the Active skills allow (their ``allowed-tools`` together), or None when no
        Active skill restricts tools: what ``restrict`` limits calls to and which MCP tools are
        offered first. What may *pre-approve* a call is :meth:`preapproving_tools`."""
        allowed: list[str] = []
        restricted = False
        for slot in self._slots.values():
            if slot.skill.state is not SkillState.ACTIVE:
                continue
            meta = self.catalog.get(slot.skill.name)
            tools = meta.allowed_tools if meta is not None else None
            if tools is not None:
                restricted = True
                allowed.extend(tool for tool in tools if tool not in allowed)
        return tuple(allowed) if restricted else None

    def preapproving_tools(self) -> tuple[str, ...] | None:
        """What may pre-approve a call: the ``allowed-tools`` of trusted skills *in use* — made
        Active by ``/skill`` or ``use_skill``, or whose own tool was called — as Claude Code applies
        them once a skill is invoked. A keyword match alone (even ≥ the full threshold) invokes
        nothing. An imported skill's entries count once the user confirmed them, and a bare ``*``
        never does (:func:`~aiq_tui.skills.imported.granted_tools`)."""
        allowed: list[str] = []
        restricted = False
        for name, slot in self._slots.items():
            in_use = (
                name in self.explicit and slot.skill.state is SkillState.ACTIVE
            ) or name in self.invoked
            meta = self.catalog.get(name) if in_use else None
            if meta is None or not meta.trusted_source:
                continue
            tools = self._granted(meta)
            if tools is not None:
                restricted = True
                allowed.extend(tool for tool in tools if tool not in allowed)
        return tuple(allowed) if restricted else None

    def statuses(self) -> dict[str, SkillStatus]:
        """What a session stores: each loaded skill's state, phase and reason."""
        return {
            name: SkillStatus(slot.skill.state, slot.skill.phase, slot.reason)
            for name, slot in self._slots.items()
        }

    def costs(self) -> tuple[SkillCost, ...]:
        """For the compression planner (and the prompt's order): each loaded skill's state,
        tokens, confidence for the current question, last reference and load order."""
        return tuple(
            SkillCost(
                name,
                slot.skill.state,
                slot.tokens,
                self.confidence(name),
                self._referenced.get(name, 0),
                self._loaded_at.get(name, 0),
            )
            for name, slot in self._slots.items()
        )

    def catalog_entries(self, ranking: Ranking | None = None) -> list[tuple[str, str]]:
        """``(name, description)`` of every skill, best-ranked first (by ``ranking``, else the
        last query's), then by name."""
        matches = (
            self._matches
            if ranking is None
            else {match.name: match for match in ranking.matches}
        )
        ranked = [
            name
            for name, _ in sorted(
                matches.items(), key=lambda item: (-item[1].score, item[0])
            )
        ]
        entries = []
        seen = set()
        for name in ranked:
            meta = self.catalog.get(name)
            if meta is not None and (not meta.extras or model_invocable(meta.extras)):
                entries.append((name, meta.description))
            seen.add(name)
        # disable-model-invocation: the model never sees the skill (only the user runs it).
        entries.extend(
            (meta.name, meta.description)
            for meta in self.catalog
            if meta.name not in seen
            and (not meta.extras or model_invocable(meta.extras))
        )
        return entries

    def manual_only(self) -> list[str]:
        """Skills only the user runs (``disable-model-invocation``): never in the catalog the
        model sees, never loaded by a match; ``/skill NAME`` and ``/NAME`` still run them."""
        return [
            meta.name
            for meta in self.catalog
            if meta.extras and not model_invocable(meta.extras)
        ]

    def recount(self) -> None:
        """Count the loaded skills' texts again: the counter's encoding changed (a deferred
        tokenizer loaded, or a switch to a model that counts in another one)."""
        for name, slot in list(self._slots.items()):
            tokens = self.counter.count(skill_section(slot.skill))
            if (
                self._slots.get(name) is slot
            ):  # (a turn on another thread may have moved it on)
                self._slots[name] = _Slot(slot.skill, tokens, slot.reason)

    def views(self) -> list[SkillView]:
        """Every skill as the skills pane shows it (catalog order)."""
        views = []
        for meta in self.catalog:
            slot = self._slots.get(meta.name)
            match = self._matches.get(meta.name)
            score = match.score if match else None
            confidence = match.confidence if match else None
            if slot is not None:
                views.append(
                    SkillView(
                        meta.name,
                        meta.description,
                        slot.skill.state,
                        slot.skill.phase,
                        slot.tokens,
                        score,
                        confidence,
                        slot.reason,
                    )
                )
            else:
                views.append(
                    listed_view(
                        meta,
                        self.catalog_tokens(meta.name, meta.description),
                        score,
                        confidence,
                        self._reasons.get(meta.name, ""),
                    )
                )
        dormant = getattr(self.catalog, "dormant", None)
        views.extend(
            dormant_view(meta) for meta in (dormant() if dormant is not None else ())
        )
        return views

    def catalog_tokens(self, name: str, description: str) -> int:
        """What the skill's catalog line costs (cached: the pane asks for thousands)."""
        cap = self._line_cap()
        if self._catalog_encoding != self.counter.encoding or cap != self._catalog_cap:
            self._catalog_tokens = {}  # a deferred tokenizer has loaded, or the lines' length moved
            self._catalog_encoding, self._catalog_cap = self.counter.encoding, cap
        key = (name, description)
        tokens = self._catalog_tokens.get(key)
        if tokens is None:
            tokens = self.counter.count(self._catalog_line(name, description))
            self._catalog_tokens[key] = tokens
        return tokens

    # -- changes ------------------------------------------------------------------------------
    def apply_ranking(self, ranking: Ranking) -> list[SkillStateChanged]:
        """Load, upgrade and unload skills for a new query's ranking. A skill only the user runs
        (``disable-model-invocation``) is never loaded by a match, however well it scores."""
        manual = set(self.manual_only()) - self.explicit
        if manual:
            ranking = Ranking(
                query=ranking.query,
                terms=ranking.terms,
                matches=tuple(m for m in ranking.matches if m.name not in manual),
                considered=ranking.considered,
            )
        self._matches = {match.name: match for match in ranking.matches}
        disclosure = self.config.disclosure
        top_k = self.config.matching.top_k
        self._turn += 1
        for match in ranking.top(
            top_k
        ):  # referenced by this question (seed 000's "recent queries")
            if phase_for(match.confidence, disclosure) is not Phase.METADATA:
                self._referenced[match.name] = self._turn
        previous = {name: slot.skill.state for name, slot in self._slots.items()}
        transitions = assign_states(
            ranking,
            top_k,
            disclosure,
            explicit=frozenset(self.explicit),
            previous=previous,
        )
        new_active = any(
            t.new is SkillState.ACTIVE and t.name not in self.explicit
            for t in transitions
        )
        changes: list[SkillStateChanged] = []
        for transition in transitions:
            if self._keeps_active(transition, new_active, previous):
                continue
            changes.extend(self._apply(transition))
        # Same state, different confidence: follow it to the phase it now earns.
        for match in ranking.top(top_k):
            slot = self._slots.get(match.name)
            if (
                slot is None
                or match.name in self.explicit
                or slot.reason == KEPT_ACTIVE
            ):
                continue
            phase = phase_for(match.confidence, disclosure)
            if phase is not slot.skill.phase and phase is not Phase.METADATA:
                reason = f"{slot.skill.state.value}: now {phase.label}, confidence {match.confidence:.2f}"
                changes.extend(self._load(match.name, slot.skill.state, phase, reason))
        return changes

    def _keeps_active(
        self,
        transition: Transition,
        new_active: bool,
        previous: Mapping[str, SkillState],
    ) -> bool:
        """The previous Active skill stays Active (full) unless another skill won by match."""
        keep = (
            previous.get(transition.name) is SkillState.ACTIVE
            and transition.new is not SkillState.ACTIVE
            and not new_active
        )
        if keep:
            slot = self._slots[transition.name]
            self._slots[transition.name] = _Slot(slot.skill, slot.tokens, KEPT_ACTIVE)
        return keep

    def _apply(self, transition: Transition) -> list[SkillStateChanged]:
        if transition.new is SkillState.INACTIVE:
            return self._unload(transition.name, transition.reason, SkillState.INACTIVE)
        return self._load(
            transition.name, transition.new, transition.phase, transition.reason
        )

    def activate(
        self,
        name: str,
        reason: str = "active: explicitly activated",
        arguments: str | None = None,
    ) -> list[SkillStateChanged]:
        """Make ``name`` Active at the full phase regardless of score (``/skill``, ``use_skill``).
        ``arguments`` (the user's ``/NAME ARGS``) fill its ``$ARGUMENTS`` / ``$N`` / ``$name``
        placeholders while it stays loaded, as Claude Code renders a skill."""
        rerender = arguments is not None and self._arguments.get(name) != arguments
        if arguments is not None:
            self._arguments[name] = arguments
        self.explicit.add(name)
        self._referenced[name] = self._turn
        slot = self._slots.get(name)
        if (
            slot is not None
            and slot.skill.state is SkillState.ACTIVE
            and slot.skill.phase is Phase.FULL
            and not rerender
        ):
            self._slots[name] = _Slot(slot.skill, slot.tokens, reason)
            return []
        return self._load(name, SkillState.ACTIVE, Phase.FULL, reason)

    def before_tool_call(self, name: str, tool: str) -> list[SkillStateChanged]:
        """Seed 003, phase 3: the tool of skill ``name`` is about to be executed, so its full
        description is loaded first — a skill shown as a brief moves to the full phase in its
        state; one not in the prompt at all (its tool was not offered, the model called it
        anyway) comes in as Relevant at full. No change when it is full already."""
        self.invoked.add(
            name
        )  # calling a skill's tool invokes it: its allowed-tools apply from now
        slot = self._slots.get(name)
        if slot is not None and slot.skill.phase is Phase.FULL:
            return []
        state = slot.skill.state if slot is not None else SkillState.RELEVANT
        return self._load(
            name, state, Phase.FULL, f"{state.value}: full before its tool {tool} runs"
        )

    def evict(self, name: str, reason: str) -> list[SkillStateChanged]:
        """Compression dropped ``name`` from the prompt (``new=None`` in the event)."""
        self.explicit.discard(name)
        self.invoked.discard(name)
        return self._unload(name, reason, None)

    def clear(self) -> list[SkillStateChanged]:
        self.explicit.clear()
        self.invoked.clear()
        self._matches = {}
        self._referenced = {}
        return [
            change
            for name in list(self._slots)
            for change in self._unload(
                name, "inactive: new conversation", SkillState.INACTIVE
            )
        ]

    def forget(
        self, names: Iterable[str], reason: str = "removed: its SKILL.md is gone"
    ) -> list[SkillStateChanged]:
        """Skills removed from disk (or disabled): unload them and drop their figures."""
        changes = []
        for name in names:
            self.explicit.discard(name)
            self.invoked.discard(name)
            self._matches.pop(name, None)
            self._reasons.pop(name, None)
            self.texts.invalidate(name)
            changes.extend(self._unload(name, reason, None))
        return changes

    def refresh(self, names: Iterable[str]) -> list[SkillStateChanged]:
        """Skills whose files changed: reload the loaded ones at their phase."""
        changes = []
        for name in names:
            self.texts.invalidate(name)
            slot = self._slots.get(name)
            if slot is not None:
                changes.extend(
                    self._load(
                        name,
                        slot.skill.state,
                        slot.skill.phase,
                        "reloaded: its SKILL.md changed",
                    )
                )
        return changes

    def restore(
        self, states: Mapping[str, SkillStatus], explicit: Iterable[str]
    ) -> list[SkillStateChanged]:
        """Put back the loaded skills of a resumed session (unknown names are skipped)."""
        changes = self.clear()
        self.explicit = {name for name in explicit if name in self.catalog}
        for name, status in states.items():
            if status.state is SkillState.INACTIVE or name not in self.catalog:
                continue
            changes.extend(
                self._load(
                    name,
                    status.state,
                    status.phase,
                    status.reason or "restored with the session",
                )
            )
        return changes

    # -- internals ---------------------------------------------------------------------------
    def _load(
        self, name: str, state: SkillState, phase: Phase, reason: str
    ) -> list[SkillStateChanged]:
        meta = self.catalog.get(name)
        if meta is None:
            return []
        old = self.state_of(name)
        try:
            content = self.texts.text_for(name, phase)
            if name in self._arguments:
                content = substitute_arguments(
                    content, self._arguments[name], argument_names(meta.extras)
                )
        except Exception as exc:
            self._reasons[name] = f"cannot load: {exc}"
            return [
                SkillStateChanged(
                    name,
                    old,
                    SkillState.INACTIVE,
                    Phase.METADATA,
                    f"cannot load: {exc}",
                )
            ]
        skill = LoadedSkill(name, meta.description, content, state, phase)
        tokens = self.counter.count(skill_section(skill))
        share = self._share()
        if share is not None and tokens > share:
            skill, tokens = self._within_share(skill, tokens, share)
        if name not in self._slots:
            self._loads += 1
            self._loaded_at[name] = self._loads
        self._slots[name] = _Slot(skill, tokens, reason)
        self._reasons.pop(name, None)
        return [SkillStateChanged(name, old, state, phase, reason, tokens)]

    def _share(self) -> int | None:
        """The most tokens one skill's section may take now (``context.skill_share`` of the
        window), None while the window is unknown."""
        window = self._window()
        if not window:
            return None
        return max(1, int(window * self.config.context.skill_share))

    def _within_share(
        self, skill: LoadedSkill, tokens: int, share: int
    ) -> tuple[LoadedSkill, int]:
        """``skill`` with its content cut to fit ``share`` tokens, ending in a note that says
        how much was left out and how to read it (its resources one by one)."""
        note = (
            f"\n\n[cut: this skill's text is {tokens:,} tokens, over its share of the window "
            f"({self.config.context.skill_share:.0%} = {share:,} tokens, context.skill_share); "
            "read its files one at a time with read_skill_resource]"
        )
        room = self._room(skill, share, note)
        if room < 0:  # the description alone is over: it is cut too
            skill = replace(
                skill, description=self.counter.truncate(skill.description, share // 2)
            )
            room = self._room(skill, share, note)
        content = self.counter.truncate(skill.content, max(0, room)).rstrip() + note
        cut = replace(skill, content=content)
        return cut, self.counter.count(skill_section(cut))

    def _room(self, skill: LoadedSkill, share: int, note: str) -> int:
        head = skill_section(replace(skill, content=""))
        return share - self.counter.count(head) - self.counter.count(note) - 2

    def _unload(
        self, name: str, reason: str, new: SkillState | None
    ) -> list[SkillStateChanged]:
        self.invoked.discard(name)  # out of the prompt: no longer in use
        self._arguments.pop(name, None)
        slot = self._slots.pop(name, None)
        self._loaded_at.pop(name, None)
        self._reasons[name] = reason
        if slot is None:
            return []
        meta = self.catalog.get(name)
        tokens = self.catalog_tokens(name, meta.description) if meta is not None else 0
        return [
            SkillStateChanged(
                name, slot.skill.state, new, Phase.METADATA, reason, tokens
            )
        ]
