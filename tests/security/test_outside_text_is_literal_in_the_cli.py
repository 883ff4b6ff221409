"""Every headless command shows a skill's, a project's, a model's and a session file's text
literally: rich markup in it stays text (no link whose target is not its text, no concealed
words, no crash on a stray closing tag) and escape sequences in it show escaped.

The commands run in-process against a real terminal's console (``FORCE_COLOR``): styles are
written as escape sequences, so a link (OSC 8) or a concealed span (SGR 8) made from the
payload would be in the output to find.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from aiq_tui.cli import main

# Each piece is what rich would act on if it parsed the text as markup, with the words that
# would be left if it did: a command that shows those words must show the tags around them.
CLOSING = "[/b]"
LINK = "[link=https://evil.example/pwn]https://docs.python.org/3/[/link]"
CONCEAL = "[conceal]hidden=words[/conceal]"
CLICK = "[@click=app.quit]click=me[/]"
STYLE = "[bold red on white]loud=words[/]"
EMOJI = ":warning:"
PIECES = {
    CLOSING: "",
    LINK: "https://docs.python.org/3/",
    CONCEAL: "hidden=words",
    CLICK: "click=me",
    STYLE: "loud=words",
    EMOJI: "",
}
# And what a terminal would act on: SGR 8 (conceal) and an OSC 8 link, written raw.
RAW_CONCEAL = "\x1b[8mhid"
RAW_LINK = "\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\"
PAYLOAD = f"{CLOSING} {RAW_CONCEAL} " + " ".join(list(PIECES)[1:]) + f" {RAW_LINK}"

SGR = re.compile(r"\x1b\[([0-9;]*)m")


def _concealing(params: str) -> bool:
    """Whether an SGR sequence's parameters turn on conceal (8), skipping colour arguments."""
    values = [int(value or 0) for value in params.split(";")]
    index = 0
    while index < len(values):
        value = values[index]
        if value in (38, 48, 58):
            index += 3 if values[index + 1 : index + 2] == [5] else 5
            continue
        if value == 8:
            return True
        index += 1
    return False


def assert_literal(output: str, *, whole: bool = False) -> None:
    """``output`` (a styled terminal stream) obeys nothing of the payload, and whatever of it
    it shows is shown as written. ``whole``: the command shows the payload in full."""
    assert "\x1b]" not in output, (
        f"an OSC sequence (a link, a title) reached the terminal: {output[:400]!r}"
    )
    for match in SGR.finditer(output):
        assert not _concealing(match.group(1)), f"concealed text: {match.group(0)!r}"
    plain = SGR.sub("", output)
    one_line = re.sub(r"\s*\n\s*", "", plain)  # a table cell may fold a long piece

    def shown(piece: str) -> bool:
        return piece in plain or piece in one_line

    for piece, words in PIECES.items():
        if whole or (words and shown(words)):
            assert shown(piece), f"{piece!r} is not shown as written in:\n{plain}"
    if whole:
        assert shown("\\x1b[8mhid") and shown("\\x1b]8;;"), (
            f"the escape sequences are not shown escaped:\n{plain}"
        )


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wide colour terminal, as a user's, so styles (and links) are written out."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "1000")
    monkeypatch.setenv("LINES", "200")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An untrusted repository whose ``.claude/skills`` skill carries the payload in its
    description, a front-matter extra, its body and its own trigger evals."""
    root = tmp_path / "repo"
    skill = root / ".claude" / "skills" / "python-docs"
    (skill / "evals").mkdir(parents=True)
    description = f"Python docs for testing python code files. {PAYLOAD}"
    (skill / "SKILL.md").write_text(
        "---\n"
        "name: python-docs\n"
        f"description: {json.dumps(description)}\n"
        f"colour: {json.dumps(PAYLOAD)}\n"
        "---\n"
        f"# Python docs\n\nRead this: {PAYLOAD}\n",
        encoding="utf-8",
    )
    queries = [
        {
            "query": f"how do I test python code files? {PAYLOAD}",
            "should_trigger": True,
        },
        {"query": f"python docs for testing {PAYLOAD}", "should_trigger": True},
        {"query": f"bake a cake {PAYLOAD}", "should_trigger": False},
        {"query": f"plan a trip {PAYLOAD}", "should_trigger": False},
        {"query": f"python code files docs {PAYLOAD}", "should_trigger": True},
    ]
    (skill / "evals" / "trigger_eval.json").write_text(
        json.dumps(queries), encoding="utf-8"
    )
    monkeypatch.chdir(root)
    return root


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    assert code in (0, 1), f"{argv} exited {code}:\n{captured.err}"
    assert "Traceback" not in captured.err, captured.err
    return captured.out + captured.err


@pytest.mark.parametrize(
    "argv",
    [
        ["skills", "list"],
        ["skills", "show", "python-docs"],
        ["match", "--explain", "python-docs", f"test python code files {PAYLOAD}"],
        ["match", f"test python code files {PAYLOAD}", "--explain"],
        ["match", "--eval", ".claude/skills/python-docs/evals/trigger_eval.json"],
        ["skills", "tune", "python-docs", "--rounds", "1"],
        ["skills", "doctor"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_skills_text_is_shown_literally_by_every_command(
    argv: list[str],
    project: Path,
    terminal: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert_literal(_run(argv, capsys), whole=argv[:2] == ["skills", "show"])


def test_a_session_whose_first_message_is_markup_lists_shows_and_replays_literally(
    project: Path, terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """One ``ask "what does [/b] do?"`` made every later ``sessions list`` crash: the first
    message is the session's title."""
    question = f"what does {PAYLOAD} do in BBCode?"
    output = _run(["--provider", "demo", "ask", question], capsys)
    assert_literal(output)  # the demo model quotes the skill, cut to a line
    session = re.search(r"--session (\S+?)\)", SGR.sub("", output))
    assert session, output
    session_id = session.group(1)
    listing = _run(["sessions", "list"], capsys)
    assert_literal(listing)
    assert CLOSING in SGR.sub("", listing)  # the title: the first message
    for argv in (
        ["sessions", "show", session_id],
        ["replay", session_id],
        ["replay", session_id, "--captions"],
    ):
        assert_literal(_run(argv, capsys), whole=True)
