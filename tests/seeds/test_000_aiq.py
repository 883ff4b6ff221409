"""Seed 000 (aiq): skills directory, SKILL.md format, metadata-only loading, keyword matching,
prompt format, token budget with 80/90/95 % compression, built-in tools."""

from __future__ import annotations

import re
from pathlib import Path

from aiq_tui.context.compress import ContextState, SkillCost, plan, priority_order
from aiq_tui.context.tokens import TokenCounter
from aiq_tui.conversation import Message, Role
from aiq_tui.skills.model import SkillState
from aiq_tui.tools.registry import approve_all
from aiq_tui.workspace import Workspace
from tests.seeds.seed_support import call_tool, config  # noqa: F401 - config is a fixture

BUILTIN = {"http_request", "execute_command", "file_operations", "execute_sql"}


# -- Skills directory structure ----------------------------------------------------------------


def test_skills_directory_organization(home: Path, cli) -> None:
    assert (
        cli("skills", "new", "pdf-tools", "--description", "Work with PDF files")[0]
        == 0
    )
    assert (home / "skills" / "pdf-tools" / "SKILL.md").is_file()


def test_multiple_skills_support(home: Path, cli, cli_json) -> None:
    for name in ("one", "two", "three"):
        assert cli("skills", "new", name, "--description", f"The {name} skill")[0] == 0
    assert sorted(p.name for p in (home / "skills").iterdir()) == [
        "one",
        "three",
        "two",
    ]
    assert sorted(s["name"] for s in cli_json("skills", "list")[1]["skills"]) == [
        "one",
        "three",
        "two",
    ]


# -- Skills file format parsing ----------------------------------------------------------------


def test_parse_skill_metadata(add, cli_json) -> None:
    add("pdf-tools", "Extract text from PDFs")
    _code, data = cli_json("skills", "show", "pdf-tools")
    assert (data["name"], data["description"]) == (
        "pdf-tools",
        "Extract text from PDFs",
    )


def test_parse_skill_content(add, cli_json) -> None:
    add("pdf-tools", "Extract text from PDFs", body="# PDF\n\nUse pdftotext.\n")
    assert (
        cli_json("skills", "show", "pdf-tools")[1]["body"]
        == "# PDF\n\nUse pdftotext.\n"
    )


def test_handle_invalid_skill_format(skills: Path, add, cli_json) -> None:
    add("good")
    (skills / "bad-yaml").mkdir()
    (skills / "bad-yaml" / "SKILL.md").write_text("---\nname: [unclosed\n---\n")
    (skills / "no-name").mkdir()
    (skills / "no-name" / "SKILL.md").write_text("---\ndescription: nameless\n---\n")
    code, data = cli_json("skills", "list")
    assert code == 0 and [s["name"] for s in data["skills"]] == ["good"]
    warned = {Path(p["path"]).parent.name for p in data["problems"]}
    assert {"bad-yaml", "no-name"} <= warned


# -- Progressive Skills loading ----------------------------------------------------------------


def test_load_skills_metadata_on_startup(skills: Path) -> None:
    folder = skills / "big"
    folder.mkdir()
    # The body is not UTF-8: reading it would fail, so a loaded skill proves the body was not read.
    (folder / "SKILL.md").write_bytes(
        b"---\nname: big\ndescription: Large body\n---\n" + b"\xff\xfe" * 1000
    )
    workspace = Workspace.open()
    assert workspace.catalog.get("big").description == "Large body"


def test_match_skills_to_user_query(add, cli_json) -> None:
    add("pdf-tools", "Extract text and tables from PDF files")
    add("csv-report", "Summarise CSV files")
    _code, data = cli_json("match", "extract tables from a pdf")
    assert data["matches"][0]["name"] == "pdf-tools"


def test_load_matched_skills_content(add, engine) -> None:
    for index in range(5):
        add(
            f"report-{index}",
            f"Build a sales report variant {index}",
            body=f"Report body {index}.\n",
        )
    eng, _ = engine()
    eng.preview("build a sales report")
    assert 1 <= len(eng.skills.loaded()) <= 3  # the top 3 at most


def test_cache_loaded_skills(add) -> None:
    add("cached", "Cached skill", body="Body.\n")
    catalog = Workspace.open().catalog
    first = catalog.load("cached")
    assert catalog.load("cached") is first  # unchanged file: not read again


# -- Skills matching algorithm -----------------------------------------------------------------


def test_extract_query_keywords(add, cli_json) -> None:
    add("x")
    _code, data = cli_json("match", "Please extract the tables")
    assert "extract" in data["terms"] and "the" not in data["terms"]


