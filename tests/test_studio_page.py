"""The Training studio page (AppTest): a tiny run started from the settings trains in the
background to the end, its curve and snapshot scrubber appear, it is saved and listed in the
Seq2seq page's model picker; Stop ends a long run; data choices that cannot train say why."""
from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from models.training.runs import RUNS_ENV, list_runs
from tests.conftest import APPTEST_TIMEOUT, ROOT

PAGE = str(ROOT / "pages" / "11_Training_studio.py")


@pytest.fixture
def runs_root(tmp_path, monkeypatch):
    monkeypatch.setenv(RUNS_ENV, str(tmp_path))
    return tmp_path


def _studio() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT).run()
    assert not at.exception
    return at


def _until(at: AppTest, done, timeout: float = 120) -> AppTest:
    """Rerun the page (as the polling fragment would) until ``done(at)``."""
    deadline = time.monotonic() + timeout
    while not done(at):
        assert time.monotonic() < deadline
        time.sleep(0.5)
        at.run()
        assert not at.exception
    return at


def test_a_tiny_run_trains_and_appears_in_the_seq2seq_picker(runs_root):
    at = _studio()
    assert "No run yet" in at.info[0].value
    at.selectbox(key="studio_preset").select("tiny").run()
    assert at.slider(key="studio_steps").value == 40  # the preset filled in the settings
    at.text_input(key="studio_name").input("my first run")
    at.button(key="studio_train").click().run()
    assert not at.exception and not at.error
    _until(at, lambda a: len(a.success) > 0)
    assert "Finished: 40 steps" in at.success[0].value
    assert at.slider(key="studio_snap_step").max == 5  # snapshots at steps 0, 10, 20, 30, 40
    at.button(key="studio_snap_next").click().run()
    assert any(c.value.startswith("Step 10: validation BLEU") for c in at.caption)
    (saved,) = list_runs(runs_root)
    assert saved.name == "my first run" and (saved.checkpoint / "model.safetensors").is_file()
    other = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT).run()
    picker = other.selectbox(key="s2s_model")
    assert "Your run: my first run" in picker.options
    picker.select(str(saved.checkpoint)).run()
    assert not other.exception and not other.error  # the user's run decodes on the seq2seq page
    at.text_input(key=f"studio_name_{saved.id}").input("renamed run")
    at.button(key=f"studio_rename_{saved.id}").click().run()
    assert list_runs(runs_root)[0].name == "renamed run"
    at.button(key=f"studio_delete_{saved.id}").click().run()
    assert not at.exception and not list_runs(runs_root)
    assert "No run yet" in at.info[0].value


def test_stop_ends_a_long_run(runs_root):
    at = _studio()
    at.selectbox(key="studio_preset").select("tiny").run()
    at.slider(key="studio_steps").set_value(3000)
    at.button(key="studio_train").click().run()
    _until(at, lambda a: any("Step " in p.proto.text for p in a.get("progress")))
    at.button(key="studio_stop").click().run()
    _until(at, lambda a: len(a.success) > 0)
    assert "Stopped at step" in at.success[0].value
    assert list_runs(runs_root)[0].meta["status"] == "stopped"


def test_an_upload_choice_without_a_file_says_so(runs_root):
    at = _studio()
    at.selectbox(key="studio_data").select("upload")
    at.button(key="studio_train").click().run()
    assert "Choose a file of sentence pairs" in at.error[0].value
    assert not list_runs(runs_root) and "No run yet" in at.info[0].value


def test_a_transformer_run_shows_its_heads_and_appears_in_the_transformer_picker(runs_root):
    at = _studio()
    at.selectbox(key="studio_preset").select("tiny-transformer").run()
    assert at.session_state["studio_family"] == "transformer"
    at.slider(key="studio_steps").set_value(10)
    at.button(key="studio_train").click().run()
    _until(at, lambda a: len(a.success) > 0)
    assert at.selectbox(key="studio_layer").options == ["layer 1"]
    assert at.selectbox(key="studio_head").options == ["head 1", "head 2", "average over heads"]
    at.selectbox(key="studio_head").select(1).run()
    assert not at.exception
    (saved,) = list_runs(runs_root)
    other = AppTest.from_file(str(ROOT / "pages" / "4_Transformer_translation.py"),
                              default_timeout=APPTEST_TIMEOUT).run()
    picker = other.selectbox(key="tf_model")
    assert f"Your run: {saved.name}" in picker.options
    picker.select(str(saved.checkpoint)).run()
    assert not other.exception
