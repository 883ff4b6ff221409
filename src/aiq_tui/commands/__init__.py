"""Headless subcommands of ``aiq-tui``; one module per command group, each with ``register``."""
