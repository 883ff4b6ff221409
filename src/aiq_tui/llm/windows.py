"""Context windows: which window a provider's model has, and where that number came from.

One home for the fact. :func:`resolve_window` answers, in order:

1. ``context.window`` in config.yaml (a global override) → source ``config``;
2. ``llm.providers.<name>.context_window`` → ``config``;
3. ``llm.context_windows`` (the user's own table, model-name prefix → tokens) → ``config``;
4. :data:`KNOWN_WINDOWS`, the maintained table below → ``known model``;
5. the provider kind's default (:data:`KIND_DEFAULTS`) → ``provider default``.

Model names match by their longest known prefix, ignoring case, a vendor prefix
(``openai/gpt-4o``, ``meta-llama/Llama-3.1-8B``) and punctuation, so ``llama3.1:8b``,
``Llama-3.1-70B-Instruct`` and ``llama3.1`` all find ``llama3.1``.

A local server may run a model with a smaller window than the model supports (Ollama's
``num_ctx``, llama.cpp's ``--ctx-size``): then set ``context_window`` for that provider.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiq_tui.config import AppConfig

# Reviewed 2025-2026 against the vendors' model pages; tokens of input + output the API accepts.
KNOWN_WINDOWS: Mapping[str, int] = {
    # OpenAI
    "gpt-5": 400_000,
    "gpt-5-chat": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "chatgpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4-1106": 128_000,
    "gpt-4-0125": 128_000,
    "gpt-4-32k": 32_768,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "o1": 200_000,
    "o1-mini": 128_000,
    "o1-preview": 128_000,
    "o3": 200_000,
    "o3-mini": 200_000,
    "o4-mini": 200_000,
    "gpt-oss": 131_072,
    # Anthropic (the 1M-token Sonnet window is a beta that needs a header: not the default)
    "claude": 200_000,
    "claude-2.0": 100_000,
    "claude-instant": 100_000,
    # Open models, at the window they were trained for
    "llama2": 4_096,
    "llama3": 8_192,
    "llama3.1": 131_072,
    "llama3.2": 131_072,
    "llama3.3": 131_072,
    "llama4": 1_048_576,
    "qwen2": 32_768,
    "qwen2.5": 32_768,
    "qwen3": 40_960,
    "qwq": 131_072,
    "mistral": 32_768,
    "mistral-nemo": 131_072,
    "mistral-large": 131_072,
    "mistral-small": 32_768,
    "mistral-small3": 131_072,
    "mixtral": 32_768,
    "codestral": 32_768,
    "gemma": 8_192,
    "gemma2": 8_192,
    "gemma3": 131_072,
    "gemma3:1b": 32_768,
    "phi3": 4_096,
    "phi3.5": 131_072,
    "phi4": 16_384,
    "deepseek-r1": 131_072,
    "deepseek-v3": 131_072,
    "deepseek-chat": 131_072,
    "deepseek-coder-v2": 163_840,
    "command-r": 131_072,
}

KIND_DEFAULTS: Mapping[str, int] = {
    "demo": 8_192,
    "anthropic": 200_000,
    "openai": 8_192,
}
"""When nothing names the model: the demo's own window; every current Claude model has 200k;
an unknown OpenAI-compatible model (often a local one) gets a window that is safe everywhere."""

FALLBACK_WINDOW = 8_192

CONFIG, KNOWN, PROVIDER_DEFAULT = "config", "known model", "provider default"


@dataclass(frozen=True)
class ContextWindow:
    """A window in tokens, the model it is for, and where the number came from."""

    tokens: int
    source: str  # "config" | "known model" | "provider default" | "--window"
    model: str = ""
    setting: str = ""  # for "config": which setting, e.g. "context.window"

    @property
    def label(self) -> str:
        """``200,000 (claude-sonnet-4-5 · known model)``, ``32,000 (gpt-4o · config: context.window)``."""
        source = f"{self.source}: {self.setting}" if self.setting else self.source
        return (
            f"{self.tokens:,} ({self.model} · {source})"
            if self.model
            else f"{self.tokens:,} ({source})"
        )


def _key(name: str) -> str:
    """Lower case, without a vendor prefix, letters and digits only (``:`` kept for size tags)."""
    base = name.strip().lower().rsplit("/", 1)[-1]
    return re.sub(r"[^a-z0-9:]", "", base)


def lookup(model: str, table: Mapping[str, int]) -> tuple[str, int] | None:
    """The longest prefix of ``model`` in ``table`` as ``(entry, tokens)``, or None."""
    key = _key(model)
    if not key:
        return None
    best: tuple[str, int] | None = None
    for entry, tokens in table.items():
        pattern = _key(entry)
        if key.startswith(pattern) and (
            best is None or len(pattern) > len(_key(best[0]))
        ):
            best = (entry, tokens)
    return best


def known_window(model: str) -> int | None:
    """The window of a model in :data:`KNOWN_WINDOWS`, or None for a model it does not list."""
    found = lookup(model, KNOWN_WINDOWS)
    return found[1] if found else None


def resolve_window(
    config: AppConfig, provider: str | None = None, model: str | None = None
) -> ContextWindow:
    """The window for ``provider`` (default: the active one) running ``model`` (default: the
    provider's configured model), with its source."""
    name = provider or config.llm.provider
    settings = config.llm.providers.get(name)
    model = (
        model if model is not None else (settings.model if settings is not None else "")
    )
    if config.context.window:
        return ContextWindow(config.context.window, CONFIG, model, "context.window")
    if settings is not None and settings.context_window:
        return ContextWindow(
            settings.context_window,
            CONFIG,
            model,
            f"llm.providers.{name}.context_window",
        )
    own = lookup(model, config.llm.context_windows) if model else None
    if own is not None:
        return ContextWindow(own[1], CONFIG, model, "llm.context_windows")
    known = known_window(model) if model else None
    if known is not None and (settings is None or settings.kind != "demo"):
        return ContextWindow(known, KNOWN, model)
    kind = settings.kind if settings is not None else ""
    return ContextWindow(
        KIND_DEFAULTS.get(kind, FALLBACK_WINDOW), PROVIDER_DEFAULT, model
    )
