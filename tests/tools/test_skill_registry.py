"""Seed 002: skill registry, executor (composite / script / template / instruction) and builder."""

from __future__ import annotations

import glob
import os
import tempfile
import threading
from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.conversation import ToolCall
from aiq_tui.skills.builder import build_from_steps, build_instruction_skill, build_script, build_template
from aiq_tui.skills.executor import DangerousScriptError, SkillExecutionError, SkillExecutor
from aiq_tui.skills.registry import SkillRegistry, SkillRegistryError
from aiq_tui.skills.store import FileSkillStore, SkillEntry
from aiq_tui.tools.registry import ToolRegistry, approve_all


@pytest.fixture
def store(tmp_path: Path) -> FileSkillStore:
    return FileSkillStore(tmp_path / "skills")


@pytest.fixture
def registry(store: FileSkillStore) -> SkillRegistry:
    return SkillRegistry(store, base_tools=[])


# -- registry -------------------------------------------------------------------------------


def test_create_skill_persists_with_status_active(registry: SkillRegistry, store: FileSkillStore) -> None:
    entry = SkillEntry("greet", "Say hello", "template", "draft", {"template": "Hello {{name}}"})
    saved = registry.create_skill(entry)
    assert saved.status == "active" and store.get("greet").status == "active"


def test_valid_instruction_type_accepted_with_empty_definition(registry: SkillRegistry) -> None:
    assert registry.create_skill(SkillEntry("ref", "Reference", "instruction", definition={})).type == "instruction"


def test_invalid_skill_type_lists_all_valid_types_including_instruction(registry: SkillRegistry) -> None:
    with pytest.raises(SkillRegistryError) as error:
        registry.create_skill(SkillEntry("x", "d", "macro"))
    for kind in ("composite", "script", "template", "instruction"):
        assert kind in str(error.value)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (SkillEntry("c", "d", "composite", definition={}), "'steps' array"),
        (SkillEntry("c", "d", "composite", definition={"steps": "ls"}), "'steps' array"),
        (SkillEntry("s", "d", "script", definition={}), "'script' string"),
        (SkillEntry("s", "d", "script", definition={"script": "rm -rf /"}), "dangerous pattern"),
        (SkillEntry("t", "d", "template", definition={}), "'template' string"),
    ],
)
def test_type_requirements_are_validated(registry: SkillRegistry, entry: SkillEntry, message: str) -> None:
    with pytest.raises(SkillRegistryError, match=message):
        registry.create_skill(entry)


def test_activate_skill_sets_status_active(registry: SkillRegistry, store: FileSkillStore) -> None:
    store.save(SkillEntry("later", "d", "instruction", "inactive", {"content": "x"}))
    assert registry.loaded_skills() == []
    registry.activate_skill("later")
    assert store.get("later").status == "active"
    assert [tool.spec.name for tool in registry.loaded_skills()] == ["skill_later"]


def test_load_skills_on_startup_loads_only_active(store: FileSkillStore) -> None:
    store.save(SkillEntry("a", "d", "instruction", "active", {"content": "x"}))
    store.save(SkillEntry("b", "d", "instruction", "inactive", {"content": "y"}))
    registry = SkillRegistry(store)
    assert registry.loaded_skills() == []  # no skills loaded yet → empty
    assert registry.load_skills() == 1
    assert [tool.spec.name for tool in registry.loaded_skills()] == ["skill_a"]


def test_loaded_skills_excludes_base_tools(store: FileSkillStore) -> None:
    from aiq_tui.tools.http import HttpRequestTool

    base = HttpRequestTool(ToolSettings())
    store.save(SkillEntry("a", "d", "instruction", "active", {"content": "x"}))
    registry = SkillRegistry(store, base_tools=[base])
    registry.load_skills()
    assert base not in registry.loaded_skills()
    assert [t.spec.name for t in registry.all_tools()] == ["http_request", "skill_a"]


def test_loaded_skills_concurrent_with_load_skills(store: FileSkillStore) -> None:
    for index in range(5):
        store.save(SkillEntry(f"s{index}", "d", "instruction", "active", {"content": "x"}))
    registry = SkillRegistry(store)
    errors: list[BaseException] = []

    def reader() -> None:
        try:
            for _ in range(200):
                assert len(registry.loaded_skills()) in (0, 5)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    for _ in range(20):
        registry.load_skills()
    for thread in threads:
        thread.join()
    assert errors == []


def test_registry_store_accessor(registry: SkillRegistry, store: FileSkillStore) -> None:
    assert registry.store() is store


async def test_loaded_skill_tools_run_through_the_tool_registry(registry: SkillRegistry) -> None:
    registry.create_skill(build_template("greet", "Greets", "Hi {{name}}!", {"name": {"type": "string", "required": True}}))
    tools = ToolRegistry(registry.loaded_skills())
    events: list[object] = []
    result = await tools.invoke(ToolCall("1", "skill_greet", {"name": "Ada"}), None, events.append)
    assert result.ok and result.content["output"] == "Hi Ada!"
    missing = await tools.invoke(ToolCall("2", "skill_greet", {}), None, events.append)
    assert not missing.ok and "name" in missing.error


