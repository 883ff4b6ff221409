"""bench/query_adapter/train.py, which trains the shipped MiniLM query adapter: the pure parts
(reading each source's format into retrieval groups, the batch order, folding the strength α)
on tiny inline samples, and one small training run when torch is installed. No data, no
network, no model."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from bench.query_adapter import train
from bench.query_adapter.train import (
    BfclSet,
    EmbeddedGroup,
    SourceTree,
    TrainingSettings,
)

SEAL_TOOLS = [
    {
        "api_name": "getHealthWorkforce",
        "api_description": "Retrieve the health workforce of a location",
    },
    {"api_name": "bookFlight", "api_description": "Book a  flight\nbetween two cities"},
    {"api_name": "a", "api_description": "A"},
    {"api_name": "b", "api_description": "B"},
    {"api_name": "c", "api_description": "C"},
]
SEAL_QUERIES = [
    {
        "id": "dev-0",
        "query": "How many nurses work in Peru?",
        "calling": [{"api": "getHealthWorkforce"}, {"api": "getHealthWorkforce"}],
    },
    {
        "id": "dev-1",
        "query": "Calls a tool the catalog lacks",
        "calling": [{"api": "notInCatalog"}],
    },
    {
        "id": "dev-2",
        "query": "A plan of four calls",
        "calling": [{"api": "a"}, {"api": "b"}, {"api": "c"}, {"api": "bookFlight"}],
    },
    {
        "id": "dev-3",
        "query": "Fly me to Rome and back",
        "calling": [{"api": "bookFlight"}, {"api": "a"}],
    },
]


def test_seal_tools_requests_point_at_the_tools_they_call_and_plans_are_left_out() -> (
    None
):
    group = train.seal_tools_group(SEAL_TOOLS, SEAL_QUERIES)

    assert group.catalog[:2] == (
        "get health workforce: Retrieve the health workforce of a location",
        "book flight: Book a flight between two cities",
    )
    assert group.queries == ("How many nurses work in Peru?", "Fly me to Rome and back")
    assert group.positives == ((0,), (1, 2))


def test_toolalpaca_instructions_are_requests_for_their_api_whether_a_list_or_its_repr() -> (
    None
):
    apis = [
        {
            "Name": "Nager.Date",
            "Description": "Public holidays for more than 90 countries",
            "Instructions": "['Is today a holiday in China?', \"What's next Monday?\"]",
        },
        {
            "Name": "Axolotl",
            "Description": "Pictures of axolotls",
            "Instructions": ["Show me an axolotl"],
        },
    ]

    group = train.toolalpaca_group(apis)

    assert group.catalog == (
        "nager date: Public holidays for more than 90 countries",
        "axolotl: Pictures of axolotls",
    )
    assert group.queries == (
        "Is today a holiday in China?",
        "What's next Monday?",
        "Show me an axolotl",
    )
    assert group.positives == ((0,), (0,), (1,))


def _function(name: str, description: str) -> dict[str, object]:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "dict", "properties": {}},
    }


def _user(text: str) -> list[list[dict[str, str]]]:
    return [[{"role": "user", "content": text}]]


def test_bfcl_pools_functions_of_every_entry_and_asks_with_the_last_user_turn() -> None:
    area = _function("geometry.triangle_area", "Area of a triangle")
    simple = BfclSet(
        entries=(
            {
                "id": "simple_0",
                "question": _user("Area of a triangle with base 10 and height 5?"),
                "function": [area],
            },
            {
                "id": "simple_1",
                "question": _user("x" * train.MAX_QUERY_CHARS),
                "function": [area],
            },
        ),
        answers={
            "simple_0": [{"geometry.triangle_area": {"base": [10]}}],
            "simple_1": [{"geometry.triangle_area": {}}],
        },
    )
    multiple = BfclSet(
        entries=(
            {
                "id": "multiple_0",
                "question": [
                    [
                        {"role": "system", "content": "Be brief."},
                        {"role": "user", "content": "Hi"},
                    ],
                    [{"role": "user", "content": "Sum the multiples of 3 below 100"}],
                ],
                "function": [
                    area,
                    _function("math.sum_of_multiples", "Sum of multiples"),
                    _function("math.product", "Product of numbers"),
                ],
            },
            {
                "id": "simple_0",
                "question": _user("Same id as in the other set, no answer here"),
                "function": [area],
            },
        ),
        answers={"multiple_0": [{"math.sum_of_multiples": {}}, {"not.offered": {}}]},
    )

    group = train.bfcl_group([simple, multiple])

    # The triangle function offered three times is one row; names are shown by their last part.
    assert group.catalog == (
        "triangle area: Area of a triangle",
        "sum of multiples: Sum of multiples",
        "product: Product of numbers",
    )
    # Too long a question is left out; ground truth is looked up in the entry's own set.
    assert group.queries == (
        "Area of a triangle with base 10 and height 5?",
        "Sum the multiples of 3 below 100",
    )
    assert group.positives == ((0,), (1,))


def test_last_user_turn_is_what_the_user_said_last() -> None:
    assert train.last_user_turn("plain") == "plain"
    assert (
        train.last_user_turn(
            [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
        )
        == "a"
    )
    assert (
        train.last_user_turn(
            [[{"role": "system", "content": "only the system speaks"}]]
        )
        is None
    )


def _write_sources(root: Path) -> dict[str, SourceTree]:
    """The three repositories' layouts with a few records each (and their licences)."""
    samples: dict[str, str] = {
        "Seal-Tools_Dataset/tool.jsonl": "\n".join(
            json.dumps(tool) for tool in SEAL_TOOLS
        )
        + "\n",
        "Seal-Tools_Dataset/dev.jsonl": json.dumps(SEAL_QUERIES[0]) + "\n",
        "Seal-Tools_Dataset/test_in_domain.jsonl": json.dumps(SEAL_QUERIES[3]) + "\n",
        "Seal-Tools_Dataset/test_out_domain.jsonl": "",
        "data/eval_real.json": json.dumps(
            [
                {
                    "Name": "Nager.Date",
                    "Description": "Holidays",
                    "Instructions": "['Is today a holiday?']",
                }
            ]
        ),
        "data/eval_simulated.json": "[]",
    }
    for name in train.BFCL_SETS:
        entry = {
            "id": f"{name}_0",
            "question": _user(f"Request from {name}"),
            "function": [_function(f"tools.{name}", f"Does {name}")],
        }
        samples[
            f"berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_{name}.json"
        ] = json.dumps(entry) + "\n"
        samples[
            f"berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_{name}.json"
        ] = (
            json.dumps({"id": f"{name}_0", "ground_truth": [{f"tools.{name}": {}}]})
            + "\n"
        )
    trees = {}
    for source in train.SOURCES:
        tree = root / source.option
        for path in source.files:
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            (tree / path).write_text(samples[path], encoding="utf-8")
        (tree / "LICENSE").write_text(
            "                                 Apache License\n"
            "                           Version 2.0, January 2004\n",
            encoding="utf-8",
        )
        trees[source.option] = SourceTree(source, tree)
    return trees


