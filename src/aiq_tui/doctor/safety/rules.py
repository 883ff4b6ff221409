"""The safety scan's rules: one record each — id, severity, what it means and why it matters.

The detectors (``commands``, ``injection``, ``hidden_text``, ``exfiltration``, ``grants``) report
hits against these records; text output, ``--json`` and SARIF's ``tool.driver.rules`` all read
them from here, so a rule is described in one place. Ids are stable: CI suppressions and SARIF
baselines key on them.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiq_tui.doctor.model import Level
from aiq_tui.doctor.safety.files import ScannedFile


@dataclass(frozen=True)
class Rule:
    id: str
    level: (
        Level  # the default severity; a hit may lower it (documented, not instructed)
    )
    title: str  # a short name, "prompt injection"
    why: str  # why it matters, for someone deciding whether to install the skill
    fix: str


DANGEROUS_COMMAND = Rule(
    "dangerous-command",
    Level.ERROR,
    "a command the script runner refuses",
    "the agent follows a skill's commands literally and runs its scripts; this one could "
    "do real damage (the runner refuses it, an agent told to type it by hand might not)",
    "remove the command, or scope it to paths inside the skill's working folder",
)
PROMPT_INJECTION = Rule(
    "prompt-injection",
    Level.ERROR,
    "prompt injection",
    "the text tries to override the instructions the agent already has, or to hide what it "
    "does from the user — a skill should add instructions, never cancel them",
    "remove the sentence; a skill that needs the agent to behave differently says what to do",
)
ROLE_OVERRIDE = Rule(
    "role-override",
    Level.WARNING,
    "a role or mode override",
    'the text tells the agent it is someone else or has no rules ("you are now …", '
    '"developer mode"): the usual opening of a jailbreak',
    "describe the task instead of redefining the agent",
)
HIDDEN_COMMENT = Rule(
    "hidden-comment",
    Level.WARNING,
    "instructions in an HTML comment",
    "a rendered page hides HTML comments, but the model reads them: a reviewer on GitHub "
    "never sees what the agent is told",
    "move the instruction into the visible text, or delete the comment",
)
INVISIBLE_CHARACTERS = Rule(
    "invisible-characters",
    Level.WARNING,
    "invisible characters",
    "zero-width characters, and Unicode tag characters above all (they spell out ASCII the "
    "model reads and no screen shows), hide text from a reviewer",
    "delete them (the finding shows where, as \\u escapes)",
)
BIDI_CONTROL = Rule(
    "bidi-control",
    Level.ERROR,
    "bidirectional control characters",
    "bidi overrides and isolates make text display in a different order from the one it is "
    'read in ("Trojan Source"): the command a reviewer sees is not the one that runs',
    "delete them; right-to-left prose needs no override characters (use U+200E/U+200F marks)",
)
SECRET_EXFILTRATION = Rule(
    "secret-exfiltration",
    Level.ERROR,
    "secrets sent out",
    "it reads a credential (SSH keys, cloud credentials, .env, the whole environment) and "
    "sends it over the network: nothing a skill needs",
    "remove it; a skill that calls an API names the variable it reads and sends it only as "
    "that API's authentication",
)
DATA_IN_URL = Rule(
    "data-in-url",
    Level.ERROR,
    "data carried in a URL",
    "an image or link whose URL the agent is to fill in with data: rendering the image (no "
    "click needed) sends that data to the URL's host",
    "use a fixed URL, or none",
)
ENCODED_UPLOAD = Rule(
    "encoded-upload",
    Level.ERROR,
    "encoded data sent out",
    "it encodes data (base64, an archive) and sends it over the network in the same command: "
    "the usual way to carry files out past a reviewer",
    "remove it, or send named files to a documented endpoint in plain sight",
)
OPAQUE_BLOB = Rule(
    "opaque-blob",
    Level.INFO,
    "an opaque encoded blob",
    "a long base64 string cannot be reviewed: what it decodes to is what the agent gets",
    "ship the decoded file beside the skill instead",
)
OPEN_SHELL_GRANT = Rule(
    "open-shell-grant",
    Level.WARNING,
    "allowed-tools pre-approves a shell",
    "an unscoped shell in allowed-tools lets the agent run any command without asking once "
    "this skill is invoked, in clients that pre-approve listed tools (aiq-tui too, by default: "
    "any program on tools.command_allowlist, never a shell string)",
    "scope it to the commands the skill needs, e.g. Bash(git:*) Bash(python3 scripts/*:*)",
)
UNNEEDED_TOOL_GRANT = Rule(
    "unneeded-tool-grant",
    Level.INFO,
    "allowed-tools grants what the text never uses",
    "a pre-approved tool the instructions never call for is a permission with no purpose: "
    "whatever else steers the agent (a file it reads, a web page) can use it",
    "remove the tool from allowed-tools",
)

RULES: tuple[Rule, ...] = (
    DANGEROUS_COMMAND,
    PROMPT_INJECTION,
    ROLE_OVERRIDE,
    HIDDEN_COMMENT,
    INVISIBLE_CHARACTERS,
    BIDI_CONTROL,
    SECRET_EXFILTRATION,
    DATA_IN_URL,
    ENCODED_UPLOAD,
    OPAQUE_BLOB,
    OPEN_SHELL_GRANT,
    UNNEEDED_TOOL_GRANT,
)
BY_ID = {rule.id: rule for rule in RULES}


@dataclass(frozen=True)
class Hit:
    """One place a rule matched: the file, the offset in it, what was found (outside text:
    shown escaped) and the severity when it differs from the rule's."""

    rule: Rule
    file: ScannedFile
    offset: int
    detail: str
    level: Level | None = None
