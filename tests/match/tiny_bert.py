"""A tiny random BERT in a sentence-transformers folder, and a plain reference forward pass.

The tests of the encoder, the vector cache and the hybrid matcher use it instead of the real
model (which is 91 MB and not installed in CI). The reference below is written the slow,
obvious way — per sequence, per head, exact erf GELU — so that it checks the encoder's
batched, padded, fused implementation rather than repeating it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

WORDS = [
    "the",
    "a",
    "to",
    "of",
    "and",
    "make",
    "create",
    "gif",
    "gifs",
    "animated",
    "image",
    "images",
    "picture",
    "slack",
    "chat",
    "team",
    "sql",
    "query",
    "database",
    "table",
    "report",
    "chart",
    "weather",
    "forecast",
    "city",
    "rain",
    "pdf",
    "form",
    "forms",
    "read",
    "fill",
    "merge",
    "split",
    "document",
    "write",
    "summary",
    "email",
    "send",
    "mail",
    "music",
    "song",
    "play",
    "film",
    "movie",
]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
SHAPE = {"hidden": 16, "layers": 2, "heads": 4, "intermediate": 32, "positions": 64}


def write_tiny_bert(folder: Path, seed: int = 0, prefix: str = "") -> Path:
    """Write config.json, tokenizer.json and model.safetensors of a random 2-layer BERT."""
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {
        token: i
        for i, token in enumerate(
            SPECIAL + list(dict.fromkeys(WORDS)) + ["##s", "##ing"]
        )
    }
    tokenizer = Tokenizer(WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tokenizer.enable_padding(
        length=128
    )  # like MiniLM's file: the encoder must turn this off
    tokenizer.save(str(folder / "tokenizer.json"))
    h, inter = SHAPE["hidden"], SHAPE["intermediate"]
    config = {
        "hidden_size": h,
        "num_hidden_layers": SHAPE["layers"],
        "num_attention_heads": SHAPE["heads"],
        "intermediate_size": inter,
        "max_position_embeddings": SHAPE["positions"],
        "vocab_size": len(vocab),
        "type_vocab_size": 2,
        "layer_norm_eps": 1e-12,
        "hidden_act": "gelu",
    }
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    rng = np.random.default_rng(seed)

    def r(*shape: int, scale: float = 0.3) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    tensors = {
        "embeddings.word_embeddings.weight": r(len(vocab), h),
        "embeddings.position_embeddings.weight": r(SHAPE["positions"], h),
        "embeddings.token_type_embeddings.weight": r(2, h),
        "embeddings.LayerNorm.weight": 1 + r(h, scale=0.1),
        "embeddings.LayerNorm.bias": r(h, scale=0.1),
        "embeddings.position_ids": np.arange(SHAPE["positions"], dtype=np.int64)[None],
    }
    for i in range(SHAPE["layers"]):
        p = f"encoder.layer.{i}."
        for name in ("query", "key", "value"):
            tensors[p + f"attention.self.{name}.weight"] = r(h, h)
            tensors[p + f"attention.self.{name}.bias"] = r(h, scale=0.1)
        tensors[p + "attention.output.dense.weight"] = r(h, h)
        tensors[p + "attention.output.dense.bias"] = r(h, scale=0.1)
        tensors[p + "attention.output.LayerNorm.weight"] = 1 + r(h, scale=0.1)
        tensors[p + "attention.output.LayerNorm.bias"] = r(h, scale=0.1)
        tensors[p + "intermediate.dense.weight"] = r(inter, h)
        tensors[p + "intermediate.dense.bias"] = r(inter, scale=0.1)
        tensors[p + "output.dense.weight"] = r(h, inter)
        tensors[p + "output.dense.bias"] = r(h, scale=0.1)
        tensors[p + "output.LayerNorm.weight"] = 1 + r(h, scale=0.1)
        tensors[p + "output.LayerNorm.bias"] = r(h, scale=0.1)
    save_file(
        {prefix + key: value for key, value in tensors.items()},
        str(folder / "model.safetensors"),
    )
    return folder


def reference_embedding(folder: Path, text: str) -> np.ndarray:
    """One text, the obvious way: BERT layer by layer, head by head, in float64."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    config = json.loads((folder / "config.json").read_text())
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    ids = tokenizer.encode(text).ids
    w = {
        k.removeprefix("bert."): v.astype(np.float64)
        for k, v in load_file(str(folder / "model.safetensors")).items()
    }
    eps = config["layer_norm_eps"]

    def norm(x: np.ndarray, name: str) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        sigma = np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps)
        return (x - mu) / sigma * w[name + ".weight"] + w[name + ".bias"]

    def linear(x: np.ndarray, name: str) -> np.ndarray:
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    erf = np.vectorize(math.erf)
    x = np.stack(
        [
            w["embeddings.word_embeddings.weight"][token]
            + w["embeddings.position_embeddings.weight"][position]
            + w["embeddings.token_type_embeddings.weight"][0]
            for position, token in enumerate(ids)
        ]
    )
    x = norm(x, "embeddings.LayerNorm")
    heads = config["num_attention_heads"]
    size = config["hidden_size"] // heads
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q, k, v = (
            linear(x, p + f"attention.self.{n}") for n in ("query", "key", "value")
        )
        outputs = []
        for head in range(heads):
            cols = slice(head * size, (head + 1) * size)
            scores = q[:, cols] @ k[:, cols].T / math.sqrt(size)
            weights = np.exp(scores - scores.max(1, keepdims=True))
            weights /= weights.sum(1, keepdims=True)
            outputs.append(weights @ v[:, cols])
        attended = linear(np.concatenate(outputs, axis=1), p + "attention.output.dense")
        x = norm(x + attended, p + "attention.output.LayerNorm")
        up = linear(x, p + "intermediate.dense")
        hidden = 0.5 * up * (1 + erf(up / math.sqrt(2)))
        x = norm(x + linear(hidden, p + "output.dense"), p + "output.LayerNorm")
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)