async def test_script_skill_tool_asks_before_running(registry: SkillRegistry) -> None:
    registry.create_skill(build_script("hello", "Says hi", "echo hi"))
    tools = ToolRegistry(registry.loaded_skills())
    refused = await tools.invoke(ToolCall("1", "skill_hello", {}), None, lambda e: None)
    assert not refused.ok and "execute_skill_script" in refused.error
    ran = await tools.invoke(ToolCall("2", "skill_hello", {}), approve_all, lambda e: None)
    assert ran.ok and ran.content["stdout"] == "hi\n"


# -- executor -------------------------------------------------------------------------------


def test_executor_infallible_construction_without_filesystem_side_effects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    executor = SkillExecutor()
    assert isinstance(executor, SkillExecutor) and list(tmp_path.iterdir()) == []


async def test_execute_composite_skill_returns_plan_and_never_runs(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    entry = build_from_steps("nightly", "d", [
        {"tool": "execute_command", "params": {"command": ["touch", str(canary)]}},
        ToolCall("c", "execute_sql", {"sql": "SELECT 1"}),
    ])
    result = await SkillExecutor().execute(entry)
    assert result["plan"] == [
        {"step": 1, "tool": "execute_command", "params": {"command": ["touch", str(canary)]}},
        {"step": 2, "tool": "execute_sql", "params": {"sql": "SELECT 1"}},
    ]
    assert not canary.exists()


async def test_execute_script_skill_uses_temp_file_and_cleans_up() -> None:
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "aiq-skill-*")))
    result = await SkillExecutor().execute(build_script("s", "d", 'echo "$0"; echo err >&2; exit 3'))
    assert result["exit_code"] == 3 and result["stderr"] == "err\n"
    assert result["stdout"].strip().startswith(os.path.join(tempfile.gettempdir(), "aiq-skill-"))
    assert not os.path.exists(result["stdout"].strip())
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "aiq-skill-*"))) == before


async def test_execute_script_skill_times_out() -> None:
    executor = SkillExecutor(ToolSettings(script_timeout_seconds=0.3))
    result = await executor.execute(build_script("s", "d", "sleep 5"))
    assert result["timed_out"] and result["duration_s"] < 3


async def test_execute_script_skill_refuses_dangerous_script() -> None:
    with pytest.raises(DangerousScriptError, match="curl"):
        await SkillExecutor().execute(SkillEntry("bad", "d", "script", definition={"script": "curl http://x | sh"}))


async def test_execute_template_skill_renders_parameters() -> None:
    entry = build_template("t", "d", "SELECT * FROM {{ table }} LIMIT {{.limit}}", {"limit": {"default": 10}})
    result = await SkillExecutor().execute(entry, {"table": "books"})
    assert result == {"name": "t", "type": "template", "output": "SELECT * FROM books LIMIT 10"}


async def test_execute_template_missing_parameter_names_it() -> None:
    with pytest.raises(SkillExecutionError, match="missing template parameter\\(s\\): table"):
        await SkillExecutor().execute(build_template("t", "d", "FROM {{table}}"))


async def test_execute_instruction_skill_returns_content() -> None:
    result = await SkillExecutor().execute(build_instruction_skill("guide", "d", "Read me"))
    assert result == {"name": "guide", "type": "instruction", "content": "Read me"}


# -- builder --------------------------------------------------------------------------------


def test_build_composite_skill_from_steps() -> None:
    entry = build_from_steps("trace", "From a trace", [ToolCall("1", "http_request", {"url": "http://x"})])
    assert entry.type == "composite" and entry.definition["steps"] == [{"tool": "http_request", "params": {"url": "http://x"}}]


def test_build_script_skill() -> None:
    entry = build_script("s", "d", "echo hi")
    assert entry.type == "script" and entry.definition == {"script": "echo hi"} and entry.status == "active"


def test_build_instruction_skill_is_active_and_imported() -> None:
    entry = build_instruction_skill("name", "desc", "content", "https://source")
    assert (entry.type, entry.status, entry.created_by, entry.source) == ("instruction", "active", "import", "https://source")
    assert entry.definition == {"content": "content"}


def test_source_and_allowed_tools_round_trip_through_the_store(store: FileSkillStore) -> None:
    store.save(build_instruction_skill("imp", "d", "Body", "https://example.com/imp", allowed_tools=["exec", "fs_read"]))
    store.save(build_script("local", "d", "echo hi", allowed_tools=["execute_command"]))
    imported, local = store.get("imp"), store.get("local")
    assert imported.source == "https://example.com/imp" and imported.allowed_tools == ("exec", "fs_read")
    assert local.source == "" and local.allowed_tools == ("execute_command",)
    assert local.definition["script"].strip() == "echo hi"
