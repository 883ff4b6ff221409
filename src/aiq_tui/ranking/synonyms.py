"""Light synonym handling for the keyword ranker: groups of everyday words that name the same need.

Users ask for "a film" when a skill says "movies", "a vacation rental" when it says "trip"
and "accommodation". Each line below is one group of words people use interchangeably
(or for the same kind of request); a query term also meets a skill's terms from its
groups, at ``SYNONYM_WEIGHT`` of its weight — a weaker signal than the word itself, and
shown as such in the score breakdown. Words pass through the same tokenizer as queries
and skills, so inflections ("images", "imaging") are covered.

Hand-written and generic on purpose (no model, no download, the same on every machine);
keep groups tight: a word in too many groups drags unrelated skills in.
"""

from __future__ import annotations

from functools import lru_cache

SYNONYM_WEIGHT = 0.5

GROUPS: tuple[str, ...] = (
    "buy purchase shop shopping product products store order",
    "price prices cost costs cheap deal deals discount",
    "movie movies film films cinema",
    "job jobs career careers employment hiring resume",
    "car cars vehicle vehicles auto automobile",
    "trip travel vacation holiday journey tour",
    "hotel hotels accommodation lodging stay",
    "recipe recipes cook cooking meal meals food dish",
    "news headline headlines article articles",
    "photo photos image images picture pictures",
    "video videos clip clips",
    "song songs music track album",
    "stock stocks shares invest investing investment finance financial market",
    "weather forecast temperature rain climate",
    "translate translation language languages",
    "doctor medical health medicine symptom symptoms",
    "law legal lawyer attorney",
    "book books novel reading read",
    "flight flights airline airport fly",
    "restaurant restaurants dining eat",
    "game games gaming play",
    "email emails mail inbox",
    "calendar schedule meeting meetings appointment",
    "learn learning study course courses tutor education teach",
    "website webpage web url",
    "search find lookup",
    "code coding programming developer software",
    "company companies business businesses firm",
    "map maps location directions route navigate",
    "crypto cryptocurrency bitcoin ethereum coin",
    "sport sports team match football soccer basketball",
    "event events ticket tickets concert show",
    "house home apartment rent rental property estate",
    "paper papers research academic scholar",
    "write writing essay text",
    "summary summarize summarise",
    "social tweet twitter instagram media",
    "podcast podcasts episode episodes",
    "database sql query table tables",
    "chart charts graph plot visualize visualise",
    "spreadsheet excel csv",
    "slide slides presentation powerpoint deck",
)


@lru_cache(maxsize=1)
def _table() -> dict[str, frozenset[str]]:
    from aiq_tui.ranking.tokenize import tokenize

    related: dict[str, set[str]] = {}
    for line in GROUPS:
        terms = set(tokenize(line))
        for term in terms:
            related.setdefault(term, set()).update(terms - {term})
    return {term: frozenset(others) for term, others in related.items()}


def synonyms(term: str) -> frozenset[str]:
    """Terms (tokenized form) that share a group with ``term``."""
    return _table().get(term, frozenset())


__all__ = ["GROUPS", "SYNONYM_WEIGHT", "synonyms"]
