"""The dangerous-pattern check catches the classes of evasion the second review used (issue 23).

It is a first filter only — the sandbox and the process limits contain what it misses
(tests/security/test_launch_policy.py) — but a text check that a variable or a backquote
defeats is no filter at all. Each class below is one way of hiding ``rm -rf /`` or a fork
bomb from a line-by-line pattern.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aiq_tui.skills.executor import find_dangerous

EVASIONS = {
    "a variable as the program": [
        "R=rm; $R -rf /",
        "R=rm\n${R} -rf /",
        'CMD="rm -rf"; $CMD /',
        "R=$(printf rm); $R -rf /",
    ],
    "a command substitution as the target": [
        "rm -rf `printf /`",
        "rm -rf $(echo /)",
        'rm -rf "$(printf "/")"',
        "rm -rf `echo ~`",
    ],
    "a quoted or escaped program name": [
        "\\rm -rf /",
        "'rm' -rf /",
        'r""m -rf /',
        "r\\m -fr /",
    ],
    "a wrapper in front of rm": [
        "command rm -rf /",
        "exec rm -rf /",
        "env rm -rf /",
        "nice -n 5 rm -rf /",
        "busybox rm -rf /",
        "nohup rm -rf / &",
        "timeout 5 rm -rf /",
    ],
    "rm fed by a pipe": ["echo / | xargs rm -rf", "printf '/' | xargs -r rm -rf"],
    "text run as code": [
        "eval 'rm -rf /'",
        'sh -c "rm -rf /"',
        "bash -c 'rm -rf ~'",
        "echo 'rm -rf /' | sh",
        "printf 'rm -rf /\\n' | bash",
        "bash <<< 'rm -rf /'",
        "sh <<EOF\nrm -rf /\nEOF",
    ],
    "fork bombs of other shapes": [
        "b(){ b & b & }; b",
        "f(){ f & }; f",
        "bomb() { bomb | bomb; }; bomb &",
        "function f { f & f; }; f",
        "while :; do sleep 1 & done",
        "for ((;;)); do sh -c x & done",
        "perl -e 'fork while fork'",
        "python3 -c 'import os\nwhile True: os.fork()'",
        'sh "$0" & sh "$0" &',
    ],
}
CASES = [(kind, script) for kind, scripts in EVASIONS.items() for script in scripts]

ORDINARY = [
    "R=./build; rm -rf $R",
    "rm -rf `mktemp -d`/cache",
    'rm -rf "$(dirname "$0")/dist"',
    "echo rm -rf /",
    "grep -r 'rm -rf /' docs",
    "printf '%s\\n' 'do not run rm -rf /'",
    "command -v git",
    "exec python3 app.py",
    "env FOO=1 make",
    "nice -n 5 make test",
    "build() { make; }; build",
    "retry() { retry_once || retry_once; }",
    "f() { echo hi & }; f",
    "sleep 1 & wait",
    "find . -type f | xargs rm -f",
    'eval "$(ssh-agent -s)"',
    "sh -c 'echo hello'",
    "echo 'ls -la' | sh",
    "cat <<EOF\nrm -rf / is what we never do\nEOF",
    "for i in 1 2 3; do echo $i & done; wait",
    "python3 -c 'print(1)'",
]


@pytest.mark.parametrize("kind, script", CASES, ids=[script for _, script in CASES])
def test_an_evasion_is_caught(kind: str, script: str) -> None:
    assert find_dangerous(script) is not None, kind


@pytest.mark.parametrize("script", ORDINARY)
def test_an_ordinary_script_is_not_flagged(script: str) -> None:
    assert find_dangerous(script) is None


@settings(max_examples=400, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("rm -f/$`'\"\\(){}|&;<>\n#~=abx0:EOF")),
        max_size=60,
    )
)
def test_any_text_is_read_without_an_error(text: str) -> None:
    """Discovery runs the check on every script skill: it answers, never raises or hangs."""
    assert find_dangerous(text) is None or isinstance(find_dangerous(text), str)
