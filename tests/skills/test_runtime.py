"""The one skill runtime beyond the seeds: templates in a sandbox, imports with limits, status
edits that keep the file, the approval showing the script, and ``prompt`` == the engine's prompt."""

from __future__ import annotations

import http.server
import io
import json
import threading
import zipfile
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.config import AppConfig
from aiq_tui.conversation import ToolCall
from aiq_tui.skills.definition import definition_from_body
from aiq_tui.skills.executor import SkillExecutionError
from aiq_tui.skills.imported import source_of
from aiq_tui.skills.importer import ImportError_, import_skills
from aiq_tui.skills.store import SkillEntry, StoreError, set_frontmatter_field
from aiq_tui.skills.template_render import go_to_jinja, render_template
from aiq_tui.tools.base import Decision
from aiq_tui.workspace import Workspace


def write(root: Path, name: str, front: str = "", body: str = "Body.\n") -> Path:
    (root / name).mkdir(parents=True, exist_ok=True)
    path = root / name / "SKILL.md"
    path.write_text(
        f"---\nname: {name}\ndescription: The {name} skill\n{front}---\n{body}"
    )
    return path


# -- templates --------------------------------------------------------------------------------


async def test_go_and_jinja_templates_render_with_conditionals_and_loops() -> None:
    go = "v{{.version}}:{{if .ok}} yes{{else}} no{{end}}{{range .items}} [{{.}}]{{end}}"
    assert (
        await render_template(go, {"version": "1", "ok": False, "items": ["a", "b"]})
        == "v1: no [a] [b]"
    )
    jinja = "{% for x in items %}{{ x | upper }}{% endfor %}{{ name }}"
    assert await render_template(jinja, {"items": ["a"], "name": "!"}) == "A!"
    assert (
        go_to_jinja("{{range .people}}{{.name}}{{end}}")
        == "{% for __it in people %}{{ __it.name }}{% endfor %}"
    )


async def test_template_missing_parameter_is_a_clear_error_and_defaults_fill_in() -> (
    None
):
    with pytest.raises(SkillExecutionError, match="missing template parameter 'who'"):
        await render_template("Hi {{.who}}", {})
    assert (
        await render_template("Hi {{.who}}", {}, {"who": {"default": "there"}})
        == "Hi there"
    )


@pytest.mark.parametrize(
    "attack",
    [
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ cycler.__init__.__globals__.os.system('id') }}",
    ],
)
async def test_template_sandbox_refuses_python_internals(attack: str) -> None:
    with pytest.raises(SkillExecutionError):
        await render_template(attack, {})


def test_fenced_block_definitions_of_each_type() -> None:
    assert definition_from_body("script", "x\n```bash\necho 1\n```\n") == {
        "script": "echo 1\n"
    }
    assert definition_from_body("template", "```template\nHi {{.a}}\n```") == {
        "template": "Hi {{.a}}"
    }
    assert definition_from_body("composite", '```json\n[{"tool": "t"}]\n```') == {
        "steps": [{"tool": "t"}]
    }
    assert definition_from_body("instruction", "```sh\nx\n```") == {}


# -- status edits -----------------------------------------------------------------------------


def test_set_status_keeps_comments_order_and_body() -> None:
    text = "---\nname: x  # the name\ndescription: d\nstatus: draft\ntags:\n  - a\n---\n# Body\n"
    assert (
        set_frontmatter_field(text, "status", "active")
        == "---\nname: x  # the name\ndescription: d\nstatus: active\ntags:\n  - a\n---\n# Body\n"
    )
    assert (
        set_frontmatter_field("---\nname: x\n---\nB\n", "status", "inactive")
        == "---\nname: x\nstatus: inactive\n---\nB\n"
    )


def test_disable_and_enable_from_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    Workspace.open()
    assert main(["skills", "disable", "sql-explorer"]) == 0
    assert "sql-explorer" not in Workspace.open().catalog
    assert main(["skills", "list"]) == 0 and "inactive" in capsys.readouterr().out
    assert main(["skills", "enable", "sql-explorer"]) == 0
    assert "sql-explorer" in Workspace.open().catalog
    assert main(["skills", "disable", "no-such-skill"]) == 2


# -- import -----------------------------------------------------------------------------------


