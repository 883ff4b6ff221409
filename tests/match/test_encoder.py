"""The numpy sentence encoder: same vectors as a plain reference BERT, padding-proof, clear errors.

Runs on a tiny random BERT generated here (tests/match/tiny_bert.py); the real MiniLM model
is checked only by the golden test, which runs when ``AIQ_MINILM_DIR`` names an installed
model folder (``make semantic`` sets it) and is skipped otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the semantic extra is not installed")
pytest.importorskip("tokenizers", reason="the semantic extra is not installed")
pytest.importorskip("safetensors", reason="the semantic extra is not installed")

from aiq_tui.ranking.encoder import Encoder, EncoderError, gelu
from tests.match.tiny_bert import reference_embedding, write_tiny_bert

TEXTS = [
    "make an animated gif for slack",
    "Run a SQL query against the database table",
    "weather forecast",
    "read and fill pdf forms, then merge the documents and send an email summary",
    "zebra",  # unknown word → [UNK]
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def test_forward_pass_matches_the_reference_bert(tiny: Path) -> None:
    vectors = Encoder(tiny).encode(TEXTS)
    for text, vector in zip(TEXTS, vectors):
        expected = reference_embedding(tiny, text)
        assert np.allclose(vector, expected, atol=2e-5), text


def test_vectors_are_unit_length_in_input_order(tiny: Path) -> None:
    encoder = Encoder(tiny)
    vectors = encoder.encode(TEXTS)
    assert vectors.shape == (len(TEXTS), encoder.dimensions)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    reversed_vectors = encoder.encode(TEXTS[::-1])
    assert np.allclose(reversed_vectors[::-1], vectors, atol=1e-6)


def test_padding_in_a_batch_does_not_change_a_vector(tiny: Path) -> None:
    encoder = Encoder(tiny)
    alone = encoder.encode(["weather forecast"])[0]
    batched = encoder.encode(["weather forecast", TEXTS[3] * 3], batch_size=2)[0]
    assert np.allclose(alone, batched, atol=1e-6)


def test_long_text_is_truncated_not_rejected(tiny: Path) -> None:
    encoder = Encoder(tiny, max_tokens=16)
    vector = encoder.encode(["gif " * 500])[0]
    assert np.isfinite(vector).all()


def test_bert_prefixed_tensor_names_load(tmp_path: Path, tiny: Path) -> None:
    prefixed = write_tiny_bert(tmp_path / "prefixed", prefix="bert.")
    assert np.allclose(
        Encoder(prefixed).encode(TEXTS), Encoder(tiny).encode(TEXTS), atol=1e-6
    )


def test_missing_file_names_the_file_and_the_fix(tmp_path: Path) -> None:
    folder = write_tiny_bert(tmp_path / "broken")
    (folder / "tokenizer.json").unlink()
    with pytest.raises(
        EncoderError, match=r"tokenizer\.json is missing .*models install"
    ):
        Encoder(folder)


def test_missing_tensor_is_named(tmp_path: Path) -> None:
    from safetensors.numpy import load_file, save_file

    folder = write_tiny_bert(tmp_path / "partial")
    weights = load_file(str(folder / "model.safetensors"))
    del weights["encoder.layer.1.output.dense.weight"]
    save_file(weights, str(folder / "model.safetensors"))
    with pytest.raises(EncoderError, match="encoder.layer.1.output.dense.weight"):
        Encoder(folder)


def test_gelu_is_the_exact_erf_form() -> None:
    import math

    xs = np.linspace(-6, 6, 241)
    exact = np.array([0.5 * x * (1 + math.erf(x / math.sqrt(2))) for x in xs])
    assert np.max(np.abs(gelu(xs) - exact)) < 1e-6


MINILM = os.environ.get("AIQ_MINILM_DIR", "")


@pytest.mark.skipif(
    not MINILM or not Path(MINILM, "model.safetensors").is_file(),
    reason="real MiniLM model not installed (make semantic sets AIQ_MINILM_DIR)",
)
def test_golden_minilm_paraphrases_close_unrelated_far() -> None:
    encoder = Encoder(Path(MINILM))
    assert encoder.dimensions == 384
    assert encoder.tokenizer.encode("hello world").ids == [
        101,
        7592,
        2088,
        102,
    ]  # BERT uncased vocabulary
    a, b, c = encoder.encode(
        [
            "A man is eating food.",
            "Someone is having a meal.",
            "The stock market crashed today.",
        ]
    )
    assert float(a @ b) > 0.6
    assert float(a @ c) < 0.15
    assert abs(float(np.linalg.norm(a)) - 1) < 1e-5
