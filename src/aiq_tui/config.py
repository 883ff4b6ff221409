"""The typed configuration model: every limit, threshold and default lives here, once.

``config/config.yaml`` in the config home is validated against :class:`AppConfig`;
``config/sources.yaml`` against :class:`SourcesFile`. Missing files mean defaults. A broken
file raises :class:`ConfigError` naming the file, the line (for YAML syntax) or the field
(for a wrong value) and what to do — callers show it instead of crashing.

The sections are ``msgspec`` structs (importing and building them costs a few ms, where a
pydantic model cost ~0.3 s of every start). Values from users are validated by
:func:`parse_settings` (files, the settings screen): types are strict — YAML already types
values, so ``keep_last: "5"`` is refused with a clear message rather than guessed at — and
ints are accepted where a number is expected. Building a section in code (``ContextSettings(
window=1000)``) runs only the cross-field checks (``__post_init__``), not the per-field
limits, and attributes are not re-validated on assignment: code that assigns a value a user
chose checks it there (``--provider``) or saves through :func:`parse_settings`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import Meta, Struct, field

from aiq_tui.locations import Home

Permission = Literal["allow", "ask", "deny"]
HarnessName = Literal[
    "claude-code", "codex", "copilot", "cursor", "gemini", "opencode", "agentskills"
]
"""The harness profiles ``harnesses`` may name (harnesses.py; a test holds the
two lists equal)."""

# Constrained numbers, by what they mean (``parse_settings`` enforces them).
PositiveInt = Annotated[int, Meta(gt=0)]
NonNegativeInt = Annotated[int, Meta(ge=0)]
PositiveFloat = Annotated[float, Meta(gt=0)]
NonNegativeFloat = Annotated[float, Meta(ge=0)]
Fraction = Annotated[float, Meta(ge=0, le=1)]
"""A share or a confidence: 0 … 1."""
PositiveFraction = Annotated[float, Meta(gt=0, le=1)]
"""A share of the window that must not be 0: (0, 1]."""
Cosine = Annotated[float, Meta(ge=-1, le=1)]


class _Section(Struct, kw_only=True, forbid_unknown_fields=True):
    # Unknown keys are errors: a typo in config.yaml must not be silently ignored (both
    # options are inherited by every section).
    pass


class SkillsSettings(_Section):
    enabled: bool = True
    """When false no skills are loaded and no skill tools are registered (seed 002)."""
    dirs: list[str] = field(default_factory=list)
    """Extra skill directories, highest precedence after ``--skills-dir``. Relative → the
    project directory (``--cwd`` / ``tools.cwd``, else the current directory), and then its
    skills are the project's: trusted only when the project is (``aiq-tui trust``)."""
    project_dirs: list[str] = field(
        default_factory=lambda: [".agents/skills", ".aiq/skills", ".claude/skills"]
    )
    """Project-local directories, resolved against the project directory, earlier ones winning a
    name clash; ``.claude/skills`` is where Claude Code keeps a project's skills. Their skills
    are trusted only when the project is (``aiq-tui trust``)."""
    include_user_agent_dirs: bool = True
    """Also read ``~/.claude/skills`` (``$CLAUDE_CONFIG_DIR/skills`` when set) and
    ``~/.agents/skills`` so existing skills just work."""
    harnesses: list[HarnessName] = field(default_factory=list)
    """Also read the skill folders of these harnesses (``claude-code``, ``codex``, ``copilot``,
    ``cursor``, ``gemini``, ``opencode``, ``agentskills``; ``aiq-tui sources list --harness
    NAME`` shows them): their project folders with the project's trust, their user folders as
    yours. ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME`` and ``XDG_CONFIG_HOME`` are honoured."""
    ancestor_dirs: bool = True
    """Also read each of ``project_dirs`` in the parent folders of the project up to its
    repository root (as Claude Code reads ``.claude/skills`` from where it starts up to the
    root), with the project's trust."""
    nested_dirs: bool = True
    """Also read each of ``project_dirs`` found in sub-folders of the project (a monorepo
    package's ``.claude/skills``), down to ``nested_depth`` levels, with the project's trust.
    Only inside a git repository."""
    nested_depth: PositiveInt = 3
    """How many folder levels below the project ``nested_dirs`` searches."""
    search_layouts: bool = True
    """Search a folder given with ``--skills-dir`` or in ``dirs`` in the layouts collections use
    (``skills/``, hidden ``.curated``/``.system``/``.experimental``, harness folders, plugin
    manifests, category folders 5 levels down); false reads only its direct sub-folders."""
    bundled: bool = True
    """Install the bundled default skills into the home's ``skills/`` on first run."""
    include: list[str] = field(default_factory=list)
    """When non-empty, only skills with these names are made available (seed 004)."""
    exclude: list[str] = field(default_factory=list)
    """Skills with these names are skipped during discovery (seed 004)."""
    max_skill_md_bytes: PositiveInt = 1_000_000
    """A SKILL.md larger than this is reported and skipped."""
    max_resource_bytes: PositiveInt = 50_000
    """A resource file larger than this is listed as rejected with a warning (seed 004)."""
    max_skill_bytes: PositiveInt = 5_000_000
    """Total size of one skill's resources; files past it are rejected with a warning."""
    max_resource_entries: PositiveInt = 2_000
    """Most entries (files and folders, listed or skipped) the walk of one skill's folder
    examines: it stops there, and the listing says so. A folder of 100,000 one-byte files is
    far under the size limits and would otherwise put a million-token file list in the prompt."""
    max_resource_depth: PositiveInt = 6
    """Most folder levels below a skill's folder the resource walk descends."""
    resource_include: list[str] = field(default_factory=lambda: ["**/*"])
    """Glob patterns (relative to the skill folder) a resource must match."""
    resource_exclude: list[str] = field(
        default_factory=lambda: [
            "**/.*",
            "**/.*/**",
            "**/__pycache__/**",
            "**/node_modules/**",
        ]
    )
    """Glob patterns of files never listed as resources."""
    watch: bool = True
    """Reload skills live (watchfiles) while the TUI runs."""


