"""Imports run one way: a lower layer never imports a higher one.

Every ``import`` in src/aiq_tui is read from the source (ast), lazy ones inside functions and
type-only ones under ``TYPE_CHECKING`` included: a lazy import up a layer is still a loop in the
design, only hidden until the function runs. Each rule names the package, what it must not
import, and why; the failure lists every offending file and line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "aiq_tui"


@dataclass(frozen=True)
class Import:
    source: str  # the importing module's path, relative to src/aiq_tui ("tools/registry.py")
    target: str  # the imported module ("aiq_tui.skills.store")
    line: int
    lazy: bool  # inside a function: runs only when the function does

    def __str__(self) -> str:
        return f"{self.source}:{self.line} imports {self.target}{' (lazily)' if self.lazy else ''}"


def _imports(path: Path) -> list[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[Import] = []
    source = path.relative_to(SRC).as_posix()

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            if isinstance(child, ast.Import):
                found.extend(
                    Import(source, alias.name, child.lineno, lazy)
                    for alias in child.names
                )
            elif (
                isinstance(child, ast.ImportFrom) and child.level == 0 and child.module
            ):
                found.append(Import(source, child.module, child.lineno, lazy))
                # ``from aiq_tui import skills`` imports the package named in the alias
                found.extend(
                    Import(source, f"{child.module}.{alias.name}", child.lineno, lazy)
                    for alias in child.names
                    if child.module == "aiq_tui"
                )
            visit(child, inner)

    visit(tree, False)
    return found


def _all_imports() -> list[Import]:
    return [found for path in sorted(SRC.rglob("*.py")) for found in _imports(path)]


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _unit(source: str) -> str:
    """``tools/mcp/servers.py`` → ``aiq_tui.tools``; ``trust.py`` → ``aiq_tui.trust``."""
    first = source.split("/")[0]
    return "aiq_tui." + (first[:-3] if first.endswith(".py") else first)


@dataclass(frozen=True)
class Rule:
    package: str
    never: tuple[str, ...]
    why: str


RULES = (
    Rule("aiq_tui.file_io", ("aiq_tui.",), "the file helpers sit below every layer"),
    Rule(
        "aiq_tui.tools",
        (
            "aiq_tui.skills",
            "aiq_tui.skill_tools",
            "aiq_tui.ranking",
            "aiq_tui.agent",
            "aiq_tui.replay",
            "aiq_tui.ui",
            "aiq_tui.commands",
        ),
        "tools/ sits below skills/ (script skills launch through it); the tools that wrap skills "
        "live in skill_tools/, above both",
    ),
    Rule(
        "aiq_tui.trust",
        ("aiq_tui.skills", "aiq_tui.tools", "aiq_tui.agent", "aiq_tui.ui"),
        "which folders the user trusts is decided below the layers that ask",
    ),
    Rule(
        "aiq_tui.skills",
        (
            "aiq_tui.skill_tools",
            "aiq_tui.ranking",
            "aiq_tui.agent",
            "aiq_tui.replay",
            "aiq_tui.ui",
            "aiq_tui.commands",
        ),
        "skills/ is read by everything above it",
    ),
    Rule(
        "aiq_tui.ranking",
        (
            "aiq_tui.skill_tools",
            "aiq_tui.tools",
            "aiq_tui.agent",
            "aiq_tui.ui",
            "aiq_tui.commands",
        ),
        "matching knows skills, not the tools that run them or the engine",
    ),
    Rule(
        "aiq_tui.replay",
        ("aiq_tui.agent", "aiq_tui.ui", "aiq_tui.commands"),
        "the fold is shared by the engine's front ends; it reads events, not the engine",
    ),
    Rule(
        "aiq_tui.events",
        ("aiq_tui.agent", "aiq_tui.ui", "aiq_tui.commands"),
        "the stream gathers what every layer reports; the engine and its front ends consume it",
    ),
    *(
        Rule(
            package,
            ("aiq_tui.events",),
            "a layer below the stream reports with event types of its own (tools/events.py, "
            "tools/mcp/events.py, context.model.CompressionApplied), which aiq_tui.events gathers",
        )
        for package in (
            "aiq_tui.skills",
            "aiq_tui.context",
            "aiq_tui.ranking",
            "aiq_tui.tools",
        )
    ),
)
CORE = (
    "aiq_tui.skills",
    "aiq_tui.skill_tools",
    "aiq_tui.context",
    "aiq_tui.tools",
    "aiq_tui.llm",
    "aiq_tui.agent",
    "aiq_tui.ranking",
    "aiq_tui.replay",
    "aiq_tui.events",
    "aiq_tui.trust",
)


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return _all_imports()


@pytest.mark.parametrize(
    "rule", RULES, ids=lambda rule: rule.package.removeprefix("aiq_tui.")
)
def test_a_lower_layer_never_imports_a_higher_one(
    imports: list[Import], rule: Rule
) -> None:
    wrong = [
        str(found)
        for found in imports
        if _in(_unit(found.source), rule.package)
        and any(
            _in(found.target, never)
            or (never.endswith(".") and found.target.startswith(never))
            for never in rule.never
        )
    ]
    assert not wrong, (
        f"{rule.package} must not import {', '.join(rule.never)} ({rule.why}):\n"
        + "\n".join(wrong)
    )


@pytest.mark.parametrize(
    "package", CORE, ids=lambda package: package.removeprefix("aiq_tui.")
)
def test_the_core_never_imports_the_ui_or_textual(
    imports: list[Import], package: str
) -> None:
    wrong = [
        str(found)
        for found in imports
        if _in(_unit(found.source), package)
        and (_in(found.target, "aiq_tui.ui") or _in(found.target, "textual"))
    ]
    assert not wrong, "\n".join(wrong)


def test_headless_commands_import_the_ui_only_to_open_a_tui(
    imports: list[Import],
) -> None:
    """``aiq-tui`` (tui_cmd) opens the app and ``aiq-tui replay`` opens Replay: the only imports of
    ``ui/`` from ``commands/``, each inside the function that opens the screen (the app's also for
    types), so every other command starts without Textual."""
    into_ui = [
        (found.source, found.target)
        for found in imports
        if _in(_unit(found.source), "aiq_tui.commands")
        and (_in(found.target, "aiq_tui.ui") or _in(found.target, "textual"))
        and not found.lazy
    ]
    assert into_ui == [("commands/tui_cmd.py", "aiq_tui.ui.app")]  # under TYPE_CHECKING
    opened = {
        found.source
        for found in imports
        if _in(_unit(found.source), "aiq_tui.commands")
        and _in(found.target, "aiq_tui.ui")
    }
    assert opened == {"commands/replay_cmd.py", "commands/tui_cmd.py"}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one package (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_two_packages_import_each_other_even_lazily(imports: list[Import]) -> None:
    """Counting imports inside functions and under ``TYPE_CHECKING`` too, the packages form no
    loop: each one can be read, and changed, knowing only the ones below it."""
    edges: dict[str, set[str]] = {}
    why: dict[tuple[str, str], str] = {}
    for found in imports:
        if not found.target.startswith("aiq_tui."):
            continue
        source = _unit(found.source)
        target = "aiq_tui." + found.target.split(".")[1]
        if source != target:
            edges.setdefault(source, set()).add(target)
            why.setdefault((source, target), str(found))
    loops = _cycles(edges)
    assert not loops, "\n".join(
        " ↔ ".join(group)
        + ":\n  "
        + "\n  ".join(why[(a, b)] for a in group for b in group if (a, b) in why)
        for group in loops
    )


def test_the_cycle_finder_finds_a_loop_through_three_packages() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        ["a", "b", "c"]
    ]
    assert _cycles({"a": {"b"}, "b": {"c"}}) == []


def test_the_rules_see_imports_inside_functions_and_type_checking_blocks() -> None:
    """The reader itself: a lazy import and a type-only import are both found (the rules would
    pass vacuously on a reader that saw neither)."""
    found = {
        (i.target, i.lazy) for i in _imports(SRC / "skill_tools" / "default_tools.py")
    }
    assert (
        "aiq_tui.skill_tools.use_skill",
        True,
    ) in found  # inside build_default_tools
    assert ("aiq_tui.config", False) in found  # under TYPE_CHECKING
