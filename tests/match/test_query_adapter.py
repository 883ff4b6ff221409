"""The query adapter: a learned linear map on the request's vector before it meets the skills'.

It moves requests only (skill vectors and their cache stay as they are), is on by default for
the model it was trained for, can be turned off in the config, and a broken adapter file never
breaks matching: the model reports the file and matching falls back to the keywords.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the semantic extra is not installed")

from aiq_tui.config import AppConfig, MatchingSettings
from aiq_tui.models import (
    MODELS,
    InstalledModel,
    query_adapter_for,
    query_adapter_strength,
)
from aiq_tui.ranking.match import SkillIndex
from aiq_tui.ranking.query_adapter import (
    QueryAdapter,
    QueryAdapterError,
    shipped_adapter,
)
from aiq_tui.ranking.semantic import FusionSettings, Matcher, SemanticModel
from aiq_tui.ranking.vectors import SkillVectors, VectorCache
from tests.match.test_semantic import SKILLS, TOPICS, TopicEncoder

ROOT = Path(__file__).resolve().parents[2]
IMAGE, DATA, WEATHER, CHAT, BIAS = range(len(TOPICS) + 1)


def topic_model(
    tmp_path: Path, adapter: Path | None, encoder: TopicEncoder | None = None
) -> SemanticModel:
    vectors = SkillVectors(VectorCache(tmp_path / "vectors.npz", "topic-v1"), SKILLS)
    encoder = encoder or TopicEncoder()
    return SemanticModel(
        tmp_path, vectors, encoder_factory=lambda _path: encoder, query_adapter=adapter
    )


def chat_means_pictures(tmp_path: Path) -> Path:
    """An adapter that reads a request about the team chat as one about pictures too (as if
    trained on requests like "liven up the channel" → a GIF maker)."""
    matrix = np.eye(len(TOPICS) + 1, dtype=np.float32)
    matrix[CHAT, IMAGE] = 1.0
    path = tmp_path / "adapter.npy"
    np.save(path, matrix)
    return path


def best(model: SemanticModel, query: str) -> str:
    names, cosines = model.similarities(query)
    return names[int(np.argmax(cosines))]


def test_the_adapter_moves_the_request_towards_the_skill_that_serves_it(
    tmp_path: Path,
) -> None:
    plain = topic_model(tmp_path / "plain", None)
    adapted = topic_model(tmp_path / "adapted", chat_means_pictures(tmp_path))
    for model in (plain, adapted):
        model.prepare()
        assert model.ready
    query = "something fun for the team channel rain"  # chat and weather words, no picture word
    assert best(plain, query) == "weather"
    assert best(adapted, query) == "slack-gif-creator"


def test_the_adapter_changes_requests_only_skill_vectors_and_their_cache_stay(
    tmp_path: Path,
) -> None:
    plain, adapted = TopicEncoder(), TopicEncoder()
    topic_model(tmp_path / "a", None, plain).prepare()
    model = topic_model(tmp_path / "b", chat_means_pictures(tmp_path), adapted)
    model.prepare()
    assert (
        adapted.encoded == plain.encoded
    )  # the same skill texts, embedded the same way
    names, matrix = model.vectors.snapshot()
    reference = SkillVectors(
        VectorCache(tmp_path / "a" / "vectors.npz", "topic-v1"), SKILLS
    ).snapshot()
    assert names == reference[0] and np.allclose(matrix, reference[1])


def test_adapted_query_vectors_are_unit_length_and_a_batch_matches_one_at_a_time(
    tmp_path: Path,
) -> None:
    model = topic_model(tmp_path, chat_means_pictures(tmp_path))
    model.prepare()
    raw = TopicEncoder().encode(["team channel", "sql table rows", "forecast"])
    batch = model.query_vectors(raw)
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0)
    assert np.allclose(batch[1], model.query_vectors(raw[1]))


@pytest.mark.parametrize(
    "content, says",
    [
        (b"not a numpy file", "not a readable .npy matrix"),
        (None, "square matrix"),
        (np.eye(3, dtype=np.float32), "3-dimensional"),
    ],
)
def test_a_broken_adapter_fails_the_model_with_the_file_named_and_matching_keeps_to_keywords(
    tmp_path: Path, content: object, says: str
) -> None:
    path = tmp_path / "adapter.npy"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        np.save(path, np.ones((2, 3), dtype=np.float32) if content is None else content)
    model = topic_model(tmp_path, path)
    model.prepare()
    assert model.state == "failed" and str(path) in model.error and says in model.error
    matcher = Matcher(SkillIndex(SKILLS), model)
    assert matcher.signals_used == ("keyword",)
    assert matcher.rank("make a gif for slack").matches[0].name == "slack-gif-creator"


def test_a_matrix_of_another_size_is_refused_at_query_time_too() -> None:
    adapter = QueryAdapter(np.eye(4, dtype=np.float32))
    with pytest.raises(QueryAdapterError, match="4-dimensional"):
        adapter.apply(np.ones(5, dtype=np.float32))


def installed(name: str, fingerprint: str) -> InstalledModel:
    return InstalledModel(
        name=name,
        path=Path("/models") / name,
        size=0,
        source="test",
        fingerprint=fingerprint,
    )


def test_minilm_has_a_shipped_adapter_used_unless_the_config_turns_it_off() -> None:
    spec = MODELS["minilm"]
    path = shipped_adapter(spec.query_adapter)
    assert path is not None
    adapter = QueryAdapter.load(path)
    assert adapter.dimensions == 384
    # Near the identity: it corrects the model's reading of requests, it does not replace it.
    assert np.abs(adapter.matrix - np.eye(384)).max() < 0.5
    minilm = installed("minilm", spec.files[spec.weights])
    assert query_adapter_for(AppConfig(), minilm) == path
    off = AppConfig(matching=MatchingSettings(semantic_query_adapter=False))
    assert query_adapter_for(off, minilm) is None


def test_the_configured_alpha_scales_the_shipped_move_and_zero_turns_it_off() -> None:
    spec = MODELS["minilm"]
    minilm = installed("minilm", spec.files[spec.weights])

    def at(alpha):
        return AppConfig(matching=MatchingSettings(semantic_query_adapter_alpha=alpha))

    assert (
        query_adapter_strength(at(spec.query_adapter_alpha), minilm) == 1.0
    )  # the file as trained
    assert query_adapter_strength(at(0.65), minilm) == pytest.approx(
        0.65 / spec.query_adapter_alpha
    )
    assert query_adapter_for(at(0.0), minilm) is None
    matrix = np.array([[1.0, 2.0], [0.0, 3.0]], dtype=np.float32)
    half = QueryAdapter(matrix).at_strength(0.5).matrix
    assert np.allclose(half, [[1.0, 1.0], [0.0, 2.0]])  # I + ½ (W − I)
    assert np.allclose(QueryAdapter(matrix).at_strength(0.0).matrix, np.eye(2))


def test_a_weaker_adapter_moves_a_request_part_of_the_way(tmp_path: Path) -> None:
    path = chat_means_pictures(tmp_path)
    full, weak = (
        SemanticModel(
            tmp_path,
            SkillVectors(VectorCache(tmp_path / f"{share}.npz", "topic-v1"), SKILLS),
            encoder_factory=lambda _path: TopicEncoder(),
            query_adapter=path,
            query_adapter_strength=share,
        )
        for share in (1.0, 0.25)
    )
    for model in (full, weak):
        model.prepare()
    raw = TopicEncoder().encode(["team channel"])
    plain_image = float(raw[0][IMAGE])
    weak_image, full_image = (
        float(weak.query_vectors(raw)[0][IMAGE]),
        float(full.query_vectors(raw)[0][IMAGE]),
    )
    assert plain_image < weak_image < full_image


def test_an_adapter_fits_only_the_weights_it_was_trained_for() -> None:
    assert (
        query_adapter_for(AppConfig(), installed("minilm", "0" * 64)) is None
    )  # other weights, same name
    wordllama = MODELS["wordllama"]
    assert (
        query_adapter_for(
            AppConfig(), installed("wordllama", wordllama.files[wordllama.weights])
        )
        is None
    )


def test_the_adapter_ships_in_the_package_data() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert (
        "ranking/adapters/*"
        in pyproject["tool"]["setuptools"]["package-data"]["aiq_tui"]
    )


def test_the_fusion_defaults_have_one_home_the_config() -> None:
    assert FusionSettings() == FusionSettings.from_config(MatchingSettings())
