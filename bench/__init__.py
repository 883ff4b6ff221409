"""Benchmarks (``make bench``): each module has ``run() -> dict``; results go to one JSON report."""
