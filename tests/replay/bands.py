"""Where each compression stage may fire: past its threshold and short of the next one's
(80–89, 90–94, 95–100 % of the window), read from a session's records."""

from __future__ import annotations

from typing import Any

BANDS = {80: (80.0, 90.0), 90: (90.0, 95.0), 95: (95.0, 100.0)}
"""Where each stage may fire, as a share of the window: past its threshold, short of the next."""


def compressions(records: list[dict[str, Any]]) -> list[tuple[int, float]]:
    """(stage, share of the window when it started) of each compression, in order: one
    compression is a run of steps; its stage is the highest its steps name."""
    window, out, last = 0, [], ""
    for record in records:
        kind = record.get("type")
        if kind == "budget_changed":
            window = int(record.get("window") or window)
        elif kind == "compression_applied":
            stage = int(record["stage"])
            if last != "compression_applied":
                out.append((stage, record["before"] * 100 / window))
            else:
                out[-1] = (max(out[-1][0], stage), out[-1][1])
        last = str(kind)
    return out


def out_of_band(records: list[dict[str, Any]]) -> list[tuple[int, float]]:
    def inside(stage: int, share: float) -> bool:
        low, high = BANDS[stage]
        return low <= share < high or (stage == 95 and share == high)

    return [
        (stage, share)
        for stage, share in compressions(records)
        if not inside(stage, share)
    ]