def test_score_skills_by_relevance(add, cli_json) -> None:
    add("pdf", "Handle documents")
    add("pdf-tools", "Handle documents")
    add("docs", "Convert pdf files, pdf forms and pdf pages")
    names = [m["name"] for m in cli_json("match", "pdf")[1]["matches"]]
    assert names == [
        "pdf",
        "pdf-tools",
        "docs",
    ]  # exact name > partial name > description


def test_select_top_n_skills(add, cli_json) -> None:
    for index in range(6):
        add(f"sales-{index}", "Sales report")
    _code, data = cli_json("match", "sales report")
    assert len(data["matches"]) == 3 and data["top_k"] == 3


# -- Prompt management and compression ---------------------------------------------------------


def test_estimate_token_count(add, cli_json) -> None:
    add("pdf-tools", "Extract text from PDFs")
    _code, data = cli_json("prompt", "extract pdf text")
    b = data["breakdown"]
    assert (
        b["total"]
        == b["system"]
        + b["catalog"]
        + sum(b["skills"].values())
        + b["history"]
        + b["tool_results"]
        + b["reserve"]
    )


def _state(
    history: int,
    skills: tuple[SkillCost, ...],
    window: int,
    counter: TokenCounter,
    words: int = 60,
) -> ContextState:
    messages = tuple(
        Message(
            Role.USER if i % 2 == 0 else Role.ASSISTANT, "word " * words, id=f"m{i}"
        )
        for i in range(history)
    )
    return ContextState(
        history=messages, skills=skills, fixed=100, reserve=100, window=window
    )


def test_compress_conversation_history_at_80_threshold(home: Path) -> None:
    counter = TokenCounter.for_config(Workspace.open().config)
    config_ = Workspace.open().config.context
    state = _state(40, (), 3400, counter)
    result = plan(state, config_, counter)
    assert (
        int(result.stage) == 80
        and result.keep_last == 10
        and len(result.summarise_ids) == 30
    )


def test_evict_low_priority_skills_at_90_threshold(home: Path) -> None:
    counter = TokenCounter.for_config(Workspace.open().config)
    settings = Workspace.open().config.context
    skills = (
        SkillCost("active", SkillState.ACTIVE, 300, 1.0),
        SkillCost("relevant", SkillState.RELEVANT, 300, 0.5),
        SkillCost("idle", SkillState.INACTIVE, 300, 0.0),
    )
    state = _state(10, skills, 1900, counter)
    result = plan(state, settings, counter)
    assert int(result.stage) == 90
    evicted = [e.name for e in result.evictions]
    assert (
        "active" not in evicted and evicted[0] == "idle"
    )  # inactive first, active kept


def test_aggressive_compression_at_95_threshold(home: Path) -> None:
    counter = TokenCounter.for_config(Workspace.open().config)
    settings = Workspace.open().config.context
    skills = (
        SkillCost("top", SkillState.RELEVANT, 200, 0.9),
        SkillCost("second", SkillState.RELEVANT, 200, 0.4),
    )
    state = _state(30, skills, 2000, counter)
    result = plan(state, settings, counter)
    assert int(result.stage) == 95 and result.keep_last <= 5 + 1
    assert [e.name for e in result.evictions] == ["second"]  # only the top skill stays


async def test_aggressive_compression_keeps_the_active_skill_most_relevant_to_this_question(
    add, engine
) -> None:
    add("alpha-guide", "Alpha guide for reports")
    add("beta-guide", "Beta guide for reports")
    eng, _ = engine()
    await eng.activate(
        "beta-guide"
    )  # Active and loaded first, but hardly about the next question
    eng.preview(
        "alpha-guide reports"
    )  # alpha-guide Active too, by the best match of this question
    costs = eng.skills.costs()
    assert {c.name for c in costs if c.state is SkillState.ACTIVE} == {
        "alpha-guide",
        "beta-guide",
    }
    counter = TokenCounter.for_config(eng.config)
    result = plan(_state(30, costs, 2000, counter), eng.config.context, counter)
    assert int(result.stage) == 95
    assert [e.name for e in result.evictions] == ["beta-guide"]
    alpha = eng.skills.confidence("alpha-guide")
    assert alpha > eng.skills.confidence("beta-guide")
    assert result.evictions[0].reason.endswith(
        f"kept alpha-guide — active, confidence {alpha:.2f} (highest)"
    )


def test_skills_priority_management() -> None:
    costs = [
        SkillCost("i", SkillState.INACTIVE, 1, 0.9),
        SkillCost("r", SkillState.RELEVANT, 1, 0.1),
        SkillCost("a", SkillState.ACTIVE, 1, 0.0),
    ]
    assert [c.name for c in priority_order(costs)] == ["a", "r", "i"]