class MatchingSettings(_Section):
    top_k: PositiveInt = 3
    """How many skills a query loads (seed 000: top 3)."""
    context_messages: NonNegativeInt = 2
    """How many earlier user messages are added (down-weighted) to the query."""
    run_min_confidence: Fraction = 0.7
    """``aiq-tui run``: the confidence the best executable skill needs to run (seed 003)."""
    confidence_lead_margin: PositiveFraction = 0.5
    """Lead of the best score over the runner-up (share of the best) at which the top match
    gets its whole confidence; a smaller lead holds it nearer ``tie_confidence`` (issue 25)."""
    tie_confidence: Fraction = 0.65
    """Most confidence a match gets while another skill scores as well (or better): kept below
    disclosure.full_threshold, so two equally good skills are both briefed, neither loaded in full."""
    # -- semantic signal (issue 16; needs the `semantic` extra and `aiq-tui models install minilm`)
    semantic: Literal["auto", "on", "off"] | bool = "auto"
    """auto: use the embedding model when installed; on: same, and say so when it is not; off: keywords only.
    (Always one of the three words once built: YAML 1.1 reads a bare on/off as a boolean.)"""
    # The semantic_* ranking settings below (weight, saturation, floor, companion weight, adapter α,
    # similarity points) are chosen together on the tuning parts of the benchmark panel (bench/panel:
    # MetaTool, ToolLens, StableToolBench, the authored requests) by the best worst-set gain over
    # keyword matching, never on one benchmark.
    semantic_weight: Fraction = 0.35
    """Share of the scaled similarity in the fused score."""
    semantic_keyword_half: PositiveFloat = 40.0
    """Keyword score that counts as half the keyword evidence: kw′ = score / (score + this)."""
    semantic_floor: Cosine = 0.1
    """Cosine a skill sharing no query word needs to be a match at all."""
    semantic_brief_similarity: Cosine = 0.44
    """Cosine mapped to disclosure.brief_threshold (calibrated: at least the precision of a keyword
    brief on every panel set with enough keyword matches to say)."""
    semantic_full_similarity: Cosine = 0.56
    """Cosine mapped to disclosure.full_threshold (calibrated the same way against keyword full)."""
    semantic_lead_margin: PositiveFraction = 0.1
    """Lead of the best fused score over the runner-up at which the top hybrid match gets its whole
    confidence (as ``confidence_lead_margin`` does for keywords; fused scores lie in 0–1)."""
    semantic_companion_weight: Fraction = 0.3
    """Weight of the companion model's scaled similarity (`aiq-tui models install wordllama`),
    relative to MiniLM's, when both are installed; 0 leaves the companion out."""
    semantic_query_adapter: bool = True
    """Move each request's embedding with the query adapter shipped for its model (a linear map
    trained on tool-retrieval sets other than MetaTool; ranking/query_adapter.py) before comparing
    it with the skills; false compares the model's own vectors."""
    semantic_query_adapter_alpha: NonNegativeFloat = 0.5
    """How far the adapter moves a request, α: q·(I + α/α₀·(W′ − I)), where the shipped file holds
    α₀ (1.3 for MiniLM, as trained); 0 leaves requests as the model gives them. Chosen with the
    other semantic_* settings across the benchmark panel (bench/panel)."""

    def __post_init__(self) -> None:
        # YAML 1.1 reads a bare on/off as a boolean: `semantic: off` must still mean "off".
        if isinstance(self.semantic, bool):
            self.semantic = "on" if self.semantic else "off"


