"""The studio's saved runs on disk: who sees and changes which, how many each may keep, what a
run.json may say, and runs in and out as zips (no Streamlit).

Every run folder's ``run.json`` is checked field by field when it is read (:func:`checked_meta`): a
run that says anything else (a wrong type, an unknown status, a name with control characters, settings
the studio would refuse) is not listed, so that one bad run never breaks another student's page, and an
imported zip that says it is refused with one sentence naming the field.

Ownership: a run's ``owner`` is a key derived from its browser's secret id (:mod:`models.runs.owners`);
a session sees its own runs, published ones and command-line ones (no owner), and changes only its own.
A zip made for download (:func:`export_zip`) carries no owner, id or date; an imported zip gets the
importing session as its owner (:func:`import_zip`).

Quotas (:class:`Limits`): each owner keeps at most ``per_owner`` runs, the server at most ``total``; a
teacher changes them, or clears the class's runs, with ``python -m models.runs`` (:mod:`models.runs.__main__`).

Bounds before work: a zip is read only within :data:`~models.training.runs.MAX_ZIP_BYTES`, its member
names are a fixed list, and the model its config describes is counted (:func:`config_parameters`) and
refused above :data:`~models.training.runs.MAX_PARAMETERS` before anything is built.
"""

from __future__ import annotations

import fcntl
import io
import json
import logging
import math
import os
import re
import shutil
import time
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.atomic import atomic_folder, clean_folder, first_line, json_bytes, write_json_atomic, write_new
from models.checkpoints import CONFIG, WEIGHTS, CheckpointError, read_json
from models.errors import without_paths
from models.training.runs import (
    CHECKPOINT,
    FINISHED,
    ARCHITECTURES,
    LOADERS,
    MAX_NAME,
    MAX_PARAMETERS,
    MAX_STEPS,
    MAX_ZIP_BYTES,
    SCORE_METRICS,
    RESUME,
    RUN_FILE,
    STATE,
    STATES,
    STOPPED,
    ZIP_NAMES,
    RunError,
    RunSettings,
    new_run_id,
    runs_dir,
)

log = logging.getLogger(__name__)

MAX_STORED = 40  # runs the server keeps on disk (every owner together)
MAX_PER_OWNER = 6  # runs one browser keeps (a new one is refused until it deletes one)
LIMITS_FILE = ".limits.json"  # the teacher's caps (python -m models.runs cap …)
LOCK_FILE = "training.lock"  # held (flock) by the process that trains the run; the kernel frees it when that dies
RUN_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{6}")
#: run.json's fields that a zip carries (nothing that says who made it, or when, or where it lived)
PUBLIC_FIELDS = (
    "name",
    "family",
    "kind",
    "metric",
    "score",
    "aer",
    "bleu",
    "steps",
    "seconds",
    "status",
    "data",
    "device",
    "settings",
    "vocab",
)


# --------------------------------------------------------------------------------------
# What a run.json may say
# --------------------------------------------------------------------------------------


def _text(value: object, most: int, empty: bool = True) -> bool:
    return isinstance(value, str) and len(value) <= most and (empty or bool(value.strip())) and value.isprintable()


def _number(value: object, low: float = -math.inf, high: float = math.inf) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and low <= value <= high
    )


def _settings_ok(value: object) -> bool:
    if not isinstance(value, dict):
        return False
    try:
        RunSettings(**value)
    except (RunError, TypeError, ValueError):
        return False
    return True


