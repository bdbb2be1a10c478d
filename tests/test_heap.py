"""ui.heap: the imported modules' objects are frozen, so Streamlit's collection after each run skips them."""

from __future__ import annotations

import gc
import sys
import types

import ui.heap as heap


def test_freeze_modules_freezes_once_per_new_import() -> None:
    try:
        heap.freeze_modules()
        assert gc.get_freeze_count() > 0
        assert heap.freeze_modules() is False  # nothing new imported: nothing to do
        sys.modules["attention_lab_test_module"] = types.ModuleType("attention_lab_test_module")
        assert heap.freeze_modules() is True  # a new module: collect, then freeze again
        frozen = gc.get_freeze_count()
        garbage = [[]]
        garbage[0].append(garbage)  # a reference cycle made after the freeze is still collected
        del garbage
        # ... and the collection leaves the frozen objects frozen. Not "== frozen": a frozen object whose
        # last reference another thread drops meanwhile is freed (a busy CI machine lost 2 of 767,879)
        assert gc.collect() >= 1 and gc.get_freeze_count() > 0.99 * frozen
    finally:
        sys.modules.pop("attention_lab_test_module", None)
        gc.unfreeze()


def test_expired_sessions_are_dropped_and_freed() -> None:
    """Streamlit's session storage keeps an expired session until another is stored; expire_sessions
    drops it on time, and then nothing holds it."""
    import time
    import weakref
    from types import SimpleNamespace

    from streamlit.runtime.memory_session_storage import MemorySessionStorage

    class Session:
        id = "closed-tab"

    storage = MemorySessionStorage(ttl_seconds=0.05)
    info = SimpleNamespace(session=Session())
    storage.save(info)
    held = weakref.ref(info.session)
    del info
    time.sleep(0.1)
    assert storage.list() == []  # expired: no longer listed...
    assert held() is not None  # ...but still in memory, as long as no other session is stored
    assert heap.expire_sessions(storage) == 1
    assert held() is None
    assert heap.expire_sessions(storage) == 0
    assert heap.expire_sessions(object()) == 0  # another kind of storage is left alone


def test_recollect_frees_garbage_a_freeze_caught() -> None:
    import weakref

    class Held:
        pass

    try:
        garbage = Held()
        garbage.cycle = garbage  # a session's page globals are held in cycles like this
        held = weakref.ref(garbage)
        gc.freeze()  # caught alive by a freeze (freeze_modules while the session ran)
        del garbage
        gc.collect()
        assert held() is not None  # a frozen cycle is never collected...
        assert heap.recollect() >= 1
        assert held() is None  # ...until recollect
        assert gc.get_freeze_count() > 0  # and what lives is frozen again
    finally:
        gc.unfreeze()


def test_the_reaper_needs_a_running_server() -> None:
    from streamlit.testing.v1 import AppTest

    assert heap.start_session_reaper() is False  # no Streamlit server in this process: nothing started
    at = AppTest.from_string("import streamlit as st\nimport ui.heap\nst.write(ui.heap.start_session_reaper())")
    at.run()
    assert not at.exception and at.markdown[0].value == "`False`"  # nor under AppTest's stand-in runtime
    assert heap._reaper is None


