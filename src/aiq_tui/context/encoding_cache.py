"""A tiktoken encoding's parsed ranks kept on disk between runs, so start-up skips the parse.

tiktoken reads an encoding from a ``.tiktoken`` file of ≈ 100,000 base64 lines and decodes
them in Python on every process start (≈ 0.1 CPU-s for cl100k, more under a profiler). Every
command that counts tokens pays it. This module stores what the registered constructor
returned — ranks, split pattern, special tokens — as one :mod:`marshal` blob in the config
home's data folder and builds the encoding from it with the public ``tiktoken.Encoding``.

The blob is keyed by the source file (path, size, mtime) and tiktoken's version, so a new
data file or a new tiktoken rebuilds it; it carries a checksum, so a damaged file is
ignored and rebuilt, never trusted. It is written to a temporary file and renamed into
place, so a reader never sees half a blob. Any failure here falls back to tiktoken's own
loading: the cache can make start-up faster, never make counting wrong or impossible.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any

FORMAT = 1  # bump when the blob's layout changes
_MAGIC = b"aiq-tiktoken-ranks\n"
_DIGEST = 32  # bytes of blake2b over the payload


def cache_key(name: str, source: Path) -> dict[str, Any]:
    """What the blob must have been built from to be used: raises OSError if the source is gone."""
    import tiktoken

    stat = source.stat()
    return {
        "format": FORMAT,
        "encoding": name,
        "tiktoken": getattr(tiktoken, "__version__", ""),
        "source": str(source),
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
    }


def cache_file(cache_dir: Path, name: str) -> Path:
    return cache_dir / f"{name}.ranks"


def read_cached(path: Path, key: dict[str, Any]) -> dict[str, Any] | None:
    """The constructor's keyword arguments stored at ``path`` for ``key``; None when the file
    is missing, damaged, of another layout or built from another source."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(_MAGIC) + _DIGEST
    if not data.startswith(_MAGIC) or len(data) <= head:
        return None
    payload = data[head:]
    if (
        hashlib.blake2b(payload, digest_size=_DIGEST).digest()
        != data[len(_MAGIC) : head]
    ):
        return None
    try:
        stored_key, kwargs = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    if stored_key != key or not _well_formed(kwargs):
        return None
    return kwargs


def _well_formed(kwargs: Any) -> bool:
    return (
        isinstance(kwargs, dict)
        and isinstance(kwargs.get("name"), str)
        and isinstance(kwargs.get("pat_str"), str)
        and isinstance(kwargs.get("mergeable_ranks"), dict)
        and bool(kwargs["mergeable_ranks"])
        and isinstance(kwargs.get("special_tokens"), dict)
    )


def write_cached(path: Path, key: dict[str, Any], kwargs: dict[str, Any]) -> None:
    """Store ``kwargs`` for ``key`` atomically (temporary file in the same folder, then rename)."""
    payload = marshal.dumps((key, kwargs))
    digest = hashlib.blake2b(payload, digest_size=_DIGEST).digest()
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(_MAGIC + digest + payload)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def constructor_kwargs(name: str) -> dict[str, Any]:
    """What tiktoken's registered constructor for ``name`` returns (parses the data file)."""
    import tiktoken.registry

    tiktoken.registry.list_encoding_names()  # discovers the tiktoken_ext plugins
    constructor = tiktoken.registry.ENCODING_CONSTRUCTORS[name]  # type: ignore[index]
    kwargs = dict(constructor())
    wanted = (
        "name",
        "pat_str",
        "mergeable_ranks",
        "special_tokens",
        "explicit_n_vocab",
    )
    return {key: kwargs[key] for key in wanted if key in kwargs}


def load_with_cache(name: str, source: Path, cache_dir: Path) -> Any:
    """The encoding ``name`` (data file ``source``), from the cache in ``cache_dir`` when valid;
    on a miss it is parsed the usual way and the cache (re)written, best effort."""
    import tiktoken

    key = cache_key(name, source)
    path = cache_file(cache_dir, name)
    kwargs = read_cached(path, key)
    if kwargs is None:
        kwargs = constructor_kwargs(name)
        try:
            write_cached(path, key, kwargs)
        except OSError:
            pass  # a read-only home still counts exactly, only without the speed-up
    return tiktoken.Encoding(**kwargs)
