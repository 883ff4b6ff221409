"""The doctor's safety scan: what a skill from a stranger could make the agent do.

* :mod:`.rules` — each rule's id, severity, why and fix (the one description of a rule);
* :mod:`.files` — a skill's files, read once, bounded, with line and code lookups;
* :mod:`.commands`, :mod:`.injection`, :mod:`.hidden_text`, :mod:`.exfiltration`,
  :mod:`.grants` — the detectors, one concern each;
* :mod:`.documented` — a hit in text that warns against it is a note, not an error;
* :mod:`.scan` — every rule over one skill, as doctor findings;
* :mod:`.sarif` — a doctor report as SARIF 2.1.0 for code scanning.
"""

from __future__ import annotations

from aiq_tui.doctor.safety.rules import BY_ID, RULES, Rule
from aiq_tui.doctor.safety.scan import scan_skill

__all__ = ["BY_ID", "RULES", "Rule", "scan_skill"]
