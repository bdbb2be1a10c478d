"""Crash-safe writes of whole folders and single files: what checkpoints and caches are saved with.

A folder is written into a fresh hidden sibling (``.<name>.saving-<pid>-<hex>``), every file and
the folder are fsynced, and the sibling is then swapped with the target in one step
(Linux ``renameat2(RENAME_EXCHANGE)``). A process killed at any point (SIGKILL, power loss after
the fsyncs) therefore leaves the target as it was or as the complete new version, never a mix.
Where the exchange is unavailable (another OS, a file system without it), the target is first
renamed to ``.<name>.replaced-<pid>-<hex>`` and the new folder renamed in; a kill between those two
renames leaves no target, and :func:`recover` (run by the next save and by the checkpoint loaders)
moves the previous version back.

Siblings left by a killed process are removed by the next write to the same target; those of a
live process (another save in progress) are left alone. Files get mode 0666 and folders 0777,
both less the umask, like any other file the user writes, whatever mode a writer used (safetensors
writes its file through a 0600 temporary file), so a server running as another user can read them.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SAVING, REPLACED = "saving", "replaced"
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP}


def why_write_failed(exc: BaseException) -> str:
    """One line saying why a write failed: the disk is full, the OS's reason, or the writer's message."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full (no space left on device)"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return first_line(exc)


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (at most 200 characters), or its class name."""
    return (str(exc).splitlines() or [exc.__class__.__name__])[0][:200]


def _sibling(target: Path, role: str) -> Path:
    """A hidden sibling of ``target`` owned by this process: ``.<name>.<role>-<pid>-<hex>``."""
    return target.with_name(f".{target.name}.{role}-{os.getpid()}-{secrets.token_hex(4)}")


def _leftovers(target: Path, role: str) -> list[Path]:
    """Siblings of ``target`` in ``role`` whose owning process is gone (killed mid-write)."""
    pattern = re.compile(rf"\.{re.escape(target.name)}\.{role}-(\d+)-[0-9a-f]+")
    try:
        names = os.listdir(target.parent)
    except OSError:
        return []
    return [target.with_name(name) for name in names if (m := pattern.fullmatch(name)) and not _alive(int(m.group(1)))]


def clean_folder(folder: Path) -> int:
    """Delete every staging sibling in ``folder`` left by a writer that is gone (a save or an import
    killed mid-write: ``.<name>.saving-<pid>-<hex>``), restoring a target first where one was lost
    (:func:`recover`); returns how many were deleted. A live writer's siblings are left alone."""
    pattern = re.compile(rf"\.(.+)\.({SAVING}|{REPLACED})-(\d+)-[0-9a-f]+")
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    gone = 0
    for name in names:
        m = pattern.fullmatch(name)
        if m is None or _alive(int(m.group(3))):
            continue
        if m.group(2) == REPLACED:
            recover(folder / m.group(1))
        if os.path.lexists(folder / name):
            _remove(folder / name)
            gone += 1
    return gone


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _remove(path: Path) -> None:
    """Delete a file, link or folder, ignoring what is already gone."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def recover(target: Path) -> None:
    """If ``target`` is missing because a save was killed between its two renames (the fallback
    without an atomic exchange), move the previous version back. Never raises."""
    try:
        if not os.path.lexists(target):
            for previous in _leftovers(target, REPLACED):
                os.rename(previous, target)
                break
    except OSError:
        pass


def _clean(target: Path) -> None:
    """Restore a target lost by the fallback (:func:`recover`), then delete dead writers' siblings."""
    recover(target)
    for path in _leftovers(target, SAVING) + _leftovers(target, REPLACED):
        _remove(path)


def fsync_path(path: Path) -> None:
    """fsync a file or a folder (a folder's entries are durable only once it is fsynced)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_new(path: Path, data: bytes) -> None:
    """Create ``path`` (it must not exist yet), write all of ``data`` and fsync it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def json_bytes(data: Any, indent: int | None = 2) -> bytes:
    return json.dumps(data, indent=indent, ensure_ascii=False).encode("utf-8")


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to ``path`` atomically (:func:`write_atomic`)."""
    write_atomic(path, json_bytes(data))


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a hidden sibling file, fsync and os.replace: a reader (or a
    process killed mid-write) sees the old file or the new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _clean(path)
    tmp = _sibling(path, SAVING)
    try:
        write_new(tmp, data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_quietly(path.parent)


def _fsync_quietly(folder: Path) -> None:
    """fsync a folder after a swap: the swap is done, so a failure here only weakens durability
    against power loss (never against a killed process) and must not report a failed save."""
    try:
        fsync_path(folder)
    except OSError:
        pass


def _seal_tree(folder: Path, file_mode: int) -> None:
    """Give every file under ``folder`` ``file_mode`` and fsync it, then fsync each folder (deepest first)."""
    for root, _dirs, files in os.walk(folder, topdown=False):
        for name in files:
            os.chmod(Path(root, name), file_mode)
            fsync_path(Path(root, name))
        fsync_path(Path(root))


def exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically with Linux renameat2(RENAME_EXCHANGE); False where unsupported."""
    rename = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if rename is None:
        return False
    if rename(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), str(b))


def _swap_in(staging: Path, target: Path) -> None:
    """Put the complete ``staging`` folder at ``target``; the old target is deleted afterwards."""
    if not os.path.lexists(target):
        os.rename(staging, target)  # a first save: atomic, there is nothing to keep
        return
    if exchange(staging, target):  # staging now holds the old version
        _fsync_quietly(target.parent)
        _remove(staging)
        return
    previous = _sibling(target, REPLACED)
    os.rename(target, previous)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(previous, target)
        raise
    _fsync_quietly(target.parent)
    _remove(previous)


@contextmanager
def atomic_folder(target: Path) -> Iterator[Path]:
    """Yield an empty staging folder beside ``target``; write everything into it. On a normal exit
    its files are fsynced and it replaces ``target`` in one step; on an exception it is deleted
    and ``target`` is left exactly as it was."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    _clean(target)
    staging = _sibling(target, SAVING)
    os.mkdir(staging)
    try:
        file_mode = 0o666 & os.stat(staging).st_mode  # a new folder has 0777 less the umask: read it, don't set it
        yield staging
        _seal_tree(staging, file_mode)
        _swap_in(staging, target)
    except BaseException:
        _remove(staging)
        raise
