"""Keep Streamlit's collection after every script run cheap: the imported modules' objects are frozen.

Streamlit runs a full ``gc.collect(2)`` after every script run (``runner.postScriptGC``). With torch,
transformers and plotly imported, the heap holds about 440,000 objects, and that collection took
about 160 ms of a 200 ms seq2seq step: what kept a class of 30 from one server core. A frozen object
(``gc.freeze``) is no longer scanned by the collector, yet is still freed by reference counting. So,
whenever new modules have been imported (a few times as the first pages load), :func:`freeze_modules`
collects and then freezes everything alive; the collection after each run scans only what the
sessions made since, and still frees their garbage as before.
"""
from __future__ import annotations

import gc
import sys
import threading

_lock = threading.Lock()
_frozen_at = 0  # len(sys.modules) at the last freeze


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
