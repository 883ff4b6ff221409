"""Training the query adapters shipped in ``src/aiq_tui/ranking/adapters/`` (``train.py``)."""
