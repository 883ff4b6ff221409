"""A static sentence encoder: the mean of the text's token vectors, unit length.

Reads a folder holding one ``*.safetensors`` file (a single ``(vocabulary, dimensions)``
matrix of token vectors) and one tokenizer JSON (Hugging Face ``tokenizers`` format), such as
WordLlama's ``l2_supercat_256`` (token embeddings distilled from Llama-2-class models; MIT).
There is no network pass: encoding a query is a tokenizer call and a row average, well under
a millisecond, and the whole model is 16 MB.

Why a second, weaker signal helps: a static model reacts to *which* words are present, each
with its learned meaning, while MiniLM reads the sentence in context; their mistakes differ,
so adding it to the fusion raised MetaTool hit@3 on every held-out sample although alone it
ranks below MiniLM (see bench/match.py and docs/benchmarks.md).

Needs the ``semantic`` extra (numpy, tokenizers, safetensors) — the same as the BERT encoder.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(
        _variable, "1"
    )  # as in encoder.py: one BLAS thread beside the UI

import numpy as np  # noqa: E402

from aiq_tui.ranking.encoder import EncoderError  # noqa: E402

TENSOR = "embedding.weight"  # WordLlama's name for the token matrix; a file with one tensor may name it otherwise
MAX_TOKENS = 512  # a skill description is at most 1,024 characters; longer text adds nothing but time


class StaticEncoder:
    """Texts → unit vectors by averaging token vectors. Thread-compatible after loading."""

    def __init__(
        self, weights: Path, tokenizer: Path, max_tokens: int = MAX_TOKENS
    ) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        tensors = load_file(str(weights))
        matrix = tensors.get(TENSOR)
        if matrix is None:
            if len(tensors) != 1:
                raise EncoderError(
                    f"{weights}: no {TENSOR!r} tensor and not a single-tensor file"
                )
            matrix = next(iter(tensors.values()))
        if matrix.ndim != 2:
            raise EncoderError(
                f"{weights}: the token matrix has shape {matrix.shape}, expected (vocabulary, dimensions)"
            )
        self.vectors = np.ascontiguousarray(matrix.astype(np.float32))
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=max_tokens)

    @classmethod
    def from_folder(cls, folder: Path) -> StaticEncoder:
        """The encoder for an installed model folder: its one ``.safetensors`` and its tokenizer JSON."""
        folder = Path(folder)
        weights = sorted(folder.glob("*.safetensors"))
        tokenizers = sorted(p for p in folder.glob("*.json") if "token" in p.name)
        if len(weights) != 1 or len(tokenizers) != 1:
            raise EncoderError(
                f"{folder}: expected one .safetensors file and one tokenizer .json "
                "(reinstall: aiq-tui models install wordllama)"
            )
        return cls(weights[0], tokenizers[0])

    @property
    def dimensions(self) -> int:
        return int(self.vectors.shape[1])

    def encode(self, texts: Sequence[str], batch_size: int = 0) -> np.ndarray:
        """(len(texts), dimensions) float32 unit vectors; a text with no token is all zeros.
        ``batch_size`` is accepted for the encoder protocol and not needed."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return out
        last = self.vectors.shape[0] - 1
        for row, encoding in enumerate(
            self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        ):
            if encoding.ids:
                ids = np.clip(np.asarray(encoding.ids, dtype=np.int64), 0, last)
                out[row] = self.vectors[ids].mean(0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)


__all__ = ["StaticEncoder"]
