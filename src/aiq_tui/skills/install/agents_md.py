"""``skills sync AGENTS.md``: the ``<available_skills>`` block for agents without native skills.

openskills' format (numman-ali/openskills, ``src/utils/agents-md.ts``), so a file either tool
wrote is updated in place by the other: a ``<skills_system priority="1">`` element holding
usage notes and an ``<available_skills>`` list, one ``<skill>`` with ``<name>``,
``<description>`` and ``<location>`` each, between ``<!-- SKILLS_TABLE_START -->`` and
``<!-- SKILLS_TABLE_END -->``. The block replaces an existing ``<skills_system>`` element, else
the text between the comment markers, else it is appended; everything else in the file is kept
byte for byte, and writing the same skills again changes nothing (idempotent).

Where this differs from openskills, on purpose: names and descriptions are XML-escaped (a
description holding ``</skill>`` cannot end the block early), ``<location>`` is the SKILL.md's
path relative to the file (the agent reads it with its own file tool; openskills writes
``project``/``global`` and has the agent run ``npx openskills read``), and the usage line says so.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

START = "<!-- SKILLS_TABLE_START -->"
END = "<!-- SKILLS_TABLE_END -->"
_ELEMENT = re.compile(r"<skills_system[^>]*>.*?</skills_system>", re.DOTALL)
_BETWEEN = re.compile(re.escape(START) + r".*?" + re.escape(END), re.DOTALL)
_LISTED = re.compile(r"<skill>\s*<name>([^<]+)</name>", re.DOTALL)


@dataclass(frozen=True)
class ListedSkill:
    name: str
    description: str
    skill_md: Path


def block(skills: Sequence[ListedSkill], relative_to: Path) -> str:
    """The whole ``<skills_system>`` element for ``skills`` (sorted by name)."""
    entries = "\n\n".join(
        "<skill>\n"
        f"<name>{escape(skill.name)}</name>\n"
        f"<description>{escape(' '.join(skill.description.split()))}</description>\n"
        f"<location>{escape(_relative(skill.skill_md, relative_to))}</location>\n"
        "</skill>"
        for skill in sorted(skills, key=lambda s: s.name)
    )
    return (
        '<skills_system priority="1">\n\n'
        "## Available Skills\n\n"
        f"{START}\n"
        "<usage>\n"
        "When users ask you to perform tasks, check if any of the available skills below can help "
        "complete the task more effectively. Skills provide specialized capabilities and domain "
        "knowledge.\n\n"
        "How to use skills:\n"
        "- Read the skill's SKILL.md at its <location> (a path relative to this file) and follow it\n"
        "- Its folder holds the resources it names (references/, scripts/, assets/)\n\n"
        "Usage notes:\n"
        "- Only use skills listed in <available_skills> below\n"
        "- Do not load a skill that is already loaded in your context\n"
        "</usage>\n\n"
        "<available_skills>\n\n"
        f"{entries}\n\n"
        "</available_skills>\n"
        f"{END}\n\n"
        "</skills_system>"
    )


def replace_block(text: str, new_block: str) -> str:
    """``text`` with its skills block replaced by ``new_block`` (or ``new_block`` appended)."""
    if _ELEMENT.search(text):
        return _ELEMENT.sub(lambda _m: new_block, text, count=1)
    if _BETWEEN.search(text):
        inner = new_block.split(START, 1)[1].split(END, 1)[0]
        return _BETWEEN.sub(lambda _m: START + inner + END, text, count=1)
    head = text.rstrip()
    return (head + "\n\n" if head else "") + new_block + "\n"


def listed_names(text: str) -> list[str]:
    """The skill names a file's block lists now."""
    return [name.strip() for name in _LISTED.findall(text)]


def _relative(path: Path, base: Path) -> str:
    try:
        return os.path.relpath(path, base).replace(os.sep, "/")
    except ValueError:
        return str(path)
