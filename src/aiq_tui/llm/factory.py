"""Build the provider a config names: ``create_provider(config, "openai")``.

Keys are read from the environment variable the config names (never from files), base URLs
from config, else the kind's environment variable, else the public default.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING

from aiq_tui.config import AppConfig, ProviderSettings
from aiq_tui.llm.base import Provider
from aiq_tui.llm.retry import OnRetry, Sleep

if TYPE_CHECKING:  # only HTTP providers need httpx; the demo starts without it
    import httpx


def resolve_key_env(settings: ProviderSettings) -> str | None:
    if settings.api_key_env:
        return settings.api_key_env
    if settings.kind == "openai":
        from aiq_tui.llm.openai import DEFAULT_KEY_ENV

        return DEFAULT_KEY_ENV
    if settings.kind == "anthropic":
        from aiq_tui.llm.anthropic import DEFAULT_KEY_ENV as ANTHROPIC_KEY_ENV

        return ANTHROPIC_KEY_ENV
    return None


def resolve_base_url(settings: ProviderSettings, env: Mapping[str, str]) -> str:
    if settings.base_url:
        return settings.base_url
    if settings.kind == "openai":
        from aiq_tui.llm import openai

        return env.get(openai.BASE_URL_ENV) or openai.DEFAULT_BASE_URL
    from aiq_tui.llm import anthropic

    return env.get(anthropic.BASE_URL_ENV) or anthropic.DEFAULT_BASE_URL


def create_provider(
    config: AppConfig,
    name: str | None = None,
    *,
    client: httpx.AsyncClient | None = None,
    env: Mapping[str, str] | None = None,
    on_retry: OnRetry | None = None,
    sleep: Sleep | None = None,
    rng: random.Random | None = None,
    demo_delay: float | None = None,
) -> Provider:
    """The provider called ``name`` (default: ``config.llm.provider``).

    ``client`` is used instead of a private httpx client (the caller then owns it);
    ``env`` replaces ``os.environ`` for keys and base URLs; ``sleep``/``rng`` make retries
    testable; ``demo_delay`` paces the demo's word-by-word streaming (seconds per chunk).
    Raises ValueError for an unknown name, listing the known ones.
    """
    chosen = name or config.llm.provider
    providers = config.llm.providers
    if chosen not in providers:
        raise ValueError(
            f"unknown provider {chosen!r}; known: {', '.join(sorted(providers))} "
            "(define more under llm.providers in config.yaml)"
        )
    settings = providers[chosen]
    environ = os.environ if env is None else env
    if settings.kind == "demo":
        from aiq_tui.llm.demo import DemoProvider

        return DemoProvider(
            name=chosen, model=settings.model or "aiq-demo", delay=demo_delay or 0.0
        )
    key_env = resolve_key_env(settings)
    api_key = environ.get(key_env) if key_env else None
    common = dict(
        api_key=api_key or None,
        key_env=key_env,
        base_url=resolve_base_url(settings, environ),
        client=client,
        on_retry=on_retry,
        sleep=sleep or asyncio.sleep,
        rng=rng,
    )
    if settings.kind == "openai":
        from aiq_tui.llm.openai import OpenAIProvider

        return OpenAIProvider(chosen, settings, **common)  # type: ignore[arg-type]
    from aiq_tui.llm.anthropic import AnthropicProvider

    return AnthropicProvider(chosen, settings, **common)  # type: ignore[arg-type]


def readiness_problem(
    config: AppConfig, name: str, env: Mapping[str, str] | None = None
) -> str | None:
    """Why provider ``name`` could not answer as configured (no API key…), or None: the
    provider's own readiness check, asked before Settings saves it (never sends anything —
    the client it is given is never used)."""
    try:
        provider = create_provider(config, name, env=env, client=_UNUSED_CLIENT)  # type: ignore[arg-type]
    except ValueError as exc:
        return str(exc)
    try:
        provider.check_ready()
    except Exception as exc:
        return str(exc)
    return None


_UNUSED_CLIENT = object()
"""Stands in for an httpx client where a provider is built only to run its readiness check."""
