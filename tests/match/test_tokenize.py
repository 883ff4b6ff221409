from __future__ import annotations

from aiq_tui.ranking.tokenize import (
    name_terms,
    split_identifier,
    stem,
    surface_words,
    tokenize,
)


def test_query_keywords_are_lowercased_without_punctuation_or_stop_words() -> None:
    assert tokenize("Can you make a GIF for Slack, please?!") == [
        "make",
        "gif",
        "slack",
    ]


def test_identifiers_are_split_into_words() -> None:
    assert split_identifier("sql-query") == ["sql", "query"]
    assert split_identifier("PdfTools") == ["Pdf", "Tools"]
    assert split_identifier("snake_case") == ["snake", "case"]
    assert split_identifier("HTTPServer") == ["HTTP", "Server"]
    assert tokenize("convert2pdf") == ["convert", "2", "pdf"]


def test_stemming_conflates_inflections_deterministically() -> None:
    assert stem("images") == stem("image")
    assert stem("creating") == stem("created") == stem("create") == stem("creates")
    assert stem("running") == "run"
    assert stem("queries") == stem("query")
    assert stem("databases") == stem("database")
    assert stem("apply") == stem("applies") == stem("applied") != stem("app")


def test_stemming_is_snowball_english() -> None:
    # The algorithm Lucene and Elasticsearch use, so our terms match what their users know.
    assert [stem(w) for w in ("generously", "happiness", "relational", "news")] == [
        "generous",
        "happi",
        "relat",
        "news",
    ]


def test_short_words_digits_and_other_scripts_are_not_stemmed() -> None:
    assert [stem(w) for w in ("is", "2024", "café", "данных")] == [
        "is",
        "2024",
        "café",
        "данных",
    ]


def test_surface_words_map_terms_back_to_what_was_written() -> None:
    shown = surface_words("sample tables in my databases", "A database of sampled rows")
    assert shown[stem("tables")] == "tables"
    assert shown[stem("database")] == "databases"  # the first text (the query) wins
    assert shown[stem("rows")] == "rows"
    assert "my" not in shown.values()  # stop-words are no terms


def test_nfkc_normalises_full_width_letters() -> None:
    assert tokenize("ＰＤＦ") == ["pdf"]


def test_cjk_text_becomes_character_bigrams() -> None:
    assert tokenize("图片转换") == ["图片", "片转", "转换"]
    assert "pdf" in tokenize("把PDF转换成图片")
    assert tokenize("字") == ["字"]


def test_name_terms_include_parts_and_the_joined_name() -> None:
    assert name_terms("slack-gif-creator") == [
        "slack",
        "gif",
        "creator",
        "slackgifcreator",
    ]
    assert name_terms("pdf") == ["pdf"]


def test_an_acronyms_plural_is_the_acronym_not_a_camel_case_split() -> None:
    # "POs" read as camelCase was P|Os: "os" was the term matched and named as missing.
    assert split_identifier("POs") == ["PO", "s"]
    assert tokenize("check the supplier POs") == ["check", "supplier", "po"]
    assert tokenize("PDFs and URLs") == tokenize("PDF and URL")
    assert split_identifier("HTTPServer") == ["HTTP", "Server"]
    assert tokenize("macOS") == ["mac", "os"]
