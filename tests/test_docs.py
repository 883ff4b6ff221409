"""README is the short page a newcomer reads; docs/ holds the rest as a site (mkdocs.yml).

These keep both readable where they are read: on GitHub and in the built site. README stays
short, prose has no giant lines, every relative link and anchor leads somewhere, and every page
in docs/ is reachable from the site's navigation. (`make docs` checks the same links again with
`mkdocs build --strict`; these run without MkDocs, in the suite.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README_MAX_LINES = 250
PROSE_MAX_CHARS = 200

_FENCE = re.compile(r"^\s*(```+|~~~+)")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def prose_lines(page: Path, keep_code_spans: bool = False) -> Iterator[tuple[int, str]]:
    """Numbered lines outside fenced code blocks, with inline code removed unless kept."""
    fence: str | None = None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)[0] * 3
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            yield number, line if keep_code_spans else _CODE_SPAN.sub("", line)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading (MkDocs gives the same to the headings used here)."""
    text = re.sub(r"`|\*\*|\*", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {
        slug(line.lstrip("#"))
        for _, line in prose_lines(page, keep_code_spans=True)
        if re.match(r"#{1,6} ", line)
    }


def relative_links(page: Path) -> Iterator[tuple[int, str]]:
    for number, line in prose_lines(page):
        for target in _LINK.findall(line):
            if not re.match(
                r"[a-z][a-z0-9+.-]*:", target
            ):  # http:, https:, mailto: are not checked
                yield number, target


def test_readme_is_a_page_a_newcomer_reads_to_the_end() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines (at most {README_MAX_LINES}): move detail to docs/"
    )


def test_readme_keeps_the_two_set_up_commands_ci_relies_on() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "```\nmake run\nmake test\n```" in readme


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_prose_line_is_longer_than_a_wide_screen(page: Path) -> None:
    long = [
        f"{page.name}:{number} ({len(line)} chars)"
        for number, line in prose_lines(page, keep_code_spans=True)
        if len(line) > PROSE_MAX_CHARS and not line.lstrip().startswith("|")
    ]
    assert long == [], (
        "break these lines (tables and code blocks may be wider): " + ", ".join(long)
    )


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    broken = []
    for number, target in relative_links(page):
        path, _, anchor = target.partition("#")
        goal = (page.parent / path).resolve() if path else page
        if not goal.exists():
            broken.append(f"{page.name}:{number} {target} (no such file)")
        elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
            broken.append(
                f"{page.name}:{number} {target} (no heading #{anchor} in {goal.name})"
            )
    assert broken == []


def test_the_checks_above_find_what_they_look_for(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# A `code` title\n\n[x](other.md#there) ![y](pic.svg) `[not](a-link.md)`\n"
        "```\n[inside](code.md)\n```\n| " + "w" * 300 + " |\n",
        encoding="utf-8",
    )
    assert list(relative_links(page)) == [(3, "other.md#there"), (3, "pic.svg")]
    assert anchors(page) == {"a-code-title"}
    assert [
        n
        for n, line in prose_lines(page, keep_code_spans=True)
        if len(line) > PROSE_MAX_CHARS
    ] == [7]  # a table row


def test_every_docs_page_is_in_the_site_navigation() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def listed(entries: list) -> Iterator[str]:
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            yield from listed(value) if isinstance(value, list) else [value]

    in_nav = set(listed(config["nav"]))
    on_disk = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert in_nav == on_disk