def test_groups_load_from_checkouts_in_the_repositories_layout(tmp_path: Path) -> None:
    trees = _write_sources(tmp_path)

    seal, alpaca, bfcl = train.load_groups(trees)

    assert [group.name for group in (seal, alpaca, bfcl)] == [
        "seal-tools",
        "toolalpaca",
        "bfcl",
    ]
    assert seal.queries == ("How many nurses work in Peru?", "Fly me to Rome and back")
    assert alpaca.queries == ("Is today a holiday?",)
    assert bfcl.queries == tuple(f"Request from {name}" for name in train.BFCL_SETS)
    assert bfcl.positives == tuple((row,) for row in range(len(train.BFCL_SETS)))
    assert trees["gorilla"].licence_found() == "Apache-2.0"


def test_a_source_missing_a_file_names_the_repository_to_clone(tmp_path: Path) -> None:
    trees = _write_sources(tmp_path)
    (tmp_path / "toolalpaca" / "data" / "eval_simulated.json").unlink()

    with pytest.raises(train.SourceError, match="tangqiaoyu/ToolAlpaca"):
        train.load_groups(trees)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_bare_mirror_is_read_at_its_head(tmp_path: Path) -> None:
    work = tmp_path / "work"
    tree = _write_sources(work)["toolalpaca"].root
    git = [
        "git",
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "-c",
        "init.defaultBranch=main",
    ]
    subprocess.run([*git, "init", "-q", str(tree)], check=True)
    subprocess.run([*git, "-C", str(tree), "add", "."], check=True)
    subprocess.run([*git, "-C", str(tree), "commit", "-q", "-m", "sample"], check=True)
    subprocess.run(
        [*git, "clone", "-q", "--bare", str(tree), str(tmp_path / "mirror.git")],
        check=True,
    )
    head = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()

    mirror = SourceTree(train.TOOLALPACA, tmp_path / "mirror.git")

    assert train.toolalpaca_group(
        json.loads(mirror.read("data/eval_real.json"))
    ).queries == ("Is today a holiday?",)
    assert mirror.commit() == head


def test_check_data_prints_each_group_without_model_or_torch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_sources(tmp_path)
    options = [
        f"--{source.option}={tmp_path / source.option}" for source in train.SOURCES
    ]

    assert train.main([*options, "--check-data"]) == 0

    out = capsys.readouterr()
    assert "seal-tools: 2 requests over 5 tools" in out.err
    assert "'Is today a holiday?' → 'nager date: Holidays'" in out.out