class DisclosureSettings(_Section):
    brief_threshold: Fraction = 0.15
    """Confidence at which a skill moves from metadata to brief (seed 003)."""
    full_threshold: Fraction = 0.7
    """Confidence at which a skill moves from brief to full (seed 003)."""
    brief_tokens: PositiveInt = 200
    """Target size of the brief phase."""
    description_max_chars: PositiveInt = 1536
    """The longest a catalog line's description ever is, in characters. 1,536 is what Claude Code
    sends, so a description its model sees whole is seen whole here too; the Agent Skills
    specification allows 1,024, and ``skills validate`` warns about a longer one."""
    descriptions_share: PositiveFraction = 0.055
    """Share of the window within which every catalog line carries its skill's whole description
    (up to ``description_max_chars``). A catalog that would take more
    has its longest descriptions shortened first, to one length found so that it fits, each
    keeping its exclusion clauses ("not for …"); ``context.catalog_share`` still bounds the
    catalog when that is smaller. 0.055: 450 tokens of the demo's 8,192 (about the seeds' 50 tokens
    for each of the nine bundled skills), 11,000 of 200,000."""
    metadata_min_tokens: PositiveInt = 50
    """The least a catalog line's description is shortened to, in tokens (about 4 characters each):
    the seeds' "~50 tokens per skill", what a small window gets. A catalog still too large then
    leaves its lowest-ranked lines out (``context.catalog_share``)."""
    metadata_tokens: NonNegativeInt | None = None
    """A fixed size for every catalog line's description, in tokens (about 4 characters each),
    whatever the window: 50 is the seeds' budget. None or 0: follow the window (above)."""
    resource_listing_tokens: PositiveInt = 1_500
    """Most tokens the resource listing in a skill loaded in full (and in ``use_skill``)'s text takes; the files past it are
    named by count ("… and 1,200 more")."""
    brief_ttl_seconds: NonNegativeFloat = 1800
    """Brief descriptions are cached this long (seed 003: 30 min)."""
    full_ttl_seconds: NonNegativeFloat = 900
    """Full bodies are cached this long (seed 003: 15 min)."""

    def __post_init__(self) -> None:
        if self.brief_threshold > self.full_threshold:
            raise ValueError("brief_threshold must not exceed full_threshold")


class ContextSettings(_Section):
    window: PositiveInt | None = None
    """Context window in tokens; None uses the active provider's own window."""
    reserve_output: NonNegativeInt = 1024
    """Tokens kept free for the model's answer."""
    catalog_share: PositiveFraction = 0.15
    """Largest share of the window the skills catalog may take."""
    skill_share: PositiveFraction = 0.25
    """Largest share of the window one loaded skill's text may take: past it the text is cut
    (and says so), so no single skill can leave the rest of the conversation no room."""
    compression: bool = True
    """False: never compress; a prompt larger than the window is refused with a message
    (``/compact`` still compacts when asked)."""
    compress_at: PositiveFraction = 0.80
    """Stage 1: clear older tool results to their extract, then summarise the oldest
    messages, keep ``keep_last``."""
    evict_at: PositiveFraction = 0.90
    """Stage 2: also evict Inactive, then Relevant skills."""
    aggressive_at: PositiveFraction = 0.95
    """Stage 3: summarise all but ``keep_last_aggressive``; keep only the top Active skill.
    A prompt still over the window then gets a shorter skills catalog before it is refused."""
    keep_last: PositiveInt = 10
    keep_last_aggressive: PositiveInt = 5
    summary_max_tokens: PositiveInt = 512
    """Cap on one compression summary."""
    summary_share: PositiveFraction = 0.5
    """A summary takes at most this share of the tokens it replaces (and at most
    ``summary_max_tokens``); the planner budgets that much for it."""
    encoding: str | None = None
    """tiktoken encoding name; None chooses by model (cl100k_base / o200k_base)."""

    def __post_init__(self) -> None:
        if not self.compress_at <= self.evict_at <= self.aggressive_at:
            raise ValueError(
                "thresholds must satisfy compress_at <= evict_at <= aggressive_at"
            )
        if self.keep_last_aggressive > self.keep_last:
            raise ValueError("keep_last_aggressive must not exceed keep_last")


