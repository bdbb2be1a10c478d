"""The server's training runs: one slot queue of background threads (no Streamlit).

:meth:`Registry.start` queues a run and returns its id. A thread per run waits for one of the
server's ``max_active`` training slots (first come, first served; the others show their place in
the queue), then trains it with :func:`models.training.runs.train_run` while holding the run's lock
(:func:`models.runs.store.run_lock`: one process per run, even with replicas sharing the folder).

Fairness: a session (owner) has at most one run waiting or training, and keeps at most its quota of
runs (:func:`models.runs.store.check_room`).

Faults: a queued run's settings and upload are on disk from the moment it is queued
(``run.json`` "waiting" and ``pending.json``), and a training run saves its state every
``checkpoint_every`` steps; a registry made over the same folder after a crash (:meth:`Registry.recover`)
queues again the runs that were waiting or had not reached their first save, and the saved runs list
the others as stopped, resumable from their last save.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from models.atomic import first_line, write_json_atomic
from models.checkpoints import CheckpointError, read_json
from models.device import pick_device
from models.priority import lower_priority
from models.slots import WorkQueue
from models.runs.store import (
    check_room,
    checked_meta,
    clean_name,
    clean_staging,
    locked,
    own_run,
    resumable,
    run_lock,
)
from models.training.runs import (
    ACTIVE_STATES,
    CHECKPOINT,
    FAILED,
    RUN_FILE,
    RUNNING,
    STOPPED,
    TEXT_DATA,
    Run,
    RunError,
    RunSettings,
    TokenPair,
    Upload,
    new_run_id,
    runs_dir,
    train_run,
    write_meta,
)

log = logging.getLogger(__name__)

MAX_ACTIVE_ENV = "ATTENTION_LAB_MAX_TRAININGS"
MAX_KEPT = 20  # ended runs the registry keeps in memory (the newest); older ones are read back from disk
MAX_QUEUED = 1000  # waiting runs (each owner has at most one, so a class never comes near it)
PENDING = "pending.json"  # a queued run's upload (sentence pairs or text), until it starts


class Registry:
    """The server's runs: at most ``max_active`` train at once (default ``$ATTENTION_LAB_MAX_TRAININGS``,
    else 1 on a CPU and 2 on an accelerator), the others wait in arrival order."""

    def __init__(self, root: Path | None = None, max_active: int | None = None) -> None:
        self._root = root
        if max_active is None:
            fallback = 1 if pick_device().type == "cpu" else 2
            max_active = int(os.environ.get(MAX_ACTIVE_ENV, fallback))
        self.max_active = max(1, max_active)
        self.runs: dict[str, Run] = {}
        # the lab's one slot queue (models.slots); its length is bounded by one run per owner
        self._slots = WorkQueue(self.max_active, max_waiting=MAX_QUEUED)
        self._cond = threading.Condition()  # guards ``runs``

    @property
    def root(self) -> Path:
        return self._root if self._root is not None else runs_dir()

    def start(
        self,
        settings: RunSettings,
        pairs: Sequence[TokenPair] | None = None,
        owner: str | None = None,
        text: str | None = None,
    ) -> str:
        """Queue a run of ``settings`` for session ``owner`` and return its id; ``pairs``: an uploaded file's
        sentence pairs (the encoder–decoders), ``text``: an uploaded text (the LM and BERT). RunError when
        ``owner`` already has a run waiting or training, or no room is left (its quota, the server's)."""
        with self._cond:
            active = [r for r in self.runs.values() if r.active]
            if owner is not None and any(r.owner == owner for r in active):
                raise RunError("run.err.one_at_a_time")
            check_room(self.root, owner, [(r.id, r.owner) for r in active])
            run_id = new_run_id()
            name = clean_name(settings.name) or f"run {run_id}"
            upload = text if settings.data in TEXT_DATA else pairs
            run = Run(run_id, replace(settings, name=name), self.root / run_id, owner=owner)
            self._keep_pending(run, upload)
            return self._enqueue(run, upload)

    def get(self, run_id: str | None, owner: str | None = None) -> Run | None:
        """The live run ``run_id`` if session ``owner`` may see it (its own, or one of the command line)."""
        run = self.runs.get(run_id) if run_id else None
        return run if run is not None and run.owner in (None, owner) else None

    def resume(self, run_id: str, owner: str | None = None) -> str:
        """Queue a stopped run of ``owner`` to go on from the step it stopped at (or its last periodic
        save) to its planned steps (same id and folder); RunError when it kept no training state, is
        another session's, or is training in another process."""
        live = self.get(run_id, owner)
        if live is not None and live.active:
            return run_id
        saved = own_run(run_id, self.root, owner)
        if not resumable(saved.folder):
            raise RunError("run.err.no_resume")
        if locked(saved.folder):
            raise RunError("run.err.busy")
        with self._cond:
            if owner is not None and any(r.owner == owner and r.active for r in self.runs.values()):
                raise RunError("run.err.one_at_a_time")
            settings = replace(RunSettings(**saved.meta.get("settings", {})), name=saved.name)  # renamed since
            run = Run(
                run_id,
                settings,
                saved.folder,
                created=float(saved.meta.get("created") or time.time()),
                owner=saved.meta.get("owner"),
                published=bool(saved.meta.get("published")),
            )
            return self._enqueue(run, None, resume=True)

    def recover(self) -> list[str]:
        """Queue again what a killed server left waiting: runs whose run.json says waiting or running
        while no process holds them and that kept no training state to resume from (those with one are
        listed as stopped and resumable). Also deletes half-written staging folders. Returns their ids."""
        root = self.root
        if not root.is_dir():
            return []
        clean_staging(root)
        queued = []
        for meta_file in sorted(root.glob(f"*/{RUN_FILE}")):
            folder = meta_file.parent
            if folder.name.startswith(".") or folder.name in self.runs or locked(folder) or resumable(folder):
                continue
            try:  # a record that says anything else is left alone (it is not listed either)
                meta = checked_meta(read_json(meta_file))
            except (CheckpointError, RunError) as exc:
                log.warning("run %s is not recovered: %s", folder.name, first_line(exc))
                continue
            if meta.get("status") not in ACTIVE_STATES:
                continue
            try:
                settings = RunSettings(**meta["settings"])
                upload = _read_pending(folder / PENDING) if settings.data in ("upload", "text") else None
            except (OSError, ValueError, TypeError, KeyError, RunError) as exc:
                write_json_atomic(
                    meta_file, dict(meta, status=FAILED, message=f"lost in a server restart: {first_line(exc)}")
                )
                continue
            shutil.rmtree(folder / CHECKPOINT, ignore_errors=True)
            for partial in ("log.jsonl", "snapshots.jsonl"):
                (folder / partial).unlink(missing_ok=True)
            run = Run(
                folder.name,
                settings,
                folder,
                created=float(meta.get("created") or time.time()),
                owner=meta.get("owner"),
                published=bool(meta.get("published")),
            )
            with self._cond:
                self._enqueue(run, upload)
            queued.append(run.id)
        return queued

    def _keep_pending(self, run: Run, upload: Upload | None) -> None:
        """run.json "waiting" and the upload, on disk before the run is queued: a restart finds them."""
        run.folder.mkdir(parents=True, exist_ok=True)
        if upload is not None:
            body = upload if isinstance(upload, str) else [[list(s), list(t)] for s, t in upload]
            write_json_atomic(run.folder / PENDING, {"upload": body})
        write_meta(run)

    def _enqueue(self, run: Run, upload: Upload | None, resume: bool = False) -> str:
        """Keep ``run`` in memory (forgetting the oldest ended runs), queue it and start its thread
        (the caller holds the condition's lock)."""
        run_id = run.id
        ended = [r.id for r in sorted(self.runs.values(), key=lambda r: r.created) if not r.active]
        for old in ended[: max(0, len(ended) - MAX_KEPT + 1)]:
            del self.runs[old]  # its checkpoint, curve and snapshots stay on disk
        self._slots.enter(run_id)  # its place is taken now, before its thread runs
        self.runs[run_id] = run
        run.thread = threading.Thread(
            target=self._work, args=(run, upload, resume), name=f"studio-{run_id}", daemon=True
        )
        run.thread.start()
        return run_id

    def stop(self, run_id: str) -> None:
        run = self.runs.get(run_id)
        if run is not None:
            run.stop.set()
            self._slots.wake()  # a waiting run leaves the queue at once

    def forget(self, run_id: str) -> None:
        """Drop an ended run from memory (its files were deleted); an active run stays."""
        with self._cond:
            if run_id in self.runs and not self.runs[run_id].active:
                del self.runs[run_id]

    def position(self, run_id: str) -> int:
        """How many runs are ahead of a waiting run in the queue (0: next), or -1 when not waiting."""
        return self._slots.position(run_id)

    def _work(self, run: Run, upload: Upload | None, resume: bool) -> None:
        lower_priority()  # a training takes only what the class's page runs leave (models.priority)

        def leave_if_stopped(_ahead: int) -> None:
            if run.stop.is_set():
                raise _Stopped

        try:
            with self._slots.slot(on_wait=leave_if_stopped, ticket=run.id):
                self._train(run, upload, resume)
        except _Stopped:
            if not resume:  # never started: nothing to keep
                shutil.rmtree(run.folder, ignore_errors=True)
            run.status, run.message = STOPPED, "stopped before it started"

    @staticmethod
    def _train(run: Run, upload: Upload | None, resume: bool) -> None:
        if run.stop.is_set():  # stopped as its slot came free
            raise _Stopped
        try:
            with run_lock(run.folder):
                run.status = RUNNING
                final = train_run(run, upload, resume)
                (run.folder / PENDING).unlink(missing_ok=True)
            run.status = final  # only now: a resume, delete or rename that sees it finds the lock let go
        except Exception as exc:  # bad data, out of memory …: this run fails, the server goes on
            if not resume and not (isinstance(exc, RunError) and exc.key == "run.err.busy"):
                shutil.rmtree(run.folder, ignore_errors=True)  # nothing of a failed run is kept on disk
            if isinstance(exc, RunError):
                run.message_key, run.message_params = exc.key, exc.params
            run.message = first_line(exc)
            run.status = FAILED  # last: a caller that sees the status finds the folder as it will stay


class _Stopped(Exception):
    """A run stopped while it waited for its slot."""


def _read_pending(path: Path) -> Upload:
    data: Any = json.loads(path.read_text(encoding="utf-8"))["upload"]
    if isinstance(data, str):
        return data
    return [(tuple(map(str, s)), tuple(map(str, t))) for s, t in data]
