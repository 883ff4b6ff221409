"""aiq-tui: a terminal workbench for AI agent skills."""

__version__ = "0.1.0"
