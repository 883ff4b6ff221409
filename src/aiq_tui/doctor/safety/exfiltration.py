"""Exfiltration: credentials read and sent out, data carried in image or link URLs, encoded
data uploaded, opaque blobs.

"Sent out" means a network sender on the same line (``cat ~/.ssh/id_rsa | curl -d @- …``);
in a script, a credential read on one line and a sender on another is a warning (the value
may travel through a variable). A token used as an API's own authentication
(``curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com``) is what skills that
call APIs do and is not flagged: only credential *files* and the *whole* environment are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from aiq_tui.doctor.model import Level
from aiq_tui.doctor.safety.documented import documented
from aiq_tui.doctor.safety.files import FileKind, ScannedFile, anchors
from aiq_tui.doctor.safety.rules import (
    DATA_IN_URL,
    ENCODED_UPLOAD,
    OPAQUE_BLOB,
    SECRET_EXFILTRATION,
    Hit,
    Rule,
)

_SECRET = re.compile(
    r"\.ssh/(?:id_[a-z0-9]+\b(?!\.pub)|[\w.-]*key\b)"
    r"|\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)"
    r"|\.aws/credentials\b|\.netrc\b|\.git-credentials\b|\.docker/config\.json\b|\.kube/config\b"
    r"|\.config/gcloud\b|\.azure/\w|\.npmrc\b|\.pypirc\b|/etc/shadow\b|\.gnupg/|\bsecring\b"
    r"|(?:cat|source|read|open)\W+[^\n|;]{0,40}\.env\b"
    r"|\bprintenv\b(?!\s+[A-Z_])|\benv\s*[|>]"
    r"|json\.dumps\(\s*(?:dict\()?os\.environ\b|\bdict\(os\.environ\)|os\.environ\.items\(\)"
    r"|JSON\.stringify\(\s*process\.env\s*\)|Object\.(?:entries|keys)\(\s*process\.env\s*\)"
    r"|Keychain|find-generic-password|[Cc]ookies\.sqlite",
)
# A credential file named as what ssh, scp or git *use* (-i KEY), not as data to send.
_AS_IDENTITY = re.compile(
    r"(?:-i\s*|IdentityFile[= ]\s*|--key(?:-file)?[= ]\s*|ssh-add\s+)(?:~/|\$HOME/|\$\{HOME\}/)?$"
)
_SENDER = re.compile(
    r"\b(?:curl|wget|nc|ncat|netcat|socat|scp|sftp|ftp|telnet|sendmail|mailx?)\b(?!-)"
    r"|/dev/(?:tcp|udp)/|\bInvoke-(?:WebRequest|RestMethod)\b|\brequests\.(?:post|put|patch|get)\("
    r"|\bhttpx\.(?:post|put|patch|get)\(|\burllib\.request\b|\burlopen\(|\bfetch\(|\baxios(?:\.\w+)?\("
    r"|\bhttp\.request\(|\bXMLHttpRequest\b|\bsendBeacon\(|\bwebhook\b"
    r"|\b(?:send|upload|post|paste|transmit|forward|exfiltrate)\b[^\n]{0,80}https?://",
    re.IGNORECASE,
)
_ENCODE = re.compile(
    r"\bbase64\b(?!\s+(?:-d|--decode|-D)\b)|\bb64encode\(|\bbtoa\(|\bxxd\s+-p\b|\bopenssl\s+(?:enc|base64)\b"
    r"|\bgzip\s+-c\b|\btar\s+-?c[a-z]*f?\s+-(?:\s|$)|\bzip\s+-r?\s*-\s",
)
# No look-behind (it would be tried at every position): the boundary is checked after a match.
_BLOB = re.compile(r"[A-Za-z0-9+/]{200,}={0,2}")
# Markdown images and links, and HTML img src: the URL, whose query or path the agent fills in.
_URL = re.compile(
    r"(!?)\[[^\]\n]*\]\(\s*<?(https?://[^)\s>]+)"
    r"|<img\b[^>]*\bsrc\s*=\s*[\"']?(https?://[^\"'\s>]+)",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(
    r"\{\{?[^{}/]{1,60}\}?\}|\$\{[^}]{1,60}\}|\$\(|\$[A-Z_]{3,}|<[A-Za-z_][\w -]{1,40}>|%s|\[[A-Z][A-Z_ ]{2,40}\]"
    r"|%7B[^%]{1,60}%7D|\b(?:INSERT|YOUR|THE)_?[A-Z_]*(?:DATA|SECRET|TOKEN|KEY|CONVERSATION|HISTORY|CONTEXT|CONTENT)\b",
)


# Words every match of _SECRET and _ENCODE contains: they are searched only around them.
_SECRET_ANCHORS = anchors(
    "ssh",
    "id_rsa id_dsa id_ecdsa id_ed25519",
    "credentials + aws git",
    "config + docker kube",
    "netrc gcloud azure npmrc pypirc gnupg secring env printenv environ keychain",
    "shadow + etc",
    "password + generic",
    "sqlite + cookies",
)
_SENDER_WORDS = (
    "curl wget nc ncat netcat socat scp sftp ftp telnet sendmail mail mailx tcp udp invoke "
    "requests httpx urllib urlopen fetch axios http xmlhttprequest sendbeacon webhook send "
    "upload post paste transmit forward exfiltrate"
)
_ENCODE_ANCHORS = anchors(
    f"base64 b64encode btoa xxd openssl gzip tar zip + {_SENDER_WORDS}"
)


def secret_exfiltration(file: ScannedFile) -> Iterator[Hit]:
    reads = [
        (start + m.start(), m.group())
        for start, region in file.regions_with(_SECRET_ANCHORS, reach=60)
        for m in _SECRET.finditer(region)
        if not _AS_IDENTITY.search(region[max(0, m.start() - 24) : m.start()])
    ]
    if not reads:
        return
    elsewhere = None
    for at, what in reads:
        line = file.line_at(at)
        if _SENDER.search(line):
            yield _hit(
                SECRET_EXFILTRATION,
                file,
                at,
                f"reads {what} and sends it: “{_cut(line)}”",
            )
            return
        elsewhere = elsewhere or (at, what)
    if elsewhere is not None and file.kind is FileKind.SCRIPT:
        sender = _SENDER.search(file.text)
        if sender is not None:
            at, what = elsewhere
            yield Hit(
                SECRET_EXFILTRATION,
                file,
                at,
                f"reads {what} (line {file.line_of(at)}) and sends "
                f"data out (line {file.line_of(sender.start())}: “{_cut(file.line_at(sender.start()))}”)",
                Level.WARNING,
            )


def data_in_urls(file: ScannedFile) -> Iterator[Hit]:
    text = file.text
    if (
        not file.markdown
        or "http" not in text
        or ("](" not in text and "src" not in text)
    ):
        return
    for match in _URL.finditer(file.text):
        url = match.group(2) or match.group(3)
        image = bool(match.group(1)) or match.group(3) is not None
        rest = url.split("://", 1)[1]
        slot = _PLACEHOLDER.search(rest[rest.find("/") :] if "/" in rest else "")
        if slot is None:
            continue
        yield _hit(
            DATA_IN_URL,
            file,
            match.start(),
            f"{'an image' if image else 'a link'} whose URL takes “{slot.group()}”: {_cut(url)}",
            None if image else Level.WARNING,
        )


def encoded_uploads(file: ScannedFile) -> Iterator[Hit]:
    for start, region in file.regions_with(_ENCODE_ANCHORS, reach=60):
        for match in _ENCODE.finditer(region):
            line = file.line_at(start + match.start())
            if _SENDER.search(line):
                yield _hit(
                    ENCODED_UPLOAD, file, start + match.start(), f"“{_cut(line)}”"
                )
                return
    if file.kind is FileKind.REFERENCE:
        return  # reference blobs are data (fixtures, keys in examples): the agent is not told to run them
    for match in _BLOB.finditer(file.text) if file.longest_token() >= 200 else ():
        before = file.text[max(0, match.start() - 8) : match.start()]
        if before.endswith("base64,"):
            continue  # a data: URI — an inline image
        if before[-1:].isalnum() or before[-1:] in ("_", "-", "."):
            continue  # part of a longer token (a path, an identifier)
        line = file.line_at(match.start())
        if _SENDER.search(line):
            yield _hit(
                ENCODED_UPLOAD,
                file,
                match.start(),
                f"a {len(match.group())}-character blob sent out",
            )
        else:
            yield Hit(
                OPAQUE_BLOB,
                file,
                match.start(),
                f"{len(match.group())} characters of base64",
            )
        return


def _hit(
    rule: Rule, file: ScannedFile, offset: int, detail: str, level: Level | None = None
) -> Hit:
    """A hit, a note when the text around it warns against it (documented, not instructed)."""
    return Hit(
        rule, file, offset, detail, Level.INFO if documented(file, offset) else level
    )


def _cut(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
