"""Shared test settings: the repository root on sys.path, and one torch thread; the export fixtures
(what a page's download buttons would give)."""

import os
import sys
from pathlib import Path

import pytest

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


@pytest.fixture()
def deferred(monkeypatch) -> dict[str, tuple[str | None, object]]:
    """The download buttons' deferred files of the runs, by file id: (file name, the callable)."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    files: dict[str, tuple[str | None, object]] = {}
    add = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        file_id = add(self, data_callable, mimetype, coordinates, file_name, **kw)
        files[file_id] = (file_name, data_callable)
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    return files


@pytest.fixture()
def exported(monkeypatch) -> list[dict]:
    """The figures that pages hand to ui.export.export_menu, one mapping per call (pages import the
    function at each run, so they take this recording one)."""
    import ui.export

    calls: list[dict] = []
    menu = ui.export.export_menu

    def recording(name, **kw):
        calls.append(dict(kw.get("figures") or {}))
        return menu(name, **kw)

    monkeypatch.setattr(ui.export, "export_menu", recording)
    return calls
