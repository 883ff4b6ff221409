"""The Textual workbench. Nothing in the core imports this package."""