class ProviderSettings(_Section):
    kind: Literal["openai", "anthropic", "demo"]
    """Wire protocol: OpenAI-compatible Chat Completions, Anthropic Messages, or offline demo."""
    model: str = ""
    base_url: str | None = None
    """None → the kind's env var (OPENAI_BASE_URL / ANTHROPIC_BASE_URL), then its default."""
    api_key_env: str | None = None
    """Name of the environment variable holding the key. Keys are never stored in files."""
    context_window: PositiveInt | None = None
    """Tokens; None → the model's known window (``aiq_tui.llm.windows``), else the kind's default."""
    max_output_tokens: PositiveInt = 1024
    timeout_seconds: PositiveFloat = 60
    idle_timeout_seconds: PositiveFloat = 120
    """The longest wait for the next streamed event before the attempt fails (and is retried)."""
    max_response_seconds: PositiveFloat = 600
    """One streamed answer may take this long; an endless stream is stopped."""
    max_retries: NonNegativeInt = 3
    max_tool_arguments_bytes: PositiveInt = 2_000_000
    """One tool call's arguments (JSON text) may be this large; a larger call is not kept — the
    model gets an error result for it, and the session stays small enough to continue."""
    max_tool_arguments_depth: Annotated[int, Meta(ge=1, le=400)] = 64
    """One tool call's arguments may nest this many levels (objects and arrays); a deeper call
    is answered with an error result the model sees, and the turn goes on. The session keeps
    the arguments, so this stays under ``sessions.max_json_depth`` (100) less the session's own
    10 levels — a session holding them can be read again. Python's ``json`` gives up near
    1,000 levels; at most 400 keeps far from that end."""
    max_reply_bytes: PositiveInt = 8_000_000
    """One streamed reply's text and tool-call arguments together (and any single event of it);
    past it the reply is cut: its tool calls come back to the model as error results."""
    summarise_with_model: bool = True
    """Use this provider to write compression summaries (deterministic fallback otherwise)."""


def _default_providers() -> dict[str, ProviderSettings]:
    return {
        # No context_window: each follows its model (llm.windows), so changing the model
        # changes the window.
        "demo": ProviderSettings(kind="demo", model="aiq-demo"),
        "openai": ProviderSettings(
            kind="openai", model="gpt-4o-mini", api_key_env="OPENAI_API_KEY"
        ),
        "anthropic": ProviderSettings(
            kind="anthropic", model="claude-sonnet-4-5", api_key_env="ANTHROPIC_API_KEY"
        ),
    }


class LLMSettings(_Section):
    provider: str = "demo"
    """Name of the provider (a key of ``providers``) used by default."""
    providers: dict[str, ProviderSettings] = field(default_factory=_default_providers)
    context_windows: dict[str, int] = field(default_factory=dict)
    """Your own context windows by model name (longest prefix wins, e.g. ``my-llama: 16384``);
    consulted before the built-in table of known models."""

    def __post_init__(self) -> None:
        # Your providers are added to the built-in ones (same name: yours wins).
        self.providers = {**_default_providers(), **self.providers}
        if self.provider not in self.providers:
            raise ValueError(
                f"provider {self.provider!r} is not defined; known: {', '.join(sorted(self.providers))}"
            )

    def active(self) -> ProviderSettings:
        return self.providers[self.provider]


def _default_permissions() -> dict[str, Permission]:
    # Read-only operations are allowed; anything that changes the world asks first.
    return {
        "use_skill": "allow",
        "skill": "allow",
        "tool_search": "allow",
        "file_read": "allow",
        "file_write": "ask",
        "http_get": "allow",
        "http_write": "ask",
        "sql_read": "allow",
        "sql_write": "ask",
        "execute_command": "ask",
        "execute_skill_script": "ask",
    }