def test_every_run_does_the_upkeep_presented_slides_included(monkeypatch) -> None:
    """A presented slide has no page frame; without the upkeep, each step paid a full collection
    of torch's objects (150 ms of a 200 ms step)."""
    from streamlit.testing.v1 import AppTest

    import ui.frame
    import ui.slides
    from tests.conftest import APPTEST_TIMEOUT, ROOT

    calls: list[str] = []
    monkeypatch.setattr(ui.frame, "upkeep", lambda: calls.append("page"))
    monkeypatch.setattr(ui.slides, "upkeep", lambda: calls.append("slide"))
    at = AppTest.from_file(str(ROOT / "pages" / "12_Present.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(deck="1_teaching_order", slide="2")
    at.run()
    assert not at.exception and calls == ["slide"]
    at.button(key="slide_next").click().run()
    assert calls == ["slide", "slide"]
    at = AppTest.from_file(str(ROOT / "pages" / "3_Positional_encoding.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception and calls[-1] == "page"


def test_the_reaper_thread_expires_freezes_and_recollects(monkeypatch) -> None:
    """One server's reaper, on a real event loop: a closed tab's expired session is dropped and
    collected, and what was imported since the last freeze (a fragment's run) is frozen."""
    import asyncio
    import threading
    import time
    import weakref
    from types import SimpleNamespace

    from streamlit.runtime.memory_session_storage import MemorySessionStorage

    class Session:
        id = "closed-tab"

    monkeypatch.setattr(heap, "REAP_EVERY_S", 0.05)
    monkeypatch.setattr(heap, "RECOLLECT_EVERY_S", 0.0)
    recollected = []
    recollect = heap.recollect
    monkeypatch.setattr(heap, "recollect", lambda: recollected.append(recollect()))
    storage = MemorySessionStorage(ttl_seconds=0.05)
    session = Session()
    session.cycle = session  # held in a cycle, as a page's globals are
    storage.save(SimpleNamespace(session=session))
    held = weakref.ref(session)
    del session
    loop = asyncio.new_event_loop()
    server = threading.Thread(target=loop.run_forever, daemon=True)
    server.start()
    reaper = threading.Thread(target=heap._reap_forever, args=(storage, loop), daemon=True)
    try:
        heap.freeze_modules()
        sys.modules["attention_lab_fragment_import"] = types.ModuleType("attention_lab_fragment_import")
        reaper.start()
        deadline = time.monotonic() + 10
        while (
            held() is not None or not recollected or heap._frozen_at < len(sys.modules)
        ) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert held() is None and recollected  # dropped on time, then collected
        assert heap._frozen_at == len(sys.modules)  # the new import was frozen by the thread
    finally:
        loop.call_soon_threadsafe(loop.stop)
        server.join(5)
        loop.close()
        reaper.join(5)
        sys.modules.pop("attention_lab_fragment_import", None)
        gc.unfreeze()
    assert not reaper.is_alive()  # it ends with the server's loop


def test_a_file_made_for_a_download_outlives_other_runs_until_it_is_fetched() -> None:
    """A deferred download's file is stored unreferenced: the clean-up at the end of any two script runs on
    the server deleted it before the browser fetched it ("canceled" in busy CI; in a class, any two
    students' steps). keep_downloads keeps it for DOWNLOAD_KEEP_S seconds; then it goes as before."""
    import time
    from unittest import mock

    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    def made(manager: MediaFileManager) -> str:
        with mock.patch("streamlit.runtime.media_file_manager._get_session_id", return_value="student"):
            deferred = manager.add_deferred(lambda: b"x,y\n1,2\n", "text/csv", "coord", "a.csv")
        return manager.execute_deferred(deferred).rsplit("/", 1)[-1].split(".", 1)[0]

    plain = MediaFileManager(MemoryMediaFileStorage("/media"))
    lost = made(plain)
    plain.remove_orphaned_files()
    plain.remove_orphaned_files()  # two other runs end before the browser asks for the file
    assert plain.read_file(lost) is None  # Streamlit's own behaviour: the race

    kept = MediaFileManager(MemoryMediaFileStorage("/media"))
    assert heap.keep_downloads(kept) is True and heap.keep_downloads(kept) is False  # once per manager
    file_id = made(kept)
    for _ in range(5):
        kept.remove_orphaned_files()
    assert kept.read_file(file_id) is not None and kept.read_file(file_id).content == b"x,y\n1,2\n"
    assert heap.release_downloads(kept) == 0  # not yet: it is kept for DOWNLOAD_KEEP_S
    assert heap.release_downloads(kept, now=time.monotonic() + heap.DOWNLOAD_KEEP_S + 1) == 1
    kept.remove_orphaned_files()
    kept.remove_orphaned_files()
    assert kept.read_file(file_id) is None  # let go: nothing is kept for good
