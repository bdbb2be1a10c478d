"""The one slot queue of the lab: at most ``slots`` holders at once, granted first come, first served.

A 512-token real-model run or a training run costs seconds of CPU; on a class server a few of them
at once would stall every student's stepping. The pages' heavy requests (ui.work_queue.heavy_slot)
and the studio's trainings (:class:`models.runs.registry.Registry`) each wait in a
:class:`WorkQueue`: the others wait in arrival order (their place is shown), and when
``max_waiting`` are already waiting a new request is refused at once with :class:`QueueFull` instead
of piling up. Plain ``threading``: no Streamlit, usable from a training thread.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

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

    def enter(self, ticket: object | None = None) -> object:
        """Join the end of the queue now (QueueFull when ``max_waiting`` are waiting and no slot is
        free); returns the ticket that :meth:`slot` then waits with."""
        ticket = object() if ticket is None else ticket
        with self._cond:
            if self._running >= self.slots and len(self._waiting) >= self.max_waiting:
                raise QueueFull(f"{self._running + len(self._waiting)} requests are ahead")
            self._waiting.append(ticket)
        return ticket

    def position(self, ticket: object) -> int:
        """How many are waiting ahead of ``ticket`` (0: it goes next), or -1 when it is not waiting."""
        with self._cond:
            return self._waiting.index(ticket) if ticket in self._waiting else -1

    def wake(self) -> None:
        """Wake every waiter at once (one may have been told to give up: its ``on_wait`` raises)."""
        with self._cond:
            self._cond.notify_all()

    @contextmanager
    def slot(
        self, on_wait: Callable[[int], None] | None = None, poll_s: float = _POLL_S, ticket: object | None = None
    ) -> Iterator[None]:
        """Hold one slot for the ``with`` body, waiting first in arrival order (with ``ticket`` from
        :meth:`enter`, from the place it took then; else from the end of the queue now). While queued,
        ``on_wait(n_ahead)`` is called at once and then every ``poll_s`` seconds or on :meth:`wake`; an
        exception it raises (Streamlit's rerun, a stopped run) leaves the queue. The slot is released
        however the body ends."""
        with self._cond:
            entered = ticket is not None and ticket in self._waiting
        if not entered:
            ticket = self.enter(ticket)
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