#: field → its check (a missing optional field is fine; a present one must pass)
FIELD_CHECKS: dict[str, Any] = {
    "id": lambda v: isinstance(v, str) and RUN_ID.fullmatch(v) is not None,
    "name": lambda v: _text(v, MAX_NAME, empty=False),
    "family": lambda v: v in LOADERS,
    "created": lambda v: _number(v, 0),
    "owner": lambda v: v is None or _text(v, 64, empty=False),
    "published": lambda v: isinstance(v, bool),
    "imported": lambda v: isinstance(v, bool),
    "status": lambda v: v in STATES,
    "message": lambda v: _text(v, 500),
    "device": lambda v: _text(v, 120),
    "data": lambda v: _text(v, 200),
    "steps": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_STEPS,
    "seconds": lambda v: _number(v, 0, 1e8),
    "settings": _settings_ok,
    "kind": lambda v: v is None or v in ARCHITECTURES.values(),  # a transformer's architecture
    "metric": lambda v: v in SCORE_METRICS,
    "score": lambda v: v is None or _number(v),
    "bleu": lambda v: v is None or _number(v),  # a run of before the LM and BERT families
    "aer": lambda v: v is None or _number(v, 0, 1),
    "vocab": lambda v: (
        isinstance(v, list)
        and len(v) <= 2
        and all(
            isinstance(c, list) and len(c) == 2 and all(_number(n, 0, 1e9) and isinstance(n, int) for n in c) for c in v
        )
    ),
}
REQUIRED = ("name", "family")


def checked_meta(meta: object, fields: Iterable[str] = FIELD_CHECKS) -> dict[str, Any]:
    """The known ``fields`` of a run.json, each checked (:data:`FIELD_CHECKS`); RunError
    ``run.err.bad_field`` naming the first bad one. Unknown fields are dropped."""
    if not isinstance(meta, dict):
        raise RunError("run.err.bad_field", field="run.json")
    out: dict[str, Any] = {}
    for name in fields:
        if name not in meta:
            if name in REQUIRED:
                raise RunError("run.err.bad_field", field=name)
            continue
        if not FIELD_CHECKS[name](meta[name]):
            raise RunError("run.err.bad_field", field=name)
        out[name] = meta[name]
    return out


# --------------------------------------------------------------------------------------
# Saved runs, and who sees them
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SavedRun:
    """A run folder with a checkpoint: its id, name and (checked) run.json."""

    id: str
    folder: Path
    name: str
    meta: dict[str, Any]

    @property
    def checkpoint(self) -> Path:
        return self.folder / CHECKPOINT


def visible(meta: dict[str, Any], owner: str | None) -> bool:
    """Whether session ``owner`` sees a run: its own, a published one, or one of the command line (no owner)."""
    return not meta.get("owner") or meta.get("owner") == owner or meta.get("published") is True


def mine(meta: dict[str, Any], owner: str | None) -> bool:
    """Whether session ``owner`` may change a run: its own, or one of the command line (no owner)."""
    return not meta.get("owner") or meta.get("owner") == owner


def list_runs(root: Path | None = None, owner: str | None = None) -> list[SavedRun]:
    """The runs session ``owner`` sees (:func:`visible`; None: a session of its own, so only published
    and command-line runs) under ``root`` (default :func:`runs_dir`) that have a checkpoint, newest first."""
    return [r for r in saved_runs(root) if visible(r.meta, owner)]


def saved_runs(root: Path | None = None) -> list[SavedRun]:
    """Every run under ``root`` that has a checkpoint and a run.json that passes :func:`checked_meta`,
    whoever owns it, newest first. A run whose status says it is training while no process holds its
    lock was cut off (a killed server): it reads as stopped, resumable from its last checkpoint."""
    root = root if root is not None else runs_dir()
    out = []
    for meta_file in root.glob(f"*/{RUN_FILE}"):
        folder = meta_file.parent
        if folder.name.startswith(".") or not (folder / CHECKPOINT / CONFIG).is_file():
            continue
        try:
            meta = checked_meta(read_json(meta_file))
        except (CheckpointError, RunError) as exc:
            log.warning("run %s is not listed: %s", folder.name, first_line(exc))
            continue
        if meta.get("status") in ("waiting", "running") and not locked(folder):
            meta = dict(meta, status=STOPPED, message="cut off by a server restart" if resumable(folder) else "")
        out.append(SavedRun(folder.name, folder, str(meta["name"]), meta))
    return sorted(out, key=lambda r: float(r.meta.get("created") or 0), reverse=True)


