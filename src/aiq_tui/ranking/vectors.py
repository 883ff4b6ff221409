"""Skill vectors: cached on disk by text hash, computed incrementally off the UI thread.

The cache is one ``.npz`` per model in the config home (``data/vectors/<model>.npz``):
``keys`` (sha256 of each embedded text) and ``vectors`` (one row each), plus the model's
fingerprint so a different model never reuses another model's vectors. A skill whose
name, description or triggers change gets a new hash, hence a new vector; unchanged
skills are never embedded twice, across runs too.

:class:`SkillVectors` holds the vectors of the skills in the catalog. The matcher asks
:meth:`SkillVectors.snapshot` for a consistent (names, matrix) pair and uses the keyword
ranker alone while :attr:`SkillVectors.pending` is not zero — a half-embedded catalog
would rank the embedded half above the rest.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

# One BLAS thread: embedding runs beside the UI on a couple of cores, and oversubscribed
# BLAS threads spin (measured 3× slower per text on a loaded 2-core machine). Honoured only
# if numpy is not imported yet; an explicit environment setting wins.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

from aiq_tui.ranking.tokenize import words  # noqa: E402
from aiq_tui.skills.model import SkillMeta  # noqa: E402

SAVE_EVERY = 8  # batches between cache writes: progress survives a quit mid-embedding


class TextEncoder(Protocol):
    def encode(self, texts: list[str], batch_size: int = ...) -> np.ndarray: ...


def skill_text(meta: SkillMeta) -> str:
    """What gets embedded for a skill: its name in words, description and triggers."""
    name = " ".join(
        words(meta.name)
    )  # "ProductSearch", "pdf-tools" → words the model knows
    text = f"{name}: {' '.join((meta.description or '').split())}"
    if meta.triggers:
        text += " (" + "; ".join(meta.triggers) + ")"
    return text


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Progress:
    """How far embedding the catalog is: ``done`` of ``total`` skills have a vector."""

    done: int
    total: int

    @property
    def ready(self) -> bool:
        return self.done >= self.total


class VectorCache:
    """Text hash → vector, persisted atomically to one file."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        self.path = Path(path)
        self.fingerprint = fingerprint
        self._rows: dict[str, np.ndarray] = {}
        self._load()

    def _load(self) -> None:
        if not self.path.is_file():
            return
        try:
            with np.load(self.path, allow_pickle=False) as data:
                if str(data["fingerprint"]) != self.fingerprint:
                    return  # another model's vectors: start afresh
                keys, vectors = data["keys"], data["vectors"]
        except (OSError, KeyError, ValueError):
            return  # a damaged cache is only a cache: recompute
        self._rows = {str(key): vectors[i] for i, key in enumerate(keys)}

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, key: str) -> np.ndarray | None:
        return self._rows.get(key)

    def put(self, key: str, vector: np.ndarray) -> None:
        self._rows[key] = np.asarray(vector, dtype=np.float32)

    def prune(self, keep: Iterable[str]) -> None:
        """Drop vectors of texts no skill has any more (edited or removed skills)."""
        wanted = set(keep)
        self._rows = {key: row for key, row in self._rows.items() if key in wanted}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(sorted(self._rows), dtype="U64")
        dims = next(iter(self._rows.values())).shape[0] if self._rows else 0
        vectors = (
            np.stack([self._rows[k] for k in keys])
            if len(keys)
            else np.zeros((0, dims), np.float32)
        )
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".npz.tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                np.savez(
                    handle,
                    keys=keys,
                    vectors=vectors,
                    fingerprint=np.array(self.fingerprint),
                )
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


class SkillVectors:
    """The catalog's skill vectors. Thread-safe: one background embedder, many readers."""

    def __init__(self, cache: VectorCache, metas: Iterable[SkillMeta] = ()) -> None:
        self.cache = cache
        self._lock = threading.Lock()
        self._texts: dict[str, str] = {}  # skill name → key of its text
        self._sources: dict[str, str] = {}  # key → text
        self._snapshot: tuple[tuple[str, ...], np.ndarray] | None = None
        self.update(metas)

    def update(self, metas: Iterable[SkillMeta], removed: Iterable[str] = ()) -> None:
        """Add or replace skills (their vectors are looked up in the cache or become pending)."""
        with self._lock:
            for name in removed:
                self._texts.pop(name, None)
            for meta in metas:
                text = skill_text(meta)
                key = text_key(text)
                self._texts[meta.name] = key
                self._sources[key] = text
            self._snapshot = None

    def remove(self, names: Iterable[str]) -> None:
        self.update((), removed=names)

    @property
    def progress(self) -> Progress:
        with self._lock:
            total = len(self._texts)
            done = sum(
                1 for key in self._texts.values() if self.cache.get(key) is not None
            )
        return Progress(done, total)

    def pending_texts(self) -> list[tuple[str, str]]:
        """(key, text) of skills with no vector yet, each text once."""
        with self._lock:
            keys = sorted(
                {key for key in self._texts.values() if self.cache.get(key) is None}
            )
            return [(key, self._sources[key]) for key in keys]

    def embed_pending(
        self,
        encoder: TextEncoder,
        batch_size: int = 32,
        on_progress: Callable[[Progress], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> Progress:
        """Embed every pending skill in batches (call from a worker thread), saving as it goes."""
        pending = self.pending_texts()
        for batch_number, start in enumerate(
            range(0, len(pending), batch_size), start=1
        ):
            if should_stop():
                break
            chunk = pending[start : start + batch_size]
            vectors = encoder.encode(
                [text for _key, text in chunk], batch_size=batch_size
            )
            with self._lock:
                for (key, _text), vector in zip(chunk, vectors):
                    self.cache.put(key, vector)
                self._snapshot = None
            if batch_number % SAVE_EVERY == 0:
                self._save()
            if on_progress is not None:
                on_progress(self.progress)
        self._save()
        return self.progress

    def _save(self) -> None:
        with self._lock:
            self.cache.prune(self._texts.values())
            self.cache.save()

    def snapshot(self) -> tuple[tuple[str, ...], np.ndarray] | None:
        """(names, unit-vector matrix) when every skill has its vector, else None."""
        with self._lock:
            if self._snapshot is None:
                rows = [
                    (name, self.cache.get(key))
                    for name, key in sorted(self._texts.items())
                ]
                vectors = [vector for _name, vector in rows if vector is not None]
                if not rows or len(vectors) < len(rows):
                    return None
                names = tuple(name for name, _v in rows)
                self._snapshot = (names, np.stack(vectors).astype(np.float32))
            return self._snapshot


__all__ = ["Progress", "SkillVectors", "VectorCache", "skill_text", "text_key"]
