"""What the installed package ships beyond its modules."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_ships_py_typed_so_type_checkers_read_its_annotations() -> None:
    """Seed 004 ("fully typed APIs"): PEP 561's marker, in the package and in its package data."""
    assert resources.files("aiq_tui").joinpath("py.typed").is_file()
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["aiq_tui"]
