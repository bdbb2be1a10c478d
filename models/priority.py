"""CPU priority of one thread (Linux schedules every thread by its own nice value): background work
in the server — a studio training, a 512-token request — yields the cores to every student's page runs.

Torch-free and Streamlit-free, so that the page side (ui/work_queue.py) and the training engine
(models/training/runs.py) share it. Where threads have no priority of their own, nothing changes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: nice +10: a CFS weight of 110 against a page run's 1,024, so background work takes what the class leaves
BACKGROUND_NICENESS = 10


def lower_priority(niceness: int = BACKGROUND_NICENESS) -> int | None:
    """Raise the calling thread's nice value by ``niceness`` (at most 19); its previous value, or None
    where the system has no per-thread priority."""
    try:
        tid = threading.get_native_id()
        before = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(19, before + niceness))
        return before
    except (AttributeError, OSError):
        return None


@contextmanager
def background_priority(niceness: int = BACKGROUND_NICENESS) -> Iterator[None]:
    """Run the ``with`` body at a lower priority, then put the thread's nice value back where the
    system lets it (an unprivileged thread may not lower its nice value again: it then stays
    lowered until it ends, which for a page's script run is the end of that run)."""
    before = lower_priority(niceness)
    try:
        yield
    finally:
        if before is not None:
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), before)
            except OSError:
                pass