def user_checkpoints(
    family: str, root: Path | None = None, owner: str | None = None, architecture: str | None = None
) -> list[tuple[str, str, bool]]:
    """(checkpoint folder, run name, whether it is ``owner``'s) of the saved runs of a checkpoint family (and
    transformer ``architecture``: encoder-decoder or decoder-only) that session ``owner`` sees, for model pickers;
    run.json keeps a transformer's architecture under the key "kind" (none: encoder-decoder)."""
    return [
        (str(r.checkpoint), r.name, mine(r.meta, owner))
        for r in list_runs(root, owner)
        if r.meta.get("family") == family and architecture in (None, r.meta.get("kind", "encoder-decoder"))
    ]


def resumable(folder: Path) -> bool:
    """Whether a run kept a training state to go on from (stopped, or cut off after a periodic save)."""
    return (folder / RESUME / STATE).is_file()


def find_run(run_id: str, root: Path | None = None, owner: str | None = None) -> SavedRun:
    """A saved run that session ``owner`` sees."""
    found = next((r for r in list_runs(root, owner) if r.id == run_id), None)
    if found is None:
        raise RunError("run.err.no_run", run_id=str(run_id)[:40])
    return found


def own_run(run_id: str, root: Path | None = None, owner: str | None = None) -> SavedRun:
    """A saved run that session ``owner`` may change (RunError for another session's published run)."""
    found = find_run(run_id, root, owner)
    if not mine(found.meta, owner):
        raise RunError("run.err.not_yours")
    return found


def rename_run(run_id: str, name: str, root: Path | None = None, owner: str | None = None) -> None:
    saved = own_run(run_id, root, owner)
    clean = clean_name(name)
    if not clean:
        raise RunError("run.err.no_name")
    write_json_atomic(saved.folder / RUN_FILE, dict(_raw_meta(saved.folder), name=clean))


def publish_run(run_id: str, published: bool, root: Path | None = None, owner: str | None = None) -> None:
    """Show session ``owner``'s run to every session of the server (``published``), or to it alone again."""
    saved = own_run(run_id, root, owner)
    write_json_atomic(saved.folder / RUN_FILE, dict(_raw_meta(saved.folder), published=bool(published)))


def delete_run(run_id: str, root: Path | None = None, owner: str | None = None) -> None:
    shutil.rmtree(own_run(run_id, root, owner).folder)


_NO_MARKUP = str.maketrans("[]<>", "()‹›")


def clean_name(name: str) -> str:
    """A run's name as kept: printable characters only, runs of spaces as one, at most MAX_NAME, and no
    [ ] < > (as ( ) ‹ ›): with them no markdown link or image and no HTML tag can be made of a name,
    even where a page forgets to escape it (every page escapes it too)."""
    printable = "".join(c if c.isprintable() else " " for c in str(name))
    return " ".join(printable.translate(_NO_MARKUP).split())[:MAX_NAME]


def _raw_meta(folder: Path) -> dict[str, Any]:
    return checked_meta(read_json(folder / RUN_FILE))


# --------------------------------------------------------------------------------------
# Quotas: per owner and for the server
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """How many runs one owner and the whole server may keep (stored and training together)."""

    per_owner: int = MAX_PER_OWNER
    total: int = MAX_STORED


