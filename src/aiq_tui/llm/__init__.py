"""LLM providers: OpenAI-compatible, Anthropic, offline demo."""
