"""Screens and modals of the workbench."""
