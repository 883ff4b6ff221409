"""A sentence encoder in plain numpy: BERT forward pass, mean pooling, L2 normalisation.

Loads a sentence-transformers style folder (``model.safetensors``, ``tokenizer.json``,
``config.json``) such as all-MiniLM-L6-v2, with no torch and no hub: the three files are
all it reads. Needs the ``semantic`` extra (numpy, tokenizers, safetensors); import this
module only when semantic matching is wanted — numpy is too heavy for the first frame.

The architecture is the one described in /work/shared/design/SEMANTIC.md: embeddings
(word + position + token type 0) → layer norm → N × (self-attention → add & norm →
GELU feed-forward → add & norm) → mean over the non-padding tokens → unit length.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# One BLAS thread: embedding runs beside the UI on a couple of cores, and oversubscribed
# BLAS threads spin (measured 3× slower per text on a loaded 2-core machine). Honoured only
# if numpy is not imported yet; an explicit environment setting wins.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

MODEL_FILES: tuple[str, ...] = ("model.safetensors", "tokenizer.json", "config.json")
MAX_TOKENS = (
    256  # sentence-transformers' max_seq_length for MiniLM (tokenizer.json says 128)
)
BATCH_SIZE = 32


class EncoderError(Exception):
    """The model folder is missing a file or holds something this encoder cannot run."""


@dataclass(frozen=True)
class BertShape:
    """The hyper-parameters the forward pass needs, read from ``config.json``."""

    hidden: int
    layers: int
    heads: int
    eps: float

    @classmethod
    def from_config(cls, data: dict) -> BertShape:
        act = data.get("hidden_act", "gelu")
        if act != "gelu":
            raise EncoderError(
                f"config.json: hidden_act {act!r} is not supported (only gelu)"
            )
        try:
            return cls(
                int(data["hidden_size"]),
                int(data["num_hidden_layers"]),
                int(data["num_attention_heads"]),
                float(data.get("layer_norm_eps", 1e-12)),
            )
        except KeyError as exc:
            raise EncoderError(f"config.json: missing field {exc.args[0]!r}") from None


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to ~1.5e-7 (Abramowitz & Stegun 7.1.26): numpy has no erf, and BERT's GELU is
    the exact erf form — the tanh approximation would drift by 1e-3."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592
        + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1.0 - poly * np.exp(-a * a))


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def layer_norm(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float
) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


@dataclass(frozen=True)
class _Layer:
    qkv: np.ndarray  # (hidden, 3·hidden): query, key, value projections side by side
    qkv_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    norm1: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    norm2: tuple[np.ndarray, np.ndarray]


class Encoder:
    """Texts → unit vectors. Thread-compatible (no state changes after loading)."""

    def __init__(self, folder: Path, max_tokens: int = MAX_TOKENS) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = Path(folder)
        for name in MODEL_FILES:
            if not (folder / name).is_file():
                raise EncoderError(
                    f"{folder}: {name} is missing (reinstall: aiq-tui models install minilm)"
                )
        self.folder = folder
        self.shape = BertShape.from_config(
            json.loads((folder / "config.json").read_text(encoding="utf-8"))
        )
        weights = load_file(str(folder / "model.safetensors"))
        # Some exports prefix every tensor with "bert."; both spellings load.
        weights = {
            key.removeprefix("bert."): value.astype(np.float32)
            for key, value in weights.items()
        }
        self._load(weights)
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.no_padding()  # we pad per batch ourselves
        # Never longer than the model has positions for.
        tokenizer.enable_truncation(max_length=min(max_tokens, self.position.shape[0]))
        self.tokenizer = tokenizer

    @property
    def dimensions(self) -> int:
        return self.shape.hidden

    def _load(self, w: dict[str, np.ndarray]) -> None:
        def get(key: str) -> np.ndarray:
            if key not in w:
                raise EncoderError(f"model.safetensors: tensor {key!r} is missing")
            return w[key]

        e = "embeddings."
        self.word = get(e + "word_embeddings.weight")
        self.position = get(e + "position_embeddings.weight")
        self.token_type = get(e + "token_type_embeddings.weight")[0]
        self.embed_norm = (get(e + "LayerNorm.weight"), get(e + "LayerNorm.bias"))
        layers = []
        for i in range(self.shape.layers):
            p = f"encoder.layer.{i}."
            a = p + "attention."
            # Linear layers store (out, in); transpose once so the pass is x @ W.
            qkv = np.concatenate(
                [get(a + f"self.{n}.weight").T for n in ("query", "key", "value")],
                axis=1,
            )
            qkv_bias = np.concatenate(
                [get(a + f"self.{n}.bias") for n in ("query", "key", "value")]
            )
            layers.append(
                _Layer(
                    qkv=np.ascontiguousarray(qkv),
                    qkv_bias=qkv_bias,
                    out=np.ascontiguousarray(get(a + "output.dense.weight").T),
                    out_bias=get(a + "output.dense.bias"),
                    norm1=(
                        get(a + "output.LayerNorm.weight"),
                        get(a + "output.LayerNorm.bias"),
                    ),
                    up=np.ascontiguousarray(get(p + "intermediate.dense.weight").T),
                    up_bias=get(p + "intermediate.dense.bias"),
                    down=np.ascontiguousarray(get(p + "output.dense.weight").T),
                    down_bias=get(p + "output.dense.bias"),
                    norm2=(
                        get(p + "output.LayerNorm.weight"),
                        get(p + "output.LayerNorm.bias"),
                    ),
                )
            )
        self.layers = tuple(layers)

    # -- encoding ---------------------------------------------------------------------------

    def encode(self, texts: Sequence[str], batch_size: int = BATCH_SIZE) -> np.ndarray:
        """(len(texts), hidden) float32 unit vectors, in the order given."""
        out = np.zeros((len(texts), self.shape.hidden), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(list(texts))
        # Similar lengths together: less padding, same results (padding is masked out).
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            out[chunk] = self._forward([encodings[i].ids for i in chunk])
        return out

    def _forward(self, sequences: list[list[int]]) -> np.ndarray:
        shape = self.shape
        length = max(1, max(len(ids) for ids in sequences))
        ids = np.zeros((len(sequences), length), dtype=np.int64)
        mask = np.zeros((len(sequences), length), dtype=np.float32)
        for row, seq in enumerate(sequences):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1.0
        x = self.word[ids] + self.position[:length][None] + self.token_type
        x = layer_norm(x, *self.embed_norm, shape.eps)
        batch, heads, size = len(sequences), shape.heads, shape.hidden // shape.heads
        blocked = (1.0 - mask)[:, None, None, :] * -1e9  # padding keys get no attention
        scale = 1.0 / math.sqrt(size)
        for layer in self.layers:
            qkv = x @ layer.qkv + layer.qkv_bias
            q, k, v = (
                part.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)
                for part in np.split(qkv, 3, axis=-1)
            )
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + blocked
            scores -= scores.max(-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(-1, keepdims=True)
            context = (
                (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, shape.hidden)
            )
            x = layer_norm(
                x + context @ layer.out + layer.out_bias, *layer.norm1, shape.eps
            )
            hidden = gelu(x @ layer.up + layer.up_bias)
            x = layer_norm(
                x + hidden @ layer.down + layer.down_bias, *layer.norm2, shape.eps
            )
        pooled = (x * mask[..., None]).sum(1) / np.maximum(
            mask.sum(1, keepdims=True), 1e-9
        )
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


__all__ = ["MAX_TOKENS", "MODEL_FILES", "Encoder", "EncoderError"]
