"""A learned linear map that moves a request's embedding towards the texts of the tools that serve it.

Sentence models such as all-MiniLM-L6-v2 were trained on pairs of similar sentences, not on
"short request → description of the tool that does it": a request ("can you find me a cheap
flight to Rome") and the right skill's description ("Search and compare airline fares") share
less of the embedding space than two paraphrases do. A query adapter ``W`` (d × d) corrects
for that on the query side only:

    q′ = (q · W) / ‖q · W‖

and the cosine with each skill's (unchanged) vector is taken as before, so the vector cache,
the skill side and every model file stay as they are; a request costs one d × d product
(≈ 0.01 ms).

The adapters shipped in ``ranking/adapters/`` were trained on third-party tool-retrieval sets
that have nothing to do with MetaTool (the benchmark the fusion is tuned and measured on), with
``W`` started at and pulled towards the identity — see ``ranking/adapters/README.md`` for the
data, licences and how to train them again (``bench/query_adapter/train.py``).
``matching.semantic_query_adapter: false`` turns them off.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

ADAPTERS = Path(__file__).with_name(
    "adapters"
)  # package data, named by models.ModelSpec.query_adapter


class QueryAdapterError(Exception):
    """The adapter file is unreadable or does not fit the model's vectors."""


def shipped_adapter(file_name: str) -> Path | None:
    """The adapter ``adapters/<file_name>`` shipped in the package, or None."""
    path = ADAPTERS / file_name
    return path if path.is_file() else None


class QueryAdapter:
    """``W`` applied to query vectors (one or a batch), rows re-normalised to unit length."""

    def __init__(self, matrix: np.ndarray) -> None:
        import numpy as np

        if (
            matrix.ndim != 2
            or matrix.shape[0] != matrix.shape[1]
            or not np.all(np.isfinite(matrix))
        ):
            raise QueryAdapterError(
                f"a query adapter is a finite square matrix, not shape {matrix.shape}"
            )
        self.matrix = matrix.astype(np.float32)

    @classmethod
    def load(cls, path: Path) -> QueryAdapter:
        import numpy as np

        try:
            matrix = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise QueryAdapterError(
                f"{path}: not a readable .npy matrix ({exc})"
            ) from exc
        try:
            return cls(matrix)
        except QueryAdapterError as exc:
            raise QueryAdapterError(f"{path}: {exc}") from exc

    def at_strength(self, share: float) -> QueryAdapter:
        """The same move, ``share`` times as far: I + share·(W − I) (1 = the file as shipped, 0 =
        the identity). A shipped file folds in the strength α it was trained at (ModelSpec.
        query_adapter_alpha); ``matching.semantic_query_adapter_alpha`` is applied relative to it."""
        import numpy as np

        if share == 1.0:
            return self
        eye = np.eye(self.dimensions, dtype=np.float64)
        return QueryAdapter(
            (eye + share * (self.matrix.astype(np.float64) - eye)).astype(np.float32)
        )

    @property
    def dimensions(self) -> int:
        return int(self.matrix.shape[0])

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        """Adapted unit vectors, same shape as ``vectors`` (d,) or (n, d); a zero row stays zero."""
        import numpy as np

        if vectors.shape[-1] != self.dimensions:
            raise QueryAdapterError(
                f"the adapter is for {self.dimensions}-dimensional vectors, "
                f"the model gives {vectors.shape[-1]}"
            )
        moved = vectors.astype(np.float32) @ self.matrix
        norms = np.linalg.norm(moved, axis=-1, keepdims=True)
        return moved / np.where(norms > 0, norms, 1.0)
