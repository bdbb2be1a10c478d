"""Keep the server's memory and Streamlit's collection after every script run in check.

Streamlit runs a full ``gc.collect(2)`` after every script run (``runner.postScriptGC``). With torch,
transformers and plotly imported, the heap holds about 440,000 objects, and that collection took
about 160 ms of a 200 ms seq2seq step: what kept a class of 30 from one server core. A frozen object
(``gc.freeze``) is no longer scanned by the collector, yet is still freed by reference counting. So,
whenever new modules have been imported (a few times as the first pages load), :func:`freeze_modules`
collects and then freezes everything alive; the collection after each run scans only what the
sessions made since, and still frees their garbage as before.

A closed tab's session stays in Streamlit's session storage for ``server.disconnectedSessionTTL``
seconds, but that storage (a TTL cache) drops an expired session only when another session is
stored: after the last tab of a class closed, every session, with the attention traces its pages
hold, stayed in memory for good. :func:`start_session_reaper` starts one thread per server that
expires them on time and then collects them, frozen garbage included (:func:`recollect`). The same
thread freezes what was imported after a page's start (its first run, then only fragment reruns,
which have no page frame: the Real model explorer's head change paid a 180 ms collection).

An Export menu's file is made on click (a deferred download): Streamlit stores it, sends its URL, and
the browser then fetches it. Nothing refers to the stored file, so the end of any two script runs on
the server (any student's step) deleted it, and a browser that had not fetched it yet got "canceled" (as
one download did in busy CI). :func:`keep_downloads` keeps each made file referenced for
:data:`DOWNLOAD_KEEP_S` seconds.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import sys
import threading
import time
from concurrent.futures import Future
from typing import Any

REAP_EVERY_S = 2.0  # how often expired sessions are dropped (and new modules frozen)
DOWNLOAD_KEEP_S = 120.0  # how long a file made for a download stays for its browser to fetch it
#: The name under which the made files are referenced, as a session's files are (no session has it).
DOWNLOADS = "attention-lab-downloads"
RECOLLECT_EVERY_S = 30.0  # at most one full collection (≈ 0.2 s of one core) per this many seconds

_lock = threading.Lock()
_frozen_at = 0  # len(sys.modules) at the last freeze
_reaper: threading.Thread | None = None


def freeze_modules() -> bool:
    """Collect, then freeze every object alive, when modules were imported since the last call
    (cheap otherwise); returns whether it froze."""
    global _frozen_at
    if len(sys.modules) <= _frozen_at:
        return False
    with _lock:
        if len(sys.modules) <= _frozen_at:
            return False
        _frozen_at = len(sys.modules)
        gc.collect()
        gc.freeze()
        return True


def recollect() -> int:
    """Unfreeze, collect everything, freeze again: frees garbage that a freeze caught alive (a
    session that was running then and has closed since); then glibc's ``malloc_trim`` hands the
    freed heap pages back to the system. Returns the number of objects collected."""
    with _lock:
        gc.unfreeze()
        collected = gc.collect()
        gc.freeze()
    _trim()
    return collected


def _trim() -> None:
    """``malloc_trim(0)`` where the C library is glibc (elsewhere nothing)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def expire_sessions(storage: Any) -> int:
    """Drop the expired sessions from Streamlit's in-memory session storage (its TTL cache's
    ``expire``); returns how many. A storage of another kind is left alone (0)."""
    expire = getattr(getattr(storage, "_cache", None), "expire", None)
    return len(expire()) if callable(expire) else 0


def _reap_forever(storage: Any, loop: asyncio.AbstractEventLoop) -> None:
    """The reaper thread: every :data:`REAP_EVERY_S`, expire sessions on the server's event loop
    (the storage is not thread-safe), and recollect after some expired."""
    from streamlit.runtime import Runtime

    pending, last = False, 0.0
    while True:
        time.sleep(REAP_EVERY_S)
        if not loop.is_running():  # the server has stopped
            return
        freeze_modules()  # also what a fragment's run imported: a fragment rerun has no page_frame
        if Runtime.exists():
            release_downloads(Runtime.instance().media_file_mgr)  # even when no new download comes
        expired: Future[int] = Future()

        def expire(expired: Future[int] = expired) -> None:
            if expired.set_running_or_notify_cancel():
                expired.set_result(expire_sessions(storage))

        try:
            loop.call_soon_threadsafe(expire)
            pending |= expired.result(max(1.0, 5 * REAP_EVERY_S)) > 0
        except RuntimeError:  # the loop is closed
            return
        except TimeoutError:  # a busy or stopping loop: look again next time
            expired.cancel()
            continue
        if pending and time.monotonic() - last >= RECOLLECT_EVERY_S:
            recollect()
            pending, last = False, time.monotonic()


def start_session_reaper() -> bool:
    """Start the reaper thread once per server (a no-op without a running Streamlit server, as in
    AppTest); returns whether it is running."""
    global _reaper
    if _reaper is not None:
        return _reaper.is_alive()
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return False
    with _lock:
        if _reaper is None:
            runtime = Runtime.instance()
            try:
                loop = runtime._get_async_objs().eventloop
            except RuntimeError:  # the runtime has not started its event loop
                return False
            if not isinstance(loop, asyncio.AbstractEventLoop):  # AppTest's stand-in runtime
                return False
            storage = getattr(runtime._session_mgr, "_session_storage", None)
            _reaper = threading.Thread(target=_reap_forever, args=(storage, loop), name="session-reaper", daemon=True)
            _reaper.start()
    return _reaper.is_alive()


def keep_downloads(manager: Any) -> bool:
    """Make Streamlit's media file manager ``manager`` keep each file it makes for a deferred download
    (``execute_deferred``) referenced for :data:`DOWNLOAD_KEEP_S` seconds, under :data:`DOWNLOADS`, so that
    other runs' clean-up (``remove_orphaned_files``) leaves it until the browser has fetched it; older ones
    are let go (:func:`release_downloads`). Once per manager; returns whether it was installed now."""
    if getattr(manager, "_lab_keeps_downloads", False) or not callable(getattr(manager, "execute_deferred", None)):
        return False
    own = manager.execute_deferred

    def execute_deferred(file_id: str) -> str:
        url = own(file_id)
        made = str(url).rsplit("/", 1)[-1].split(".", 1)[0]  # the stored file's id: its URL's name
        with manager._lock:
            if made in manager._file_metadata:
                manager._files_by_session_and_coord[DOWNLOADS][f"{time.monotonic():.6f} {made}"] = made
        release_downloads(manager)
        return url

    manager.execute_deferred = execute_deferred
    manager._lab_keeps_downloads = True
    return True


def release_downloads(manager: Any, now: float | None = None) -> int:
    """Stop keeping the files made for downloads more than :data:`DOWNLOAD_KEEP_S` seconds before ``now``
    (the next clean-up deletes them); returns how many."""
    now = time.monotonic() if now is None else now
    with manager._lock:
        kept = manager._files_by_session_and_coord.get(DOWNLOADS, {})
        old = [ref for ref in kept if float(ref.split(" ", 1)[0]) < now - DOWNLOAD_KEEP_S]
        for ref in old:
            del kept[ref]
    return len(old)


def upkeep() -> None:
    """Called at the start of every page run, presented slides included: :func:`freeze_modules`,
    :func:`start_session_reaper` and :func:`keep_downloads`."""
    freeze_modules()
    start_session_reaper()
    from streamlit.runtime import Runtime

    if Runtime.exists():
        keep_downloads(Runtime.instance().media_file_mgr)
