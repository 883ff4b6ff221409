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


def test_the_wheel_ships_the_mit_licence_text(tmp_path: Path) -> None:
    """pyproject says MIT; the licence's own text travels with every wheel (PEP 639)."""
    import subprocess
    import sys
    import zipfile

    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
         "--no-build-isolation", "--quiet", "--wheel-dir", str(tmp_path)],
        check=True, capture_output=True,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("aiq_tui-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        licences = [n for n in archive.namelist() if n.endswith("/LICENSE")]
        assert licences, archive.namelist()
        text = archive.read(licences[0]).decode()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text