def _zip(entries: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_import_refuses_zip_slip_and_dangerous_scripts(tmp_path: Path) -> None:
    (tmp_path / "slip.zip").write_bytes(_zip({"../evil/SKILL.md": "x"}))
    with pytest.raises(ImportError_, match="leaves the archive"):
        import_skills(str(tmp_path / "slip.zip"), tmp_path / "skills", AppConfig())
    write(tmp_path / "src", "wipe", "type: script\nscript: rm -rf /\n")
    with pytest.raises(ImportError_, match="dangerous"):
        import_skills(str(tmp_path / "src" / "wipe"), tmp_path / "skills", AppConfig())
    assert not (tmp_path / "skills" / "wipe").exists()


def test_import_a_zip_of_several_skills_and_refuse_to_overwrite(tmp_path: Path) -> None:
    data = _zip(
        {
            "pack/a/SKILL.md": "---\nname: a\ndescription: A\n---\n",
            "pack/b/SKILL.md": "---\nname: b\ndescription: B\n---\n",
            "pack/b/ref.md": "r",
        }
    )
    (tmp_path / "pack.zip").write_bytes(data)
    imported = import_skills(
        str(tmp_path / "pack.zip"), tmp_path / "skills", AppConfig()
    )
    assert [name for name, _ in imported] == ["a", "b"] and (
        tmp_path / "skills" / "b" / "ref.md"
    ).is_file()
    with pytest.raises(ImportError_, match="already exists"):
        import_skills(str(tmp_path / "pack.zip"), tmp_path / "skills", AppConfig())


def test_import_from_a_url_records_the_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = b"---\nname: remote\ndescription: Served over HTTP\n---\nBody\n"

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/SKILL.md"
        assert main(["skills", "import", url, "--json"]) == 0
    finally:
        server.shutdown()
    assert json.loads(capsys.readouterr().out)["imported"][0]["name"] == "remote"
    workspace = Workspace.open()
    assert source_of(workspace.catalog.get("remote"), workspace.home) == url


# -- tools ------------------------------------------------------------------------------------


async def test_script_approval_shows_the_script_and_allowed_tools_never_frees_it(
    tmp_path: Path,
) -> None:
    from aiq_tui.agent.engine import Engine

    home = Workspace.open().home
    write(
        home.skills_dir,
        "hello",
        "type: script\n",
        "```sh\necho hello-from-script\n```\n",
    )
    engine = Engine.create(Workspace.open())
    seen = []

    async def approver(request):
        seen.append(request)
        return Decision.ALLOW_ONCE

    result = await engine.tools.invoke(
        ToolCall("c", "skill_hello", {}), approver, lambda e: None
    )
    assert result.ok and result.content["stdout"] == "hello-from-script\n"
    assert (
        seen[0].permission == "execute_skill_script"
        and "echo hello-from-script" in seen[0].detail
    )
    # A skill's allowed-tools that does not name the script never pre-approves it: it asks.
    seen.clear()
    await engine.tools.invoke(
        ToolCall("d", "skill_hello", {}), approver, lambda e: None, ("execute_sql",)
    )
    assert [r.permission for r in seen] == ["execute_skill_script"]
    # With agent.skill_allowed_tools: restrict, a script is not a free pass either.
    engine.tools.skill_allowed_tools = "restrict"
    denied = await engine.tools.invoke(
        ToolCall("e", "skill_hello", {}), approver, lambda e: None, ("execute_sql",)
    )
    assert not denied.ok and "allows only" in denied.error


def test_prompt_is_the_engines_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    """``prompt`` and ``ask`` report the same breakdown for the same query and state."""
    question = "how many customers are there?"
    assert main(["prompt", question, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert main(["ask", "--json", question]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    sent = next(e["breakdown"] for e in events if e["type"] == "budget_changed")
    keys = (
        "system",
        "catalog",
        "skills",
        "history",
        "tool_results",
        "reserve",
        "total",
    )
    assert {k: shown["breakdown"][k] for k in keys} == {k: sent[k] for k in keys}
    assert not [
        t
        for t in shown["tools"]
        if t.startswith("skill_")
        and t.removeprefix("skill_") not in {s["name"] for s in shown["skills"]}
    ]


async def test_script_parameters_are_values_never_code(tmp_path: Path) -> None:
    from aiq_tui.agent.engine import Engine
    from aiq_tui.tools.registry import approve_all

    home = Workspace.open().home
    marker = tmp_path / "pwned"
    write(
        home.skills_dir,
        "echo-name",
        "type: script\nparameters:\n  name: {type: string, description: who}\n",
        '```sh\necho "hello $SKILL_NAME"\n```\n',
    )
    engine = Engine.create(Workspace.open())
    evil = f"$(touch {marker}); `touch {marker}`"
    result = await engine.tools.invoke(
        ToolCall("c", "skill_echo-name", {"name": evil}), approve_all, lambda e: None
    )
    assert result.ok and result.content["stdout"] == f"hello {evil}\n"
    assert not marker.exists()
    assert result.content["sandbox"]  # the launcher reports how it was contained


@pytest.mark.parametrize("kind", ["script", "template", "composite"])
def test_skills_new_scaffolds_each_executable_type_valid_and_runnable(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "skills",
                "new",
                f"my-{kind}",
                "--type",
                kind,
                "--dir",
                str(tmp_path),
                "--description",
                f"A starter {kind} skill",
            ]
        )
        == 0
    )
    assert main(["skills", "validate", str(tmp_path / f"my-{kind}")]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "run",
                f"my-{kind}",
                "--skills-dir",
                str(tmp_path),
                "-p",
                "who=you",
                "--yes",
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert (report["ran"], report["type"], report["ok"]) == (f"my-{kind}", kind, True)


def test_a_fenced_dangerous_script_is_a_blocked_skill_with_a_warning() -> None:
    home = Workspace.open().home
    write(
        home.skills_dir,
        "sneaky",
        "type: script\n",
        "Cleans up.\n\n```sh\nX=/\nrm -rf $X\n```\n",
    )
    workspace = Workspace.open()
    assert "sneaky" not in workspace.catalog
    assert any(
        "sneaky" in str(p.path) and "blocked" in p.message for p in workspace.problems
    )


def test_import_a_plain_markdown_document_as_an_instruction_skill(
    tmp_path: Path,
) -> None:
    (tmp_path / "deploy-guide.md").write_text(
        "# Deploying the app\n\nRun make deploy.\n"
    )
    [(name, path)] = import_skills(
        str(tmp_path / "deploy-guide.md"), tmp_path / "skills", AppConfig()
    )
    text = path.read_text()
    assert (
        name == "deploy-guide"
        and "description: Deploying the app" in text
        and "created-by: import" in text
    )
    assert "Run make deploy." in text and "source:" not in text


async def test_script_timeout_kills_it_and_secrets_never_reach_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from aiq_tui.agent.engine import Engine
    from aiq_tui.tools.registry import approve_all

    home = Workspace.open().home
    (home.config_dir / "config.yaml").write_text(
        "tools:\n  script_timeout_seconds: 1\n"
    )
    write(home.skills_dir, "env-dump", "type: script\n", "```sh\nenv\n```\n")
    write(home.skills_dir, "sleeper", "type: script\n", "```sh\nsleep 30\n```\n")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    engine = Engine.create(Workspace.open())
    dumped = await engine.tools.invoke(
        ToolCall("e", "skill_env-dump", {}), approve_all, lambda e: None
    )
    assert dumped.ok and "secret" not in dumped.content["stdout"]
    names = {
        line.split("=", 1)[0]
        for line in dumped.content["stdout"].splitlines()
        if "=" in line
    }
    assert "PATH" in names and not any(n.endswith(("_KEY", "_TOKEN")) for n in names)
    slept = await engine.tools.invoke(
        ToolCall("s", "skill_sleeper", {}), approve_all, lambda e: None
    )
    assert not slept.ok and slept.content["timed_out"] and "timed out" in slept.error


# -- executable skills whose definition is missing or unsafe ------------------------------------


@pytest.mark.parametrize(
    ("kind", "field"),
    [("composite", "steps"), ("script", "script"), ("template", "template")],
)
def test_an_executable_skill_without_its_definition_is_reported_by_discovery_and_never_a_tool(
    kind: str, field: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from aiq_tui.agent.engine import Engine

    home = Workspace.open().home
    write(home.skills_dir, "hollow", f"type: {kind}\n", "Only prose, no definition.\n")
    workspace = Workspace.open()
    assert "hollow" not in workspace.catalog
    [problem] = [p for p in workspace.problems if "hollow" in str(p.path)]
    assert (
        problem.field == field
        and "skipped" in problem.message
        and f"`{field}:`" in (problem.hint or "")
    )
    engine = Engine.create(workspace)
    assert "skill_hollow" not in engine.tools
    assert "hollow" not in engine.current_prompt().system
    capsys.readouterr()
    assert main(["skills", "list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert "hollow" not in {row["name"] for row in listing["skills"]}
    assert any(
        row.get("field") == field and "hollow" in row["path"]
        for row in listing["problems"]
    )


def test_validate_hints_at_removing_a_dangerous_command_from_its_fenced_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "sneaky", "type: script\n", "Cleans up.\n\n```sh\nrm -rf /\n```\n")
    capsys.readouterr()
    assert main(["skills", "validate", str(tmp_path / "sneaky"), "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["skills"][0]["problems"]
    [problem] = [
        p for p in problems if p["severity"] == "error"
    ]  # (`type` also warns: not in the specification)
    assert problem["field"] == "script" and "dangerous" in problem["message"]
    assert (
        "remove" in problem["hint"]
        and "```sh block" in problem["hint"]
        and "put the" not in problem["hint"]
    )


@pytest.mark.parametrize(
    "entry",
    [
        SkillEntry("no-steps", "A composite without steps", "composite", definition={}),
        SkillEntry("wipe", "Cleans up", "script", definition={"script": "rm -rf /\n"}),
        SkillEntry(
            "no-template",
            "A template without one",
            "template",
            definition={"content": "prose"},
        ),
    ],
    ids=["composite-without-steps", "dangerous-script", "template-without-template"],
)
def test_catalog_save_validates_as_the_cli_does_and_writes_nothing_invalid(
    entry: SkillEntry,
) -> None:
    workspace = Workspace.open()
    with pytest.raises(StoreError, match="not saved"):
        workspace.catalog.save(entry)
    assert not (workspace.home.skills_dir / entry.name).exists()
    assert workspace.catalog.find(entry.name) is None
