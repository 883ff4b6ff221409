"""The one-scan ``words`` and the memoised ``term_of`` give exactly what the chunk-by-chunk
pipeline gave (kept here as the reference), on any text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aiq_tui.ranking import tokenize as tk
from aiq_tui.ranking.tokenize import (
    _ANY_CJK,
    _split_mixed,
    normalise,
    split_identifier,
    words,
)


def reference_words(text: str) -> list[str]:
    """``words`` as it was: every whitespace chunk through split_identifier."""
    text = normalise(text)
    has_cjk = _ANY_CJK.search(text) is not None
    out: list[str] = []
    for chunk in text.split():
        if has_cjk and _ANY_CJK.search(chunk):
            out.extend(_split_mixed(chunk))
            continue
        for part in split_identifier(chunk):
            out.append(part.lower())
    return out


def reference_tokenize(text: str) -> list[str]:
    return [
        term for term in map(tk._term_of, reference_words(text)) if term is not None
    ]


# Identifier-ish material: cases, digits, separators, accents, full-width forms, ligatures,
# combining marks, non-Latin scripts, CJK and whitespace of every kind.
PIECES = st.sampled_from(
    [
        "PdfTools",
        "HTTPServer",
        "sql-query",
        "snake_case",
        "gpt4o",
        "v2",
        "x",
        "I",
        "A",
        "ID",
        "iOS",
        "Café",
        "ÉCOLE",
        "naïve",
        "Ñandú",
        "ﬁle",
        "ＡＢＣ",
        "１２３",
        "e\u0301",
        "İstanbul",
        "ß",
        "ǅemal",
        "Ωmega",
        "Москва",
        "данных",
        "עברית",
        "١٢٣",
        "日本語",
        "テスト",
        "한국어",
        "中文abc",
        "--",
        "__",
        "'s",
        "—",
        ".",
        "/",
        "(x)",
        " ",
        "\t",
        "\n",
        "\u00a0",
        "\u2003",
        "",
        "running",
        "created",
        "the",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.lists(PIECES, max_size=12).map("".join), st.text(max_size=80)))
def test_words_and_terms_equal_the_chunk_by_chunk_pipeline(text: str) -> None:
    assert words(text) == reference_words(text)
    assert tk.tokenize(text) == reference_tokenize(text)
    assert [tk.term_of(w) for w in words(text)] == [tk._term_of(w) for w in words(text)]


def test_the_term_memo_is_bounded(monkeypatch) -> None:
    monkeypatch.setattr(tk, "_TERMS_LIMIT", 3)
    monkeypatch.setattr(tk, "_TERMS", {})
    for word in ("alpha", "betas", "gamma", "deltas", "the"):
        assert tk.term_of(word) == tk._term_of(word)
        assert len(tk._TERMS) <= 3