# -- Skills integration into prompt ------------------------------------------------------------


def test_build_prompt_with_skills(add, engine) -> None:
    add("pdf-tools", "Extract text from PDFs", body="Use pdftotext.\n")
    eng, _ = engine()
    assert "Use pdftotext." in eng.preview("extract text from pdf-tools").system


def test_format_skills_content(add, engine) -> None:
    add("pdf-tools", "Extract text from PDFs", body="# PDF\n\nUse pdftotext.\n")
    eng, _ = engine()
    system = eng.preview("pdf-tools extract text from PDFs").system
    assert (
        "## Skill: pdf-tools\nExtract text from PDFs\n\n# PDF\n\nUse pdftotext."
        in system
    )
    assert (
        system.count("# Skill: pdf-tools") == 1
    )  # one heading, no second title in the body


async def test_order_skills_by_priority(add, engine) -> None:
    add("alpha-guide", "Alpha guide for reports")
    add("beta-guide", "Beta guide for reports")
    eng, _ = engine()
    await eng.activate("beta-guide")
    system = eng.preview("reports").system
    states = [
        eng.skills.state_of(name)
        for name in re.findall(r"^## Skill: (\S+)$", system, re.M)
    ]
    assert states == [
        SkillState.ACTIVE,
        SkillState.RELEVANT,
    ]  # the explicit one Active, the match Relevant


async def test_within_a_state_skills_are_ordered_by_this_questions_confidence(
    add, engine
) -> None:
    add("alpha-guide", "Alpha guide for reports")
    add("beta-guide", "Beta guide for reports")
    eng, _ = engine()
    await eng.activate("beta-guide")  # loaded first, Active
    system = eng.preview(
        "alpha-guide reports"
    ).system  # alpha-guide Active too, by a far better match
    assert eng.skills.state_of("alpha-guide") is SkillState.ACTIVE
    assert system.index("## Skill: alpha-guide") < system.index("## Skill: beta-guide")


# -- Built-in tools for Skills -----------------------------------------------------------------


def test_http_request_tool(engine) -> None:
    eng, _ = engine()
    schema = eng.tools.get("http_request").spec.parameters["properties"]
    assert {"GET", "POST", "PUT", "DELETE"} <= set(schema["method"]["enum"])
    assert {"headers", "params", "body"} <= set(schema) or {
        "headers",
        "query",
        "body",
    } <= set(schema)


async def test_command_execution_tool(engine) -> None:
    eng, _ = engine()
    schema = eng.tools.get("execute_command").spec.parameters["properties"]
    assert {"timeout", "cwd"} <= set(schema)
    refused = await call_tool(
        eng, "execute_command", {"command": ["nc", "-l", "9"]}, approve_all
    )
    assert not refused.ok and "allowlist" in refused.error


async def test_file_operations_tool(engine, tmp_path: Path) -> None:
    eng, _ = engine()
    assert {"read", "write", "list"} <= set(
        eng.tools.get("file_operations").spec.parameters["properties"]["operation"][
            "enum"
        ]
    )
    outside = await call_tool(
        eng,
        "file_operations",
        {"operation": "read", "path": "/etc/passwd"},
        approve_all,
    )
    assert not outside.ok


async def test_database_query_tool(engine) -> None:
    eng, _ = engine()
    result = await call_tool(
        eng, "execute_sql", {"sql": "SELECT COUNT(*) AS n FROM customers"}, approve_all
    )
    assert result.ok, result.error


def test_register_built_in_tools(engine) -> None:
    eng, _ = engine()
    assert set(eng.tools.names()) >= BUILTIN


# -- Skills lifecycle management ---------------------------------------------------------------


def test_initialize_skills_manager(add, engine) -> None:
    add("one")
    add("two")
    eng, _ = engine()
    assert [v.name for v in eng.skill_views()] == ["one", "two"]
    assert all(v.state is SkillState.INACTIVE for v in eng.skill_views())


def test_reload_skills_on_demand(add, engine) -> None:
    """Deliberate difference: skills reload live (watcher / Ctrl+R / engine.reload), no restart."""
    eng, _ = engine()
    add("fresh", "Added while running")
    event = eng.reload()
    assert event.added == ("fresh",) and "skill_fresh" in eng.tools


def test_handle_skills_errors_gracefully(skills: Path, add, engine) -> None:
    add("fine")
    (skills / "broken").mkdir()
    (skills / "broken" / "SKILL.md").write_bytes(
        b"---\nname: broken\ndescription: \xc3\x28\n---\n"
    )
    eng, _ = engine()
    assert eng.workspace.catalog.names() == ["fine"]
    assert any("broken" in str(p.path) for p in eng.problems)