def limits(root: Path | None = None) -> Limits:
    """The teacher's caps (:data:`LIMITS_FILE`) where set, else the defaults."""
    root = root if root is not None else runs_dir()
    try:
        data = json.loads((root / LIMITS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Limits()
    default = Limits()

    def cap(key: str, fallback: int) -> int:
        value = data.get(key) if isinstance(data, dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000 else fallback

    return Limits(cap("per_owner", default.per_owner), cap("total", default.total))


def set_limits(root: Path, per_owner: int | None = None, total: int | None = None) -> Limits:
    """Write the teacher's caps (None keeps the current one); returns the caps now in force."""
    now = limits(root)
    new = Limits(now.per_owner if per_owner is None else int(per_owner), now.total if total is None else int(total))
    root.mkdir(parents=True, exist_ok=True)
    write_json_atomic(root / LIMITS_FILE, {"per_owner": new.per_owner, "total": new.total})
    return new


def check_room(root: Path, owner: str | None, active: Iterable[tuple[str, str | None]] = ()) -> None:
    """RunError unless ``owner`` may keep one more run: ``run.err.quota`` over its own cap,
    ``run.err.full`` over the server's. ``active``: (id, owner) of the runs training or waiting; each
    run counts once, whether or not it is on disk as a saved run yet (a resumed one is). A command-line
    run (owner None) counts only for the server."""
    caps = limits(root)
    owners = {r.id: r.meta.get("owner") for r in saved_runs(root)}
    owners.update(active)
    if len(owners) >= caps.total:
        raise RunError("run.err.full", most=caps.total)
    if owner is not None and sum(o == owner for o in owners.values()) >= caps.per_owner:
        raise RunError("run.err.quota", most=caps.per_owner)


def clear_class(root: Path, keep_published: bool = False) -> int:
    """Delete every run a browser session made (the command line's stay; with ``keep_published``, the
    published ones too); returns how many were deleted. A run that is training is left alone."""
    gone = 0
    for run in saved_runs(root):
        if not run.meta.get("owner") or (keep_published and run.meta.get("published")) or locked(run.folder):
            continue
        shutil.rmtree(run.folder, ignore_errors=True)
        gone += 1
    return gone


# --------------------------------------------------------------------------------------
# One process per run: a lock the kernel frees when its holder dies
# --------------------------------------------------------------------------------------


def locked(folder: Path) -> bool:
    """Whether some process holds the run's training lock (it is training it now)."""
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


@contextmanager
def run_lock(folder: Path) -> Iterator[None]:
    """Hold the run's training lock while the block runs; RunError ``run.err.busy`` when another
    process (a second replica) holds it. The kernel releases it if this process dies."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise RunError("run.err.busy") from None
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def clean_staging(root: Path | None = None) -> int:
    """Delete what killed writers left in the runs folder (half-imported zips, half-saved states)."""
    root = root if root is not None else runs_dir()
    gone = clean_folder(root)
    for folder in root.iterdir() if root.is_dir() else ():
        if folder.is_dir() and not folder.name.startswith("."):
            gone += clean_folder(folder)
    return gone


# --------------------------------------------------------------------------------------
# Zips out and in
# --------------------------------------------------------------------------------------


def export_zip(run_id: str, root: Path | None = None, owner: str | None = None) -> bytes:
    """The run's checkpoint and logs as a zip (the names of :data:`ZIP_NAMES` that exist); its run.json
    holds only :data:`PUBLIC_FIELDS`: no owner, id, date or publication."""
    folder = find_run(run_id, root, owner).folder
    meta = checked_meta(read_json(folder / RUN_FILE), PUBLIC_FIELDS)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(ZIP_NAMES):
            if name == RUN_FILE:
                archive.writestr(name, json_bytes(meta))
            elif (folder / name).is_file():
                archive.write(folder / name, name)
    return buffer.getvalue()


def _count(value: object) -> int:
    """A config's size field: a non-negative int below 10⁷ (RunError otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10_000_000:
        raise RunError("run.err.other_model")
    return value


def config_parameters(config: dict[str, Any]) -> int:
    """An upper estimate of the parameters of the model a checkpoint config describes, from its sizes
    alone (nothing is built): embeddings (every ``*vocab_size`` × width), positions (``max_len`` ×
    width) and per layer 8·d² + 2·d·d_ff (self- and cross-attention's projections and the FFN;
    an RNN layer: 12·h², a GRU's three gates both ways, plus attention). RunError when a size is
    not a plain count."""
    spec = config.get("model")
    if not isinstance(spec, dict):
        raise RunError("run.err.other_model")
    if isinstance(spec.get("config"), dict):
        spec = spec["config"]
    width = max(_count(spec.get(k, 0)) for k in ("d_model", "emb_dim", "hidden_dim", "attn_dim"))
    d_ff = _count(spec.get("d_ff", 4 * width))
    vocab = sum(_count(v) for k, v in spec.items() if k.endswith("vocab_size") and v is not None)
    positions = max(_count(spec.get(k, 0)) for k in ("max_len", "max_src_len", "max_tgt_len"))
    layers = sum(_count(spec.get(k, 0)) for k in ("n_layers", "num_encoder_layers", "num_decoder_layers"))
    if config.get("family") == "seq2seq":
        return 2 * vocab * width + 2 * 12 * width * width + 4 * width * width
    return 2 * vocab * width + positions * width + max(layers, 1) * (8 * width * width + 2 * width * d_ff)


def import_zip(data: bytes, root: Path | None = None, max_bytes: int = MAX_ZIP_BYTES, owner: str | None = None) -> str:
    """Unpack a run's zip into a new run folder of session ``owner`` (unpublished) and check that its
    checkpoint loads; returns the new id. Refused (RunError, nothing written): over the owner's or the
    server's quota, more than ``max_bytes`` zipped or unpacked, not a zip, a name other than
    :data:`ZIP_NAMES` (so no path can leave the folder), a name twice, a run.json field that is not what
    a run says (:func:`checked_meta`), a model over :data:`MAX_PARAMETERS` (counted from its config before
    anything is built), a broken checkpoint."""
    root = root if root is not None else runs_dir()
    check_room(root, owner)
    if len(data) > max_bytes:
        raise RunError("run.err.too_big", mb=max_bytes / 1e6)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise RunError("run.err.not_zip") from None
    names = [i.filename for i in infos]
    strange = sorted(set(names) - ZIP_NAMES)
    if strange:
        raise RunError("run.err.strange", name=strange[0][:80])
    if len(set(names)) != len(names):
        raise RunError("run.err.twice")
    if sum(i.file_size for i in infos) > max_bytes:
        raise RunError("run.err.too_big", mb=max_bytes / 1e6)
    contents = {}
    for info in infos:
        try:
            with archive.open(info) as fh:
                body = fh.read(info.file_size + 1)  # a header that lies about the size reads one byte too many
        except (zipfile.BadZipFile, OSError, RuntimeError, EOFError) as exc:
            raise RunError("run.err.damaged", detail=first_line(exc)) from None
        if len(body) > info.file_size:
            raise RunError("run.err.lying")
        contents[info.filename] = body
    if f"{CHECKPOINT}/{CONFIG}" not in contents or f"{CHECKPOINT}/{WEIGHTS}" not in contents:
        raise RunError("run.err.no_checkpoint")
    config = _json_object(contents[f"{CHECKPOINT}/{CONFIG}"])
    family, spec = config.get("family"), config.get("model")
    architecture = spec.get("kind") if family == "transformer" and isinstance(spec, dict) else None
    if family not in LOADERS or (family == "transformer" and architecture not in ARCHITECTURES.values()):
        raise RunError("run.err.other_model")
    if config_parameters(config) > MAX_PARAMETERS:
        raise RunError("run.err.too_large_model", most=MAX_PARAMETERS / 1e6)
    given = _json_object(contents.get(RUN_FILE, b"{}"))
    given.setdefault("name", "uploaded run")
    given["name"] = clean_name(str(given["name"])) or "uploaded run"
    meta = checked_meta(dict(given, family=family), PUBLIC_FIELDS)
    run_id = new_run_id()
    folder = root / run_id
    status = meta.get("status") if meta.get("status") in (FINISHED, STOPPED) else FINISHED
    contents[RUN_FILE] = json_bytes(
        {
            **meta,
            "id": run_id,
            "created": time.time(),
            "imported": True,
            "owner": owner,
            "published": False,
            "kind": architecture,  # run.json's key for a transformer's architecture
            "status": status,
        }
    )
    root.mkdir(parents=True, exist_ok=True)
    with atomic_folder(folder) as staging:
        (staging / CHECKPOINT).mkdir()
        for name_in_zip, body in contents.items():
            write_new(staging / name_in_zip, body)
    try:
        LOADERS[family](folder / CHECKPOINT)
    except (CheckpointError, RuntimeError, ValueError, TypeError, KeyError, MemoryError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise RunError("run.err.bad_checkpoint", detail=without_paths(first_line(exc))[:200]) from None
    return run_id


def _json_object(body: bytes) -> dict[str, Any]:
    """A JSON object from a zip member, or {} when it is not one."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}
