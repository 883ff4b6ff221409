"""``allowed-tools`` wider than the text needs: an unscoped shell (every client that reads
allowed-tools as pre-approval runs any command without asking), and tools the instructions
never call for. One finding per grant entry: an open shell the body does not even need is
one warning that says so, not a warning and a note."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from aiq_tui.doctor.safety.files import FileKind, ScannedFile
from aiq_tui.doctor.safety.rules import OPEN_SHELL_GRANT, UNNEEDED_TOOL_GRANT, Hit
from aiq_tui.skills.model import SkillMeta

# Shell tools of clients that read ``allowed-tools`` as pre-approval (Claude Code, and aiq-tui
# under the default agent.skill_allowed_tools: preapprove). ``Bash(git:*)`` is scoped; bare
# ``Bash`` is not.
SHELL_TOOLS = ("bash", "shell", "sh", "zsh", "terminal", "powershell")
_SHELL_LANGUAGES = {
    "bash",
    "sh",
    "shell",
    "console",
    "zsh",
    "terminal",
    "powershell",
    "ps1",
    "ps",
    "cmd",
    "fish",
    "shell-session",
}
_COMMAND_LINE = re.compile(
    r"^\s*(?:\$|>|#)\s+\w|\b(?:run|execute|invoke)\s+`", re.MULTILINE | re.IGNORECASE
)
_WRITES = re.compile(
    r"\b(?:writ(?:e|es|ing)|sav(?:e|es|ing)|creat(?:e|es|ing)|edit(?:s|ing)?|modif(?:y|ies|ying)|updat(?:e|es|ing)|"
    r"generat(?:e|es|ing)|append|overwrite|output|export|rename|delete|patch|refactor|fix|implement|add)\b",
    re.IGNORECASE,
)
_WEB = re.compile(
    r"https?://|\b(?:web|online|internet|url|website|browse|search|fetch|download|docs?)\b",
    re.IGNORECASE,
)
_USES = {
    "write": _WRITES,
    "edit": _WRITES,
    "multiedit": _WRITES,
    "notebookedit": _WRITES,
    "webfetch": _WEB,
    "websearch": _WEB,
}


def tool_grants(meta: SkillMeta, files: Sequence[ScannedFile]) -> Iterator[Hit]:
    tools = meta.allowed_tools or ()
    skill = next((f for f in files if f.kind is FileKind.SKILL), None)
    if not tools or skill is None:
        return
    offset = _grant_offset(skill)
    body = skill.text[skill.body_start :]
    for tool in tools:
        base = tool.split("(", 1)[0].strip().lower()
        if base in SHELL_TOOLS:
            open_shell = "(" not in tool or tool.replace(" ", "").endswith(
                ("(*)", "(*:*)")
            )
            needs = _needs_shell(skill, files)
            if open_shell:
                yield Hit(
                    OPEN_SHELL_GRANT,
                    skill,
                    offset,
                    f"`{tool}`"
                    + (
                        ""
                        if needs
                        else " — and the instructions run no command and "
                        "the skill has no script: it needs no shell at all"
                    ),
                )
            elif not needs:
                yield Hit(
                    UNNEEDED_TOOL_GRANT,
                    skill,
                    offset,
                    f"`{tool}`: the instructions run no command and the skill has no script",
                )
        elif base in _USES and not _USES[base].search(body):
            yield Hit(
                UNNEEDED_TOOL_GRANT,
                skill,
                offset,
                f"`{tool}`: the instructions never ask for it",
            )


def _needs_shell(skill: ScannedFile, files: Sequence[ScannedFile]) -> bool:
    if any(f.kind is FileKind.SCRIPT for f in files):
        return True
    if "scripts/" in skill.text:
        return True
    for span in skill.code():
        if span.language in _SHELL_LANGUAGES or (
            span.block_start >= 0 and not span.language
        ):
            return True
    return _COMMAND_LINE.search(skill.text, skill.body_start) is not None


def _grant_offset(skill: ScannedFile) -> int:
    for key in ("allowed-tools", "allowed_tools"):
        found = skill.text.find(key, 0, skill.body_start or None)
        if found >= 0:
            return found
    return 0
