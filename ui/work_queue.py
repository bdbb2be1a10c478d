"""A bounded first-come, first-served queue for heavy requests, shared by every session.

A 512-token real-model run or a training run costs seconds of CPU; on a class server a few of
them at once would stall every student's stepping. At most ``slots`` heavy jobs run at once;
the others wait in arrival order (the page shows "waiting: n ahead"), and when ``max_waiting``
are already waiting a new request is refused at once with :class:`QueueFull` instead of piling
up. Light work (stepping, drawing) never enters the queue.

:class:`WorkQueue` is plain ``threading`` (usable from a background training thread and testable
without Streamlit); :func:`heavy_queue` is the process-wide instance in ``st.cache_resource``,
and :func:`heavy_slot` is the page-side wrapper that shows the waiting notice.
"""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

from models.priority import background_priority
from ui.i18n import t

HEAVY_SLOTS = 1  # on 2 cores: one heavy job beside everyone's stepping
MAX_WAITING = 8  # beyond this a heavy request is refused rather than queued
_POLL_S = 0.5  # how often a waiting request re-reports its place (and lets a rerun interrupt it)


class QueueFull(RuntimeError):
    """Raised by :meth:`WorkQueue.slot` when ``max_waiting`` requests are already waiting."""


class WorkQueue:
    """At most ``slots`` holders at once, granted strictly in arrival order (FIFO)."""

    def __init__(self, slots: int = HEAVY_SLOTS, max_waiting: int = MAX_WAITING) -> None:
        if slots < 1 or max_waiting < 0:
            raise ValueError("slots must be ≥ 1 and max_waiting ≥ 0")
        self.slots, self.max_waiting = slots, max_waiting
        self._cond = threading.Condition()
        self._running = 0
        self._waiting: deque[object] = deque()

    def counts(self) -> tuple[int, int]:
        """(running, waiting) right now."""
        with self._cond:
            return self._running, len(self._waiting)

    def _ahead(self, ticket: object) -> int:
        """Requests ahead of ``ticket``: the running ones plus those queued before it (lock held)."""
        return self._running + self._waiting.index(ticket)

    @contextmanager
    def slot(self, on_wait: Callable[[int], None] | None = None, poll_s: float = _POLL_S) -> Iterator[None]:
        """Hold one slot for the ``with`` body. While queued, ``on_wait(n_ahead)`` is called at once
        and then every ``poll_s`` seconds; an exception it raises (e.g. Streamlit's rerun) leaves
        the queue. The slot is released however the body ends."""
        ticket = object()
        with self._cond:
            if self._running >= self.slots and len(self._waiting) >= self.max_waiting:
                raise QueueFull(f"{self._running + len(self._waiting)} heavy requests are ahead")
            self._waiting.append(ticket)
        try:
            while True:
                with self._cond:
                    if self._running < self.slots and self._waiting[0] is ticket:
                        self._waiting.popleft()
                        self._running += 1
                        break
                    ahead = self._ahead(ticket)
                if on_wait is not None:
                    on_wait(ahead)  # outside the lock: it may draw, or raise to give up
                with self._cond:
                    if not (self._running < self.slots and self._waiting[0] is ticket):
                        self._cond.wait(poll_s)
        except BaseException:
            with self._cond:
                if ticket in self._waiting:
                    self._waiting.remove(ticket)
                self._cond.notify_all()  # the next in line may now be first
            raise
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()


@st.cache_resource(show_spinner=False)  # a spinner's text could not follow the language (ui.i18n.spinning)
def heavy_queue() -> WorkQueue:
    """The one queue of heavy requests in this server process."""
    return WorkQueue()


@contextmanager
def heavy_slot(what: str) -> Iterator[None]:
    """Run the ``with`` body in the server's heavy queue, at a lower CPU priority
    (:func:`models.priority.background_priority`), showing "waiting: n ahead" while queued.
    When the queue is full, says so and stops this run (the student can retry)."""
    notice = st.empty()

    def show(ahead: int) -> None:
        notice.info(t("queue.waiting", what=what, ahead=ahead), icon=":material/hourglass_top:")

    try:
        with heavy_queue().slot(on_wait=show), background_priority():  # the class's stepping goes first
            notice.empty()
            yield
    except QueueFull:
        notice.warning(t("queue.full", what=what, waiting=MAX_WAITING))
        st.stop()
