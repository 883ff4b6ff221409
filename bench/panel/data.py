"""The panel's datasets: each read from where it is configured, split once into a tuning and a
held-out part, every request labelled with the set of tools that serve it.

Where each is read from (an environment variable names another place):

- **MetaTool** — ``AIQ_BENCH_METATOOL`` (default ``../shared/bench/metatool``, as bench/match.py).
  Split by a hash of the query's text (bench/match.py's ``is_tuning``: 30 % tuning), so the
  held-out part is the one every earlier MetaTool figure was given on. The whole tuning part
  (6,261 queries) is tuned on.
- **ToolLens** — ``AIQ_BENCH_TOOLLENS``: a clone of https://github.com/quchangle1/COLT (a checkout,
  or a bare clone / mirror read at HEAD), files ``datasets/ToolLens/{corpus,queries}.jsonl`` and
  ``qrels/{train,test}.tsv``. Its queries are written from templates, about forty per set of
  gold tools, and every test gold set occurs in train; so the split is **by gold set** (a hash of
  the sorted tool ids: 30 % tuning): the held-out part is the test queries whose gold set is
  held out, the tuning part a seeded sample of 2,000 train queries whose gold set is tuning.
- **StableToolBench** — ``AIQ_BENCH_STABLETOOLBENCH``: a clone of
  https://github.com/THUNLP-MT/StableToolBench, the six ``solvable_queries/test_instruction``
  sets (765 queries); the catalog is every API any of them lists (2,479). Split by a hash of the
  query id (40 % tuning).
- **Authored** — the project's own requests against the twelve Anthropic skills of
  ``../shared/corpus`` (``AIQ_BENCH_CORPUS``) plus the bundled skills (21 in all):
  ``tests/match/data/trigger_evals`` (the should-trigger queries) and
  ``tests/match/data/corpus_requests.tsv`` split by a hash of the query (40 % tuning);
  ``tests/evals/data`` (written later, never tuned on) is held out whole.

None of them is one of the query adapter's training sets (Seal-Tools, ToolAlpaca, BFCL).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
import re
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiq_tui.skills.model import SkillMeta

ROOT = Path(__file__).resolve().parents[2]


def _shared(*parts: str) -> Path:
    """``../shared/<parts>`` next to the checkout (a worktree sits one level deeper)."""
    for parent in ROOT.parents:
        candidate = parent.joinpath("shared", *parts)
        if candidate.exists():
            return candidate
    return ROOT.parent.joinpath("shared", *parts)


ENV = {
    "metatool": "AIQ_BENCH_METATOOL",
    "toollens": "AIQ_BENCH_TOOLLENS",
    "stabletoolbench": "AIQ_BENCH_STABLETOOLBENCH",
    "authored": "AIQ_BENCH_CORPUS",
}
TUNE_SAMPLE = {
    "metatool": None,
    "toollens": 2000,
}  # MetaTool: its whole tuning part (6,261)
SAMPLE_SEED = 36


@dataclass(frozen=True)
class PanelCase:
    query: str
    gold: frozenset[str]  # the tools that serve it (a hit is any of them)
    group: str  # the bootstrap's resampling unit: the gold set (templated queries share it)


@dataclass(frozen=True)
class Dataset:
    name: str
    metas: tuple[SkillMeta, ...]
    tuning: tuple[PanelCase, ...]
    held_out: tuple[PanelCase, ...]
    source: str = ""  # where it was read from
    notes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Missing:
    """A dataset that could not be read: what is missing and how to provide it."""

    name: str
    reason: str


def share_of(key: str, salt: str = "") -> float:
    """A stable number in [0, 1) from ``key``: the deterministic split (no RNG state, no order)."""
    return (
        int(hashlib.sha1((salt + key).encode("utf-8")).hexdigest()[:8], 16)
        / 0x1_0000_0000
    )


def split(
    items: Iterable[Any], key: Callable[[Any], str], tuning_share: float, salt: str = ""
) -> tuple[list[Any], list[Any]]:
    """(tuning, held_out): an item is tuning when its key's hash falls below ``tuning_share``.
    Items with the same key always land on the same side."""
    tuning: list[Any] = []
    held: list[Any] = []
    for item in items:
        (tuning if share_of(key(item), salt) < tuning_share else held).append(item)
    return tuning, held


def gold_key(gold: Iterable[str]) -> str:
    return "|".join(sorted(gold))


def sample(cases: Sequence[PanelCase], size: int | None) -> list[PanelCase]:
    if size is None or len(cases) <= size:
        return list(cases)
    return random.Random(SAMPLE_SEED).sample(list(cases), size)


def _meta(name: str, description: str, root: Path) -> SkillMeta:
    return SkillMeta(
        name=name,
        description=description,
        path=root / name / "SKILL.md",
        source_dir=root,
    )


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "tool"


def api_meta(
    tool: str, api: str, description: str, category: str, root: Path, taken: set[str]
) -> SkillMeta:
    """A RapidAPI endpoint as a skill: named "<tool>-<api>", described by what it does."""
    name = slug(f"{tool} {api}")
    base, number = name, 2
    while name in taken:
        name, number = f"{base}-{number}", number + 1
    taken.add(name)
    what = " ".join((description or "").split()) or api
    return _meta(name, f"{what} ({tool}; {category})", root)


# -- reading a clone -------------------------------------------------------------------------


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def read_tree(root: Path, relative: str) -> bytes | None:
    """A file of a checkout, or of a bare clone / mirror at HEAD; None when absent."""
    file = root / relative
    if file.is_file():
        return file.read_bytes()
    if _is_git_dir(root):
        try:
            done = subprocess.run(
                ["git", "--git-dir", str(root), "show", f"HEAD:{relative}"],
                capture_output=True,
                check=False,
            )
        except OSError:
            return None
        return done.stdout if done.returncode == 0 else None
    return None


def configured(name: str, default: Path | None) -> Path | None:
    raw = os.environ.get(ENV[name])
    return Path(raw).expanduser() if raw else default


# -- the datasets ----------------------------------------------------------------------------


def metatool(root: Path | None) -> Dataset | Missing:
    if (
        root is None
        or not (root / "plugin_des.json").is_file()
        or not (root / "all_clean_data.csv").is_file()
    ):
        return Missing(
            "metatool",
            f"MetaTool data not found in {root} (plugin_des.json, all_clean_data.csv); "
            f"set {ENV['metatool']}",
        )
    from bench.match import is_tuning

    tools: dict[str, str] = json.loads(
        (root / "plugin_des.json").read_text(encoding="utf-8")
    )
    with (root / "all_clean_data.csv").open(encoding="utf-8", newline="") as handle:
        cases = [
            PanelCase(row["Query"], frozenset({row["Tool"]}), row["Tool"])
            for row in csv.DictReader(handle)
        ]
    tuning = [case for case in cases if is_tuning(case.query)]
    held = [case for case in cases if not is_tuning(case.query)]
    return Dataset(
        "metatool",
        tuple(_meta(n, d, root) for n, d in tools.items()),
        tuple(sample(tuning, TUNE_SAMPLE["metatool"])),
        tuple(held),
        str(root),
        {
            "split": "hash of the query text (bench/match.py is_tuning, 30 % tuning)",
            "tuning_pool": len(tuning),
        },
    )


TOOLLENS = "datasets/ToolLens"


def toollens(root: Path | None) -> Dataset | Missing:
    files = {
        part: read_tree(root, f"{TOOLLENS}/{part}") if root else None
        for part in (
            "corpus.jsonl",
            "queries.jsonl",
            "qrels/train.tsv",
            "qrels/test.tsv",
        )
    }
    absent = [part for part, data in files.items() if data is None]
    if absent:
        return Missing(
            "toollens",
            f"ToolLens not found in {root} (no {TOOLLENS}/{absent[0]}); set "
            f"{ENV['toollens']} to a clone of https://github.com/quchangle1/COLT",
        )
    taken: set[str] = set()
    name_of: dict[str, str] = {}
    metas = []
    for line in files["corpus.jsonl"].decode("utf-8").splitlines():  # type: ignore[union-attr]
        row = json.loads(line)
        fields = dict(
            re.findall(
                r"(category_name|tool_name|api_name|api_description):(.*?)(?=, \w+:|$)",
                row["text"],
            )
        )
        meta = api_meta(
            fields.get("tool_name", ""),
            fields.get("api_name", ""),
            fields.get("api_description", ""),
            fields.get("category_name", ""),
            root,
            taken,
        )  # type: ignore[arg-type]
        name_of[row["_id"]] = meta.name
        metas.append(meta)
    text = {
        row["_id"]: row["text"]
        for row in map(json.loads, files["queries.jsonl"].decode("utf-8").splitlines())
    }  # type: ignore[union-attr]

    def qrels(data: bytes) -> dict[str, frozenset[str]]:
        gold: dict[str, set[str]] = {}
        for line in data.decode("utf-8").splitlines()[1:]:
            query, tool, *_ = line.split("\t")
            gold.setdefault(query, set()).add(name_of[tool])
        return {query: frozenset(tools) for query, tools in gold.items()}

    def cases(gold: dict[str, frozenset[str]]) -> list[PanelCase]:
        return [
            PanelCase(text[q], tools, gold_key(tools))
            for q, tools in sorted(gold.items(), key=lambda i: int(i[0]))
        ]

    train, test = (
        cases(qrels(files["qrels/train.tsv"])),
        cases(qrels(files["qrels/test.tsv"])),
    )  # type: ignore[arg-type]
    tuning, _ = split(train, lambda case: case.group, 0.3, "toollens")
    _, held = split(test, lambda case: case.group, 0.3, "toollens")
    return Dataset(
        "toollens",
        tuple(metas),
        tuple(sample(tuning, TOOLLENS_SAMPLE)),
        tuple(held),
        str(root),
        {
            "split": "hash of the gold-tool set (30 % of gold sets tuning): held-out = test queries "
            "of held-out gold sets, tuning = train queries of tuning gold sets",
            "tuning_pool": len(tuning),
            "test_queries": len(test),
        },
    )


TOOLLENS_SAMPLE = TUNE_SAMPLE["toollens"]
STB_SETS = (
    "G1_instruction",
    "G1_category",
    "G1_tool",
    "G2_instruction",
    "G2_category",
    "G3_instruction",
)


def stabletoolbench(root: Path | None) -> Dataset | Missing:
    loaded = {}
    for name in STB_SETS:
        data = (
            read_tree(root, f"solvable_queries/test_instruction/{name}.json")
            if root
            else None
        )
        if data is None:
            return Missing(
                "stabletoolbench",
                f"StableToolBench not found in {root} (no solvable_queries/"
                f"test_instruction/{name}.json); set {ENV['stabletoolbench']} to a clone of "
                "https://github.com/THUNLP-MT/StableToolBench",
            )
        loaded[name] = json.loads(data)
    taken: set[str] = set()
    name_of: dict[tuple[str, str], str] = {}
    metas = []
    cases = []
    for set_name, items in loaded.items():
        for item in items:
            for api in item["api_list"]:
                key = (api["tool_name"], api["api_name"])
                if key not in name_of:
                    meta = api_meta(
                        *key,
                        api.get("api_description", ""),
                        api.get("category_name", ""),
                        root,
                        taken,
                    )  # type: ignore[arg-type]
                    name_of[key] = meta.name
                    metas.append(meta)
            gold = frozenset(
                name_of[tuple(pair)]
                for pair in item["relevant APIs"]
                if tuple(pair) in name_of
            )
            if gold:
                cases.append(
                    (
                        f"{set_name}/{item['query_id']}",
                        PanelCase(item["query"], gold, gold_key(gold)),
                    )
                )
    tuning, held = split(cases, lambda pair: pair[0], 0.4, "stabletoolbench")
    return Dataset(
        "stabletoolbench",
        tuple(metas),
        tuple(case for _, case in tuning),
        tuple(case for _, case in held),
        str(root),
        {"split": "hash of the set and query id (40 % tuning)"},
    )


def authored(corpus: Path | None) -> Dataset | Missing:
    if corpus is None or not corpus.is_dir():
        return Missing(
            "authored",
            f"the Anthropic skills corpus not found in {corpus}; set {ENV['authored']}",
        )
    from aiq_tui.config import SkillsSettings
    from aiq_tui.skills.discover import SkillDir, scan
    from aiq_tui.skills.store import bundled_defaults

    result = scan(
        [SkillDir(corpus, "flag"), SkillDir(Path(str(bundled_defaults())), "flag")],
        SkillsSettings(),
    )
    metas = (
        tuple(result.metas.values())
        if isinstance(result.metas, dict)
        else tuple(result.metas)
    )
    tests = ROOT / "tests"
    tuned_sets: list[PanelCase] = []
    for path in sorted((tests / "match" / "data" / "trigger_evals").glob("*.json")):
        tuned_sets += [
            PanelCase(item["query"], frozenset({path.stem}), path.stem)
            for item in json.loads(path.read_text(encoding="utf-8"))
            if item.get("should_trigger")
        ]
    for line in (
        (tests / "match" / "data" / "corpus_requests.tsv")
        .read_text(encoding="utf-8")
        .splitlines()
    ):
        if line.strip() and not line.startswith("#"):
            query, skill = line.split("\t")
            tuned_sets.append(
                PanelCase(query.strip(), frozenset({skill.strip()}), skill.strip())
            )
    later: list[PanelCase] = []
    for path in sorted((tests / "evals" / "data").glob("*.json")):
        later += [
            PanelCase(item["query"], frozenset({path.stem}), path.stem)
            for item in json.loads(path.read_text(encoding="utf-8"))
            if item.get("should_trigger")
        ]
    tuning, held = split(tuned_sets, lambda case: case.query, 0.4, "authored")
    return Dataset(
        "authored",
        metas,
        tuple(tuning),
        tuple(held + later),
        str(corpus),
        {
            "split": "hash of the query (40 % tuning) of trigger_evals + corpus_requests.tsv; "
            "tests/evals/data held out whole"
        },
    )


def load_all() -> list[Dataset | Missing]:
    """Every panel dataset, or what is missing for it."""
    return [
        metatool(configured("metatool", _shared("bench", "metatool"))),
        toollens(configured("toollens", None)),
        stabletoolbench(configured("stabletoolbench", None)),
        authored(configured("authored", _shared("corpus", "anthropic-skills"))),
    ]
