"""The heavy-request queue (models.slots.WorkQueue): first come first served, never more than
``slots`` at once, "n ahead" as reported to the page, released however a holder ends, bounded."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import pytest

from bench.load_test import REAL, StreamlitSession, free_port, long_text, start_server
from models.priority import BACKGROUND_NICENESS, background_priority
from tests.server import run_coroutine
from models.slots import QueueFull, WorkQueue


def _wait_until(cond, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.005)


def _hold(
    queue: WorkQueue, release: threading.Event, started: list[str], name: str, reports: list[int] | None = None
) -> threading.Thread:
    """A thread that queues, records its start, and holds its slot until ``release`` is set."""

    def body() -> None:
        with queue.slot(on_wait=None if reports is None else reports.append, poll_s=0.01):
            started.append(name)
            release.wait(5)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread


def test_arrival_order_and_ahead_counts() -> None:
    queue = WorkQueue(slots=1, max_waiting=8)
    gates = {n: threading.Event() for n in "abcd"}
    started: list[str] = []
    reports: dict[str, list[int]] = {n: [] for n in "abcd"}
    threads = []
    for n in "abcd":  # queued one after another, so arrival order is a, b, c, d
        threads.append(_hold(queue, gates[n], started, n, reports[n]))
        _wait_until(lambda n=n: n in started or sum(queue.counts()) == "abcd".index(n) + 1)
    assert started == ["a"] and queue.counts() == (1, 3)
    assert reports["a"] == [] and reports["b"][0] == 1 and reports["c"][0] == 2 and reports["d"][0] == 3
    for i, n in enumerate("abcd"):
        gates[n].set()
        if i + 1 < 4:
            _wait_until(lambda i=i: len(started) == i + 2)
            assert queue.counts() == (1, 2 - i)
    for t in threads:
        t.join(5)
    assert started == ["a", "b", "c", "d"]
    assert queue.counts() == (0, 0)
    assert reports["d"][-1] == 1  # d saw its place fall to "1 ahead" (only c running) before it ran


def test_never_more_than_slots_at_once() -> None:
    queue = WorkQueue(slots=2, max_waiting=20)
    lock, now, peak = threading.Lock(), [0], [0]

    def work() -> None:
        with queue.slot(poll_s=0.01):
            with lock:
                now[0] += 1
                peak[0] = max(peak[0], now[0])
            time.sleep(0.02)
            with lock:
                now[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert peak[0] == 2 and queue.counts() == (0, 0)


def test_released_when_the_body_raises() -> None:
    queue = WorkQueue(slots=1)
    with pytest.raises(ZeroDivisionError):
        with queue.slot():
            assert queue.counts() == (1, 0)
            raise ZeroDivisionError
    assert queue.counts() == (0, 0)
    with queue.slot():  # the slot is free again at once
        assert queue.counts() == (1, 0)


def test_a_waiter_that_gives_up_leaves_the_queue() -> None:
    """Streamlit's rerun arrives as an exception from the notice callback: the ticket must go,
    and the one behind it must move up."""
    queue = WorkQueue(slots=1)
    gate, started = threading.Event(), []
    holder = _hold(queue, gate, started, "a")
    _wait_until(lambda: started == ["a"])

    class Rerun(Exception):
        pass

    def give_up(ahead: int) -> None:
        raise Rerun

    with pytest.raises(Rerun):
        with queue.slot(on_wait=give_up):
            pass
    assert queue.counts() == (1, 0)
    behind: list[int] = []
    later = _hold(queue, threading.Event(), started, "c", behind)
    _wait_until(lambda: behind)
    assert behind[0] == 1  # only the running holder is ahead: the one that gave up is gone
    gate.set()
    holder.join(5)
    _wait_until(lambda: started == ["a", "c"])
    assert later.is_alive()  # c holds the slot now
    assert queue.counts() == (1, 0)


def test_bounded_waiting() -> None:
    queue = WorkQueue(slots=1, max_waiting=2)
    gate, started = threading.Event(), []
    threads = [_hold(queue, gate, started, "a")]
    _wait_until(lambda: started == ["a"])
    threads += [_hold(queue, gate, started, n) for n in "bc"]
    _wait_until(lambda: queue.counts() == (1, 2))
    with pytest.raises(QueueFull):
        with queue.slot():
            pass
    assert queue.counts() == (1, 2)  # the refused request left nothing behind
    gate.set()
    for t in threads:
        t.join(5)
    assert sorted(started) == ["a", "b", "c"] and queue.counts() == (0, 0)


def test_bad_sizes_refused() -> None:
    with pytest.raises(ValueError):
        WorkQueue(slots=0)


@pytest.mark.slow
def test_the_explorer_page_queues_heavy_runs_and_says_so() -> None:
    """Three students open 512-token Real model explorer links at once, on a real server: the runs
    take turns, a waiting page says "waiting: n ahead", and every run still ends with its result."""
    port = free_port()
    server = start_server(port, None)
    url = f"http://127.0.0.1:{port}"

    async def student(i: int, notices: list[str]) -> list[str]:
        session = StreamlitSession(url)
        await session.connect()
        try:
            run = await session.open_page(REAL, {"real_text": long_text(i), "real_max": "512"})
            notices.extend(session.alerts)  # every alert the page drew, even one it cleared later
            return run.errors + ([] if run.server_s == run.server_s else ["no script_finished"])
        finally:
            await session.close()

    async def go() -> tuple[list[list[str]], list[list[str]]]:
        warm: list[str] = []
        assert await student(-1, warm) == []  # the model is loaded (outside the queue) before the race
        notices: list[list[str]] = [[], [], []]
        errors = await asyncio.gather(*(student(i, notices[i]) for i in range(3)))
        return list(errors), notices

    try:
        errors, notices = run_coroutine(go())
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert errors == [[], [], []], errors
    waits = [n for page in notices for n in page if "waiting:" in n]
    assert waits and all(any(f"waiting: {k} ahead" in n for k in (1, 2)) for n in waits), waits
    assert all(any("the model reads the first 512" in n for n in page) for page in notices)  # each got its run


def test_heavy_work_runs_at_a_lower_priority_and_gives_it_back() -> None:
    from streamlit.testing.v1 import AppTest

    def page() -> None:  # a page's heavy request: its priority inside the slot, then after it
        import os
        import threading

        import streamlit as st

        from ui.work_queue import heavy_slot

        def nice() -> int:
            return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

        before = nice()
        with heavy_slot("a 512-token run"):
            inside = nice()
        st.text(f"{before} {inside} {nice()}")

    at = AppTest.from_function(page).run()
    before, inside, after = map(int, at.text[0].value.split())
    assert inside == min(19, before + BACKGROUND_NICENESS) and after == before


def test_background_priority_lowers_only_its_thread() -> None:
    seen: list[int] = []

    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def work() -> None:
        with background_priority():
            seen.append(nice())
            main_thread.wait(5)
        seen.append(nice())

    main_thread = threading.Event()
    start = nice()
    worker = threading.Thread(target=work)
    worker.start()
    time.sleep(0.2)
    assert nice() == start  # the caller's own thread is untouched while the worker is lowered
    main_thread.set()
    worker.join()
    assert seen == [min(19, start + BACKGROUND_NICENESS), start]


def test_a_ticket_keeps_the_place_it_took_and_can_leave_when_woken():
    """The studio's use (models.runs.registry): a run takes its place when it is queued, before its
    thread waits; a stop wakes the waiters and the stopped one leaves by raising from on_wait."""
    queue = WorkQueue(slots=1, max_waiting=5)
    first, second = queue.enter("a"), queue.enter("b")
    assert (queue.position(first), queue.position(second), queue.position("c")) == (0, 1, -1)
    leave = threading.Event()

    def on_wait(_ahead: int) -> None:
        if leave.is_set():
            raise KeyError("stopped")

    outcome: list[str] = []

    def wait_second() -> None:
        try:
            with queue.slot(on_wait=on_wait, ticket=second, poll_s=60):
                outcome.append("ran")
        except KeyError:
            outcome.append("left")

    holder = threading.Thread(target=wait_second)
    with queue.slot(ticket=first):
        holder.start()
        time.sleep(0.2)
        assert queue.position(second) == 0 and not outcome
        leave.set()
        queue.wake()  # without it the waiter would sleep its whole poll (60 s)
        holder.join(5)
    assert outcome == ["left"] and queue.counts() == (0, 0)