class ToolSettings(_Section):
    permissions: dict[str, Permission] = field(default_factory=_default_permissions)
    """allow / ask / deny per permission key (see ``tools.policy``)."""
    command_allowlist: list[str] = field(
        default_factory=lambda: [
            "ls",
            "cat",
            "head",
            "tail",
            "wc",
            "grep",
            "echo",
            "pwd",
            "date",
            "whoami",
            "uname",
            "uniq",
            "cut",
            "du",
            "df",
            "file",
            "stat",
        ]
    )
    """Programs ``execute_command`` may run (an allowlist, never a blocklist). Interpreters and
    programs that run code through their arguments (python3, sh, sort, find, awk, …) are not in
    the default: add one only knowingly (the sandbox still confines it)."""
    shell_programs: list[str] = field(default_factory=list)
    """Shells allowed to run a command string (only with the user's approval)."""
    command_timeout_seconds: PositiveFloat = 30
    """An ``execute_command`` call running longer is stopped (the model may ask for less)."""
    command_output_bytes: PositiveInt = 64_000
    file_max_bytes: PositiveInt = 1_000_000
    file_list_max_entries: PositiveInt = 1000
    """A directory listing returns at most this many entries (and says it was capped)."""
    http_allowed_hosts: list[str] = field(default_factory=list)
    """Hosts http_request may reach without asking; any other host asks once per session."""
    http_timeout_seconds: PositiveFloat = 30
    http_max_bytes: PositiveInt = 1_000_000
    http_max_json_depth: Annotated[int, Meta(ge=1, le=400)] = 64
    """A JSON answer nested deeper than this is passed as text (``body``), not parsed (``json``):
    what is kept of it is dumped, drawn and saved again, each recursing once per level."""
    http_max_redirects: NonNegativeInt = 5
    sql_row_cap: PositiveInt = 200
    sql_cell_bytes: PositiveInt = 4000
    """A longer text/blob cell comes back cut at this many bytes (and says so)."""
    sql_timeout_seconds: PositiveFloat = 30
    """A statement running longer is stopped (SQLite progress handler, statement_timeout)."""
    sql_value_limit_bytes: PositiveInt = 16_000_000
    """SQLite refuses to build a larger string or blob (zeroblob(1e9) fails fast)."""
    script_timeout_seconds: PositiveFloat = 30
    """A script skill running longer is stopped (its process group killed), as commands are
    after ``command_timeout_seconds``."""
    cwd: str | None = None
    """The project directory (seed 004 ``cwd``): commands and script skills run in it,
    file_operations reads and writes relative to it, and relative skill directories
    (``skills.dirs``, ``skills.project_dirs``) resolve against it. ``~`` is expanded; a relative
    path is taken from where aiq-tui starts. None: where aiq-tui starts. ``--cwd`` overrides it."""
    template_timeout_seconds: PositiveFloat = 5
    """A template skill renders in a process of its own, stopped after this many seconds."""
    template_output_chars: PositiveInt = 200_000
    """A template rendering more text than this fails (the output would fill the context)."""
    template_memory_mb: PositiveInt = 256
    """Memory a template may build values in, beyond the renderer's own start-up size."""
    process_limit: PositiveInt = 64
    """Processes (and threads) one command or script may run at once; a fork bomb stops here."""
    memory_limit_mb: PositiveInt = 1024
    """Memory (data) each process of a command or script may take."""
    file_size_limit_mb: PositiveInt = 1024
    """The largest file a command or script may write."""

    def __post_init__(self) -> None:
        # Your permissions are added to the defaults (same key: yours wins).
        self.permissions = {**_default_permissions(), **self.permissions}


class DoctorSettings(_Section):
    """Thresholds of ``aiq-tui skills doctor`` (what counts as a collision or a hog)."""

    collision_margin: Annotated[float, Meta(ge=0, lt=1)] = 0.1
    """Another skill scoring within this share of a skill's own score on its description collides."""
    overlap_share: Annotated[float, Meta(gt=0, lt=1)] = 0.4
    """A rival scoring at least this share of a skill's own score overlaps it (noted, not an error)."""
    body_share: PositiveFraction = 0.25
    """A skill whose full load takes more than this share of the window is a budget hog."""
    catalog_scales: tuple[int, ...] = (50, 500, 5000)
    """Collection sizes at which the catalog cost is projected."""


class EvalSettings(_Section):
    """Trigger evals and the description tuner (``match --eval``, ``skills tune``); the
    defaults are skill-creator's ``run_loop`` defaults, so the two loops split and judge alike."""

    holdout: Annotated[float, Meta(ge=0, lt=1)] = 0.4
    """Share of each class (should / should not trigger) held out as the test set."""
    seed: int = 42
    """Seed of the train/test split (the same seed gives the same split)."""
    iterations: PositiveInt = 5
    """Rounds of ``skills tune``: each builds candidates from the best description's train failures."""
    runs: PositiveInt = 3
    """With ``--llm``: how many times each query is sent to the model."""
    trigger_rate: PositiveFraction = 0.5
    """With ``--llm``: a query counts as triggered when the model loads the skill in this share of runs."""
    concurrency: PositiveInt = 4
    """With ``--llm``: requests in flight at once."""
    max_file_bytes: PositiveInt = 1_000_000
    """A larger eval file (or one that is not a regular file: a FIFO, a link to a device) is
    refused, as a SKILL.md over ``skills.max_skill_md_bytes`` is."""


class SessionSettings(_Section):
    """Reading saved sessions (``sessions/session_<id>.json`` and its journal ``.jsonl``): a
    session file is input, never authority, so what is read of it is bounded."""

    max_file_bytes: PositiveInt = 64_000_000
    """A session file and its journal together may be this large; a larger one (or one that is
    not a regular file: a FIFO, a link to a device) is reported and not read — never
    overwritten. A 300-turn demo session is about 2 MB, and a turn's tool results are cut to
    ``tools.*_max_bytes`` (1 MB) and cleared by compression, so a genuinely long session stays
    well under 64 MB; a file past it would take seconds and gigabytes to read and fold."""
    max_json_depth: Annotated[int, Meta(ge=1, le=500)] = 100
    """A session nested deeper than this is reported and not read. aiq-tui's own structure is
    10 levels deep, so 100 leaves 90 for what a model nested in a tool call's arguments.
    Python's ``json`` gives up near 1,000 levels minus the caller's stack (so whether a file
    loads would depend on where it is read from), and re-saving or drawing a session recurses
    again: at most 500, far from that end."""


