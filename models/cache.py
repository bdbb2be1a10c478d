"""Folders the lab builds once and reuses (for example the real LLM converted to safetensors): a
cache written atomically like a checkpoint, with a manifest written last as its completion marker.

The manifest (``manifest.json``) records the ``key`` the cache was built from (what it was made
of, e.g. the source file's path, size and modification time; a JSON value, compared after a
round trip, so dicts, lists, strings and numbers) and every file's size and SHA-256.
A folder without a manifest, with another key, or whose files do not match it (missing,
truncated, grown, or with other bytes) is not complete, and :func:`ensure` rebuilds it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from models.atomic import atomic_folder, json_bytes, write_new

MANIFEST = "manifest.json"
FORMAT = 1
SIZE, SHA256 = "size", "sha256"


def user_cache_dir() -> Path:
    """$ATTN_LAB_CACHE, else $XDG_CACHE_HOME/attention-lab, else ~/.cache/attention-lab."""
    if os.environ.get("ATTN_LAB_CACHE"):
        return Path(os.environ["ATTN_LAB_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attention-lab"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def known_sha256(path: Path) -> str:
    """A file's SHA-256, read once per process for each (path, size, modification time): for files
    that are read again and again (a GGUF, a pretrained encoder's weights) and change only by being
    replaced."""
    stat = Path(path).stat()
    return _known_sha256(str(path), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _known_sha256(path: str, size: int, mtime_ns: int) -> str:
    return file_sha256(Path(path))


def _inventory(folder: Path) -> dict[str, dict[str, Any]]:
    """{relative POSIX path: {"size", "sha256"}} of every file under ``folder``."""
    return {
        path.relative_to(folder).as_posix(): {SIZE: path.stat().st_size, SHA256: file_sha256(path)}
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def read_manifest(folder: Path) -> dict | None:
    """The cache's manifest, or None when it is missing or unreadable (an unfinished build)."""
    try:
        data = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else None


def is_complete(folder: Path, key: Any = None, verify: str = SIZE) -> bool:
    """Whether ``folder`` is a finished cache (of ``key``, when given) whose files match its
    manifest: by size (``verify="size"``, cheap: catches truncated and missing files) or also by
    SHA-256 (``verify="sha256"``: reads every byte, catches any change)."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    if manifest is None or manifest.get("format") != FORMAT or (key is not None and manifest.get("key") != key):
        return False
    for name, entry in manifest["files"].items():
        rel = PurePosixPath(name)
        if rel.is_absolute() or ".." in rel.parts or name == MANIFEST or not isinstance(entry, dict):
            return False
        path = folder / rel
        try:
            if not path.is_file() or path.stat().st_size != entry.get(SIZE):
                return False
            if verify == SHA256 and file_sha256(path) != entry.get(SHA256):
                return False
        except OSError:
            return False
    return True


def build(folder: Path, write: Callable[[Path], None], key: Any) -> Path:
    """Run ``write(staging)`` to fill a fresh staging folder, add the manifest last and swap the
    folder in atomically: a build that fails or is killed leaves the previous cache, or none."""
    folder = Path(folder)
    with atomic_folder(folder) as staging:
        write(staging)
        manifest = {"format": FORMAT, "key": key, "files": _inventory(staging)}
        write_new(staging / MANIFEST, json_bytes(manifest))
    return folder


def ensure(folder: Path, write: Callable[[Path], None], key: Any, verify: str = SIZE) -> Path:
    """``folder`` when it is a complete cache of ``key``; otherwise (missing, half-written, corrupt,
    or built from something else) rebuilt with ``write`` first."""
    if is_complete(folder, key, verify):
        return Path(folder)
    return build(folder, write, key)
