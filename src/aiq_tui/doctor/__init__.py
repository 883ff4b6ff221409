"""``aiq-tui skills doctor``: one report over a whole skill collection, checked against the
matcher, prompt builder and budget the engine routes with (see :mod:`aiq_tui.doctor.run`)."""

from __future__ import annotations

from aiq_tui.doctor.model import DoctorReport, Finding, Level
from aiq_tui.doctor.run import DoctorInputs, run_doctor

__all__ = ["DoctorInputs", "DoctorReport", "Finding", "Level", "run_doctor"]
