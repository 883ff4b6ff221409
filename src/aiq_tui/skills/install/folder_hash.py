"""``computedHash``: the ``skills`` CLI's SHA-256 over a skill folder, reproduced byte for byte.

What the ``skills`` CLI (vercel-labs/skills, ``src/local-lock.ts``) hashes, read from its source:

* every *regular file* below the folder, recursively; a directory named ``.git`` or
  ``node_modules`` is not entered, and a symbolic link (to a file or a folder) is not a regular
  file there (``Dirent.isFile()`` is false for it), so links count for nothing;
* each file's path relative to the folder, with ``/`` separators;
* sorted with JavaScript's ``String.prototype.localeCompare`` — ICU collation in Node's default
  locale, *not* code-point order: ``references/x.md`` sorts before ``SKILL.md`` (letters compare
  without case first), and punctuation sorts before digits before letters;
* then, for each file in that order, the path's UTF-8 bytes followed by the file's bytes, with
  nothing in between, fed to one SHA-256; the hex digest is the hash.

:func:`collation_key` reproduces ICU's root collation exactly for printable ASCII (every
character one primary weight, case a tertiary difference, lower case first), which is what paths
in skill collections are made of; other characters fall back to an approximation (their base
letter after Unicode decomposition, then the code point), and the docs say so.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from pathlib import Path

SKIPPED_DIRS = frozenset({".git", "node_modules"})
"""Folders the hash does not enter (the ``skills`` CLI's own list)."""

# Printable ASCII in ICU root collation order, each group one primary weight (measured with
# Node 20's ``localeCompare``: the order is ICU's, Node only calls it).
_ICU_ASCII_ORDER = (
    " ", "_", "-", ",", ";", ":", "!", "?", ".", "'", '"', "(", ")", "[", "]", "{", "}",
    "@", "*", "/", "\\", "&", "#", "%", "`", "^", "+", "<", "=", ">", "|", "~", "$",
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
)  # fmt: skip
_PRIMARY: dict[str, int] = {char: rank for rank, char in enumerate(_ICU_ASCII_ORDER)}
for _offset, _letter in enumerate("abcdefghijklmnopqrstuvwxyz"):
    _PRIMARY[_letter] = _PRIMARY[_letter.upper()] = len(_ICU_ASCII_ORDER) + _offset
_AFTER_ASCII = len(_PRIMARY) + 1


def _weights(char: str) -> list[tuple[int, int, int]]:
    """The (primary, secondary, tertiary) weights of one character: one triple for ASCII, the
    base letters' for a letter that decomposes (é → e, then the accent at the second level;
    ß → s s), else one weight after every ASCII character, by code point."""
    primary = _PRIMARY.get(char)
    if primary is not None:
        return [(primary, 0, 1 if char.isupper() else 0)]
    upper = int(char.isupper())
    parts = unicodedata.normalize("NFKD", char.casefold())
    bases = [c for c in parts if not unicodedata.combining(c)]
    accent = sum(ord(c) for c in parts if unicodedata.combining(c))
    if bases and all(c in _PRIMARY for c in bases):
        weights = [(_PRIMARY[c], 0, upper) for c in bases]
        weights[0] = (weights[0][0], accent, upper)
        return weights
    return [(_AFTER_ASCII + ord(char.casefold()[:1] or char), accent, upper)]


def collation_key(
    text: str,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """A sort key ordering strings as ``a.localeCompare(b)`` does in Node (see the module doc):
    all primary weights first, then the secondary, then the tertiary."""
    weights = [w for char in text for w in _weights(char)]
    return (
        tuple(w[0] for w in weights),
        tuple(w[1] for w in weights),
        tuple(w[2] for w in weights),
    )


def hashed_files(folder: Path) -> list[str]:
    """The relative paths the hash reads, in the order it reads them."""
    found: list[str] = []
    stack = [""]
    while stack:
        relative = stack.pop()
        directory = os.path.join(folder, relative) if relative else os.fspath(folder)
        with os.scandir(directory) as entries:
            for entry in entries:
                path = f"{relative}/{entry.name}" if relative else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_DIRS:
                        stack.append(path)
                elif entry.is_file(follow_symlinks=False):
                    found.append(path)
    found.sort(key=collation_key)
    return found


def skill_folder_hash(folder: Path) -> str:
    """The ``computedHash`` of the skill at ``folder`` (hex SHA-256; see the module doc)."""
    digest = hashlib.sha256()
    for relative in hashed_files(folder):
        digest.update(relative.encode("utf-8"))
        with open(os.path.join(folder, relative), "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()
