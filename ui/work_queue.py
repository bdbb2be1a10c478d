"""The pages' heavy requests in the server's one queue of them (:class:`models.slots.WorkQueue`):
:func:`heavy_queue` is the process-wide instance in ``st.cache_resource``, and :func:`heavy_slot`
the page-side wrapper that shows the waiting notice. Light work (stepping, drawing) never enters it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from models.priority import background_priority
from models.slots import MAX_WAITING, QueueFull, WorkQueue
from ui.i18n import tr


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
        notice.info(tr("queue.waiting", what=what, ahead=ahead), icon=":material/hourglass_top:")

    try:
        with heavy_queue().slot(on_wait=show), background_priority():  # the class's stepping goes first
            notice.empty()
            yield
    except QueueFull:
        notice.warning(tr("queue.full", what=what, waiting=MAX_WAITING))
        st.stop()
