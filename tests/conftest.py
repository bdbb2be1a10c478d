"""Shared test settings: the repository root on sys.path, and one torch thread."""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ATTN_LAB_THREADS", "1")

import torch  # noqa: E402

torch.set_num_threads(int(os.environ["ATTN_LAB_THREADS"]))

# AppTest runs a page script in-process; torch's cold import alone takes seconds.
APPTEST_TIMEOUT = 120


def pytest_collection_modifyitems(config, items):
    """Mark every test under tests/browser/ as `browser`, by path."""
    import pytest

    browser_dir = ROOT / "tests" / "browser"
    for item in items:
        if browser_dir in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.browser)