class AgentSettings(_Section):
    max_tool_rounds: PositiveInt = 25
    """Model calls per turn (each may call tools); the turn stops with a clear error past it."""
    skill_allowed_tools: Literal["preapprove", "restrict", "ignore"] = "preapprove"
    """What a skill's ``allowed-tools`` means: ``preapprove`` (default, as in Claude Code) runs
    matching calls without asking while the skill is in use after someone invoked it (``/skill``,
    ``use_skill``, a tool of the skill; a keyword match alone pre-approves nothing) — never
    overriding ``deny``, never for a shell string, a secret or a project MCP server's tool;
    ``restrict`` also blocks every other tool; ``ignore``."""


MCP_SERVER_NAME = r"^(?=.{1,40}$)[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$"
"""A server's name becomes part of its tools' names (``mcp__<server>__<tool>``), so no ``__`` in it."""


class McpServerSettings(_Section):
    """One MCP server: ``command`` (+ ``args``, ``env``) starts it over stdio; ``url`` (+ ``headers``)
    reaches it over streamable HTTP. Exactly one of the two."""

    command: str | None = None
    """The program that runs the server over stdio (``mcp-server-time``, ``uvx``, ``npx``…)."""
    args: list[str] = field(default_factory=list)
    """Its arguments."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment variables the server gets on top of the launcher's allowlist (PATH, HOME, LANG,
    LC_*, TERM, TZ): the parent's environment — API keys — is never passed whole. ``${VAR}`` takes
    a variable of yours by name."""
    cwd: str | None = None
    """Working directory of a stdio server (default: where aiq-tui runs)."""
    url: str | None = None
    """The server's streamable-HTTP endpoint (``https://host/mcp``)."""
    headers: dict[str, str] = field(default_factory=dict)
    """HTTP headers sent with every request (``Authorization: Bearer ${MY_TOKEN}``)."""
    transport: Literal["stdio", "http", "sse"] | None = None
    """Normally inferred (``command`` → stdio, ``url`` → http); ``sse`` for the older HTTP+SSE servers."""
    enabled: bool = True
    """A disabled server is listed but not started."""

    def __post_init__(self) -> None:
        if (self.command is None) == (self.url is None):
            raise ValueError(
                "give either `command` (a stdio server) or `url` (an HTTP server), not both or neither"
            )
        if self.command is not None and not self.command.strip():
            raise ValueError("`command` is empty")
        if self.transport is None:
            self.transport = "stdio" if self.command is not None else "http"
        elif (self.transport == "stdio") != (self.command is not None):
            raise ValueError(
                f"transport {self.transport!r} does not fit "
                f"{'`command`' if self.command is not None else '`url`'}"
            )


class McpSettings(_Section):
    """MCP servers whose tools the agent may call (as ``mcp__<server>__<tool>``). Their permission is
    ``ask`` unless ``tools.permissions`` names the server (``mcp__time: allow``) or the tool
    (``mcp__time__get_current_time: deny``)."""

    servers: dict[Annotated[str, Meta(pattern=MCP_SERVER_NAME)], McpServerSettings] = (
        field(default_factory=dict)
    )
    """Your servers by name (letters, digits, ``-`` and ``_``); ``aiq-tui mcp add`` writes here."""
    project_servers: bool = True
    """Read the project's ``.mcp.json`` (Claude Code's format). Its servers start only in a trusted
    project or once you approve each one."""
    project_file_max_bytes: PositiveInt = 1_000_000
    """A larger ``.mcp.json`` (or one that is not a regular file) is reported and not read."""
    startup_timeout_seconds: PositiveFloat = 30
    """A server not ready this long after its start is reported and left out."""
    call_timeout_seconds: PositiveFloat = 120
    """One tool call may take this long; then it fails (the server stays up)."""
    completion_timeout_seconds: PositiveFloat = 2
    """How long the prompt waits for a server's ``completion/complete`` values (typing ``@`` or
    ``/mcp__``); a slower or failing server offers none."""
    completion_value_max_chars: PositiveInt = 200
    """A server's completion value longer than this is left out of the list."""
    result_max_bytes: PositiveInt = 64_000
    """A tool result is cut to this many bytes of text before it reaches the model (and says so)."""
    resource_max_bytes: PositiveInt = 64_000
    """A server's resource (read by the model, or attached with ``@server:uri``) or prompt is cut
    to this many bytes of text (and says so)."""
    sampling: bool = False
    """Let servers use the session's model (MCP sampling): each request is asked first like a tool
    call (refused headless unless ``--yes``). False: not offered to servers; their requests are refused."""
    sampling_max_tokens: PositiveInt = 1024
    """A sampling answer's output limit (the server's own ``maxTokens`` when smaller)."""
    tools_share: PositiveFraction = 0.15
    """Largest share of the window MCP tool definitions may take; tools past it are not offered
    up front (and named in the warnings) so a server with many tools cannot crowd out the skills."""
    tool_search: bool = True
    """When tools are left out by ``tools_share``, offer ``tool_search``: the model finds them by
    a query and they are offered from its next request on (as Claude Code's tool search).
    False: tools past the share stay out of reach."""
    tool_search_results: PositiveInt = 5
    """Most tools one ``tool_search`` call returns (and offers)."""
    subscribe_resources: bool = True
    """Watch the resources the conversation uses (attached with ``@server:uri`` or read by the
    model) on servers that declare ``resources.subscribe``: a changed one is announced, and your
    next message carries its fresh text (attached) or tells the model (read). False: never subscribe."""
    max_subscriptions: Annotated[int, Meta(ge=0, le=1000)] = 32
    """Most resources watched at once (per conversation, all servers together); past it the least
    recently used one stops being watched. 0: none."""


