"""Widgets of the main screen: each renders what the engine sends and does no I/O."""
