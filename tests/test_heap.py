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
        assert gc.collect() >= 1 and gc.get_freeze_count() == frozen
    finally:
        sys.modules.pop("attention_lab_test_module", None)
        gc.unfreeze()