@pytest.mark.parametrize(
    "extra",
    [
        ["--tau", "0"],
        ["--seeds", "0,x"],
        ["--epochs", "-1"],
        ["--alpha", "nan"],
        ["--compare", "no-such.npy"],
    ],
)
def test_bad_options_are_usage_errors(tmp_path: Path, extra: list[str]) -> None:
    _write_sources(tmp_path)
    options = [
        f"--{source.option}={tmp_path / source.option}" for source in train.SOURCES
    ]

    with pytest.raises(SystemExit) as exited:
        train.main([*options, *extra])

    assert exited.value.code == 2


def test_a_source_that_is_not_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exited:
        train.main(
            [
                "--seal-tools",
                str(tmp_path / "absent"),
                "--toolalpaca",
                str(tmp_path),
                "--gorilla",
                str(tmp_path),
            ]
        )

    assert exited.value.code == 2


def test_each_epoch_visits_every_request_once_in_an_order_fixed_by_the_seed() -> None:
    sizes = [10, 3, 7]

    first = train.epoch_batches(sizes, 4, np.random.default_rng(0))
    again = train.epoch_batches(sizes, 4, np.random.default_rng(0))
    other = train.epoch_batches(sizes, 4, np.random.default_rng(1))

    for group, size in enumerate(sizes):
        rows = np.concatenate([rows for g, rows in first if g == group])
        assert sorted(rows.tolist()) == list(range(size))
    assert all(len(rows) <= 4 for _, rows in first)
    assert [(g, rows.tolist()) for g, rows in first] == [
        (g, rows.tolist()) for g, rows in again
    ]
    assert [(g, rows.tolist()) for g, rows in first] != [
        (g, rows.tolist()) for g, rows in other
    ]


def test_folding_alpha_moves_queries_alpha_times_as_far_as_w() -> None:
    rng = np.random.default_rng(3)
    matrix = (np.eye(6) + 0.2 * rng.standard_normal((6, 6))).astype(np.float32)
    query = rng.standard_normal(6).astype(np.float32)

    assert np.array_equal(train.fold_strength(matrix, 1.0), matrix)
    folded = train.fold_strength(matrix, 1.3)
    assert folded.dtype == np.float32
    np.testing.assert_allclose(
        query @ folded, 1.3 * (query @ matrix) - 0.3 * query, rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(train.fold_strength(matrix, 0.0), np.eye(6), atol=0)


def test_positive_mask_marks_the_rows_serving_each_request() -> None:
    mask = train.positive_mask([(0, 2), (1,)], 3)

    assert mask.tolist() == [[True, False, True], [False, True, False]]


def _derangement_task(size: int) -> EmbeddedGroup:
    # Request i is most similar to tool i, but tool i+1 serves it: only a learnt map finds it.
    tools = np.eye(size, dtype=np.float32)
    queries = train.unit_rows(tools + 0.1)
    return EmbeddedGroup(
        "toy", tools, queries, tuple(((i + 1) % size,) for i in range(size))
    )


def test_training_learns_which_tool_serves_a_request_and_a_seed_repeats_exactly() -> (
    None
):
    pytest.importorskip("torch")
    group = _derangement_task(8)
    settings = TrainingSettings(
        reg=1e-4, tau=0.05, epochs=60, batch=4, lr=0.05, seeds=(0,), threads=1
    )

    def served(matrix: np.ndarray) -> float:
        scores = train.unit_rows(group.queries @ matrix) @ group.tools.T
        return float(np.mean(scores.argmax(1) == [rows[0] for rows in group.positives]))

    learnt = train.train_seed([group], settings, seed=0)

    assert served(np.eye(8, dtype=np.float32)) == 0.0
    assert served(learnt) == 1.0
    assert np.array_equal(learnt, train.train_seed([group], settings, seed=0))


def test_without_torch_the_trainer_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_sources(tmp_path)
    monkeypatch.setitem(
        sys.modules, "torch", None
    )  # import torch now fails, installed or not

    assert (
        train.main(
            [
                f"--{source.option}={tmp_path / source.option}"
                for source in train.SOURCES
            ]
        )
        == 1
    )

    assert "pip install torch==" in capsys.readouterr().err


def test_without_an_installed_model_the_trainer_stops_before_training(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_sources(tmp_path)
    monkeypatch.setitem(
        sys.modules, "torch", types.ModuleType("torch")
    )  # present; never reached
    out = tmp_path / "adapter.npy"

    options = [
        f"--{source.option}={tmp_path / source.option}" for source in train.SOURCES
    ]
    assert train.main([*options, "--out", str(out)]) == 1

    assert (
        "make semantic" in capsys.readouterr().err
    )  # the test's config home has no model
    assert not out.exists()