class UISettings(_Section):
    theme: str = "textual-dark"
    show_banner: bool = True
    history_size: NonNegativeInt = 500
    """Prompt lines kept across runs in ``data/prompt-history`` (0 keeps none)."""
    typing_grace: NonNegativeFloat = 1.0
    """Seconds a key counts as typing: an approval dialog takes no key as its answer for this
    long after it opens, nor until typing has stopped this long — keys typed meanwhile go to the
    prompt, where they were meant to go (0: off)."""
    demo_turn_pause: NonNegativeFloat = 0.3
    """Seconds between the turns of ``/demo`` so each one can be watched (0 in tests)."""
    demo_step_seconds: NonNegativeFloat = 1.5
    """The step-through ``/demo``'s pace when Space plays it: seconds per step (0: as fast as
    the screen draws, which is the live view)."""


class TelemetrySettings(_Section):
    """OpenTelemetry export of every turn (issue 26): off unless an endpoint is set, here or in
    ``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``; needs the
    ``telemetry`` extra (``pip install 'aiq-tui[telemetry]'``). Spans go over OTLP/HTTP
    (protobuf) in the background: a slow or absent collector never holds a turn up.
    ``OTEL_TRACES_EXPORTER=console`` prints them instead (headless commands, on stderr)."""

    enabled: bool | None = None
    """None: export when an endpoint is set (here or in the environment); false: never, whatever
    the environment says; true: export, to ``http://localhost:4318`` when no endpoint is set.
    ``OTEL_SDK_DISABLED=true`` turns it off in any case."""
    endpoint: str | None = None
    """Base URL of an OTLP/HTTP collector, e.g. ``http://localhost:4318``; spans are posted to
    ``<endpoint>/v1/traces``. None: ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (the full URL), else
    ``OTEL_EXPORTER_OTLP_ENDPOINT`` (a base URL)."""
    headers: dict[str, str] = field(default_factory=dict)
    """Request headers for the collector (authentication), added to ``OTEL_EXPORTER_OTLP_HEADERS``
    (a name in both: this one wins). Values may reference environment variables as ``${VAR}`` or
    ``${VAR:-default}`` so that no secret needs to be in this file; aiq-tui never writes them anywhere."""
    service_name: str | None = None
    """``service.name`` of the exported resource; None: ``OTEL_SERVICE_NAME``, else the
    ``service.name`` in ``OTEL_RESOURCE_ATTRIBUTES``, else ``aiq-tui``. ``OTEL_RESOURCE_ATTRIBUTES``
    adds attributes of your own."""
    log_content: bool | None = None
    """Also export contents: the user's message, the answer, each model request's input
    messages, system instructions, tool definitions and output, tool arguments, results and
    summaries (Claude Code's ``OTEL_LOG_USER_PROMPTS``). None:
    ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` turns it on; off: names, token
    figures, durations, states and reasons only."""
    content_max_chars: PositiveInt = 4096
    """With ``log_content``, a longer content attribute is cut to this many characters."""
    flush_timeout_seconds: PositiveFloat = 1.0
    """When a command or the app ends, the longest wait for spans not yet delivered; a collector
    that has not answered by then is given up on (said once, on stderr or in the app)."""

    def __post_init__(self) -> None:
        if self.endpoint is not None and not self.endpoint.startswith(
            ("http://", "https://")
        ):
            raise ValueError(
                f"endpoint must be an http:// or https:// URL (got {self.endpoint!r}), "
                "e.g. http://localhost:4318"
            )


