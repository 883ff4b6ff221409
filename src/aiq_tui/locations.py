"""Every path the app uses, resolved once from flags, environment and defaults.

The config home defaults to ``~/.aiqconfig`` and is overridden by ``AIQ_HOME`` and then by
the ``--home`` flag. Nothing else in the code base builds these paths by hand.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import msgspec

HOME_ENV_VAR = "AIQ_HOME"
DEFAULT_HOME_NAME = ".aiqconfig"


class Home(msgspec.Struct, frozen=True):
    """The config home and the fixed layout inside it (seed 001)."""

    root: Path

    @property
    def config_dir(self) -> Path:
        return self.root / "config"

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.yaml"

    @property
    def sources_file(self) -> Path:
        return self.config_dir / "sources.yaml"

    @property
    def sessions_dir(self) -> Path:
        return self.root / "sessions"

    @property
    def skills_dir(self) -> Path:
        return self.root / "skills"

    @property
    def tools_dir(self) -> Path:
        return self.root / "tools"

    @property
    def data_dir(self) -> Path:
        """Files the app generates for itself (sample database, caches)."""
        return self.root / "data"

    @property
    def catalog_cache(self) -> Path:
        """Parsed skill metadata between runs (see ``skills.catalog_cache``)."""
        return self.data_dir / "catalog-cache.json"

    @property
    def tokenizer_cache_dir(self) -> Path:
        """tiktoken encodings' parsed ranks between runs (see ``context.encoding_cache``)."""
        return self.data_dir / "tokenizers"

    @property
    def sample_database(self) -> Path:
        return self.data_dir / "sample.db"

    def layout_dirs(self) -> tuple[Path, ...]:
        return (
            self.config_dir,
            self.sessions_dir,
            self.skills_dir,
            self.tools_dir,
            self.data_dir,
        )

    def ensure(self) -> None:
        """Create the layout if missing (first run), private to the user (0700): sessions,
        logs and caches hold tool results and what servers print, secrets among them. Layout
        folders that exist already are tightened to 0700 when this user owns them; the home
        folder itself only when it is made here (``--home .`` or ``AIQ_HOME=~`` must not
        change the mode of a folder the user chose), and files inside are never touched."""
        if not self.root.exists():
            private_dir(self.root)
        for directory in self.layout_dirs():
            private_dir(directory)


PRIVATE_DIR_MODE = 0o700


def private_dir(path: Path) -> Path:
    """``path`` as a folder only its owner can enter: created 0700 (parents too), or
    tightened to 0700 when it exists and belongs to this user (another user's folder, a
    shared ``AIQ_HOME``, is left as it is). Never a folder that is everyone's by design — a
    sticky one like ``/tmp`` (root owns it, so ``--home /tmp`` run as root locked every other
    user, and PostgreSQL's, out of it), ``/`` or the user's home."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    try:
        info = path.stat()
        if (
            info.st_uid == os.getuid()
            and info.st_mode & 0o077
            and not info.st_mode & stat.S_ISVTX
            and not _shared_root(path)
        ):
            os.chmod(path, PRIVATE_DIR_MODE)
    except OSError:  # a read-only mount: the folder stays as it is, and works
        pass
    return path


def _shared_root(path: Path) -> bool:
    """``/`` or the user's home: a folder the config home may be put in, never one to close."""
    resolved = path.resolve()
    return resolved == Path(resolved.anchor) or resolved == Path.home().resolve()


def resolve_home(
    flag: str | os.PathLike[str] | None = None, env: dict[str, str] | None = None
) -> Home:
    """The home chosen by ``--home``, else ``$AIQ_HOME``, else ``~/.aiqconfig``."""
    environ = os.environ if env is None else env
    if flag:
        return Home(Path(flag).expanduser().resolve())
    if environ.get(HOME_ENV_VAR):
        return Home(Path(environ[HOME_ENV_VAR]).expanduser().resolve())
    return Home(Path.home() / DEFAULT_HOME_NAME)
