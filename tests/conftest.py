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


# Browser owners in tests: one known signing secret for the whole session, servers started by tests
# included (a test of the secret file itself unsets it), and named test browsers whose secret ids and
# owner keys the tests compute as the app does.
OWNER_SECRET = "attention-lab-test-secret"
os.environ["ATTENTION_LAB_SECRET"] = OWNER_SECRET  # models.runs.owners.SECRET_ENV


def owner_id(name: str) -> str:
    """The secret id of the test browser ``name`` (what its session state and signed cookie hold)."""
    import hashlib

    return hashlib.sha256(name.encode()).hexdigest()[:32]


def owner_of(name: str) -> str:
    """What the runs of test browser ``name`` record as their owner (under :data:`OWNER_SECRET`)."""
    from models.runs.owners import owner_key

    return owner_key(owner_id(name), ROOT / "tests")  # under the environment's secret, the folder is not read