class InstallSettings(_Section):
    """``skills install | update | check`` (docs/installing.md)."""

    max_bytes: PositiveInt = 50_000_000
    """Most bytes one fetch may bring into the git cache (objects and checked-out files)."""
    max_files: PositiveInt = 5_000
    """Most files the skills chosen from one repository may hold."""
    timeout_seconds: PositiveFloat = 120.0
    """One deadline for each fetch of a repository, every git command included."""
    github_url: str = "https://github.com"
    """Where ``owner/repo`` is fetched from (a GitHub Enterprise server, or a mirror)."""


class AppConfig(_Section):
    skills: SkillsSettings = field(default_factory=SkillsSettings)
    matching: MatchingSettings = field(default_factory=MatchingSettings)
    disclosure: DisclosureSettings = field(default_factory=DisclosureSettings)
    context: ContextSettings = field(default_factory=ContextSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    tools: ToolSettings = field(default_factory=ToolSettings)
    agent: AgentSettings = field(default_factory=AgentSettings)
    ui: UISettings = field(default_factory=UISettings)
    doctor: DoctorSettings = field(default_factory=DoctorSettings)
    mcp: McpSettings = field(default_factory=McpSettings)
    evals: EvalSettings = field(default_factory=EvalSettings)
    sessions: SessionSettings = field(default_factory=SessionSettings)
    telemetry: TelemetrySettings = field(default_factory=TelemetrySettings)
    install: InstallSettings = field(default_factory=InstallSettings)


class SourceSettings(_Section):
    engine: Literal["sqlite", "postgresql", "mysql"] = "sqlite"
    path: str | None = None
    """SQLite file (relative → config home)."""
    dsn: str | None = None
    """Connection string for server engines; may reference env vars as ``${VAR}``."""
    read_only: bool = True
    description: str = ""


class SourcesFile(_Section):
    default: str | None = None
    sources: dict[str, SourceSettings] = field(default_factory=dict)


class ConfigError(Exception):
    """A config file (or the settings being saved to it) could not be used. ``str()`` is a
    complete, user-facing message; ``field`` is the dotted setting (``context.keep_last``,
    ``llm.providers.local.kind``) and ``message`` says what is wrong with it."""

    def __init__(
        self,
        path: Path,
        message: str,
        line: int | None = None,
        field: str | None = None,
    ):
        self.path, self.line, self.field, self.message = path, line, field, message
        where = f"{path}:{line}" if line else str(path)
        what = f" [{field}]" if field else ""
        super().__init__(f"{where}{what}: {message}")


def read_yaml_mapping(path: Path) -> dict[str, Any]:
    """Parse a YAML file that must hold a mapping; empty or missing → ``{}``."""
    if not path.exists():
        return {}
    import yaml  # only when there is a file: a home without config.yaml starts without it

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8-sig"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(
            path, f"invalid YAML: {problem}. Fix the syntax on that line.", line
        ) from exc
    except (
        RecursionError
    ):  # PyYAML's composer recurses per level: 100,000 `[` run out of stack
        raise ConfigError(
            path, "invalid YAML: nested too deeply. Fix the file."
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, f"cannot read file: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            path, f"expected a mapping of settings, found {type(data).__name__}"
        )
    return data


SectionT = TypeVar("SectionT", bound=_Section)

_NO_FILE = Path("config.yaml")


def parse_settings(
    model: type[SectionT], data: dict[str, Any], path: Path = _NO_FILE
) -> SectionT:
    """``data`` (parsed YAML) checked against ``model`` — types, limits, cross-field rules —
    or :class:`ConfigError` naming ``path``, the first wrong setting and what is wrong."""
    try:
        return msgspec.convert(data, model)
    except msgspec.ValidationError as exc:
        from aiq_tui.config_errors import (
            explain,
        )  # only a broken file pays for the wording

        field_path, message = explain(exc, model, data)
        raise ConfigError(path, message, field=field_path) from exc


def validate_config(data: dict[str, Any], path: Path = _NO_FILE) -> AppConfig:
    """A whole ``config.yaml`` mapping as an :class:`AppConfig` (see :func:`parse_settings`)."""
    return parse_settings(AppConfig, data, path)


def load_config(home: Home) -> AppConfig:
    """``config/config.yaml`` validated, or defaults when it does not exist."""
    return validate_config(read_yaml_mapping(home.config_file), home.config_file)


def load_sources(home: Home) -> SourcesFile:
    """``config/sources.yaml`` validated; the bundled sample database is always available."""
    sources = parse_settings(
        SourcesFile, read_yaml_mapping(home.sources_file), home.sources_file
    )
    if "sample" not in sources.sources:
        sources.sources["sample"] = SourceSettings(
            engine="sqlite",
            path=str(home.sample_database),
            read_only=True,
            description="Bundled sample database (a small bookshop: customers, orders, products)",
        )
    if sources.default is None:
        sources.default = "sample"
    return sources
