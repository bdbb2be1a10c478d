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
    pending, last = False, 0.0
    while True:
        time.sleep(REAP_EVERY_S)
        if not loop.is_running():  # the server has stopped
            return
        freeze_modules()  # also what a fragment's run imported: a fragment rerun has no page_frame
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


def upkeep() -> None:
    """Called at the start of every page run, presented slides included: :func:`freeze_modules`
    and :func:`start_session_reaper`."""
    freeze_modules()
    start_session_reaper()
