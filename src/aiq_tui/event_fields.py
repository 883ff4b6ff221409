"""Field metadata shared by every event of the engine's stream, wherever the event is defined."""

from __future__ import annotations

NOT_PRINTED = {"printed": False}
"""Field metadata: kept from ``to_json`` (``--json`` lines, replays) — bulky or already said
elsewhere; the telemetry reads it from the event itself."""
