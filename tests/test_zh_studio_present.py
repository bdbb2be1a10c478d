"""中文 for the Training studio and the Present page beyond their labels: the errors that come from
corpora/ and models/ (an uploaded file, a run that cannot start or be imported, a failed run), a
saved run's data and status, and a refused deck file are said in 中文 (AppTest)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from corpora import user_tsv
from models.training import runs
from models.runs import store
from models.training.runs import RUN_FILE, RUNS_ENV, RunSettings, Snapshot
from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT
from tests.test_i18n import CJK, _figure_words, english_words
from tests.test_runs import wait
from ui.deck import FORMAT, VERSION
from ui.i18n import reading
from ui.strings import STRINGS

STUDIO = str(ROOT / "pages" / "11_Training_studio.py")
PRESENT = str(ROOT / "pages" / "12_Present.py")


@pytest.fixture
def runs_root(tmp_path, monkeypatch):
    monkeypatch.setenv(RUNS_ENV, str(tmp_path))
    return tmp_path


def _zh(page: str, **state) -> AppTest:
    at = AppTest.from_file(page, default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def _rerun(widget) -> AppTest:
    """Run again after a widget's change; AppTest re-labels the page's selectboxes with their format_func
    in this thread, which reads the language from :func:`ui.i18n.reading`."""
    with reading("zh"):
        return widget.run()


@pytest.mark.parametrize("messages", [user_tsv.MESSAGES, runs.MESSAGES], ids=["tsv", "runs"])
def test_every_error_id_has_its_english_and_chinese(messages):
    """corpora and models keep their errors' English by id (they import no ui); the table holds the
    same ids with the same English, and a 中文."""
    assert {key: STRINGS[key][0] for key in messages} == messages


def test_an_unusable_upload_is_refused_in_chinese(runs_root):
    at = _zh(STUDIO)
    at.selectbox(key="studio_data").select("upload")
    at.file_uploader(key="studio_upload").set_value(("pairs.tsv", b"one column only\n" * 30, "text/plain"))
    at = _rerun(at.button(key="studio_train").click())
    assert not at.exception
    (error,) = at.error
    assert error.value == (
        "无法使用此文件：pairs\\.tsv：只有 0 个可用句对，至少需要 20 个（第 1 行：两个句子之间没有制表符）"
    )
    assert not store.list_runs(runs_root)
    # a usable file trains, and its left-out lines are listed in 中文
    good = "".join(f"I see {i} cats.\tJe vois {i} chats.\n" for i in range(20)).encode()
    at.file_uploader(key="studio_upload").set_value(("pairs.tsv", good + "é\t\n".encode("latin-1"), "text/plain"))
    at.slider(key="studio_steps").set_value(10)
    at = _rerun(at.button(key="studio_train").click())
    assert not at.exception and not at.error
    assert at.warning[0].value == "文件中有 1 行被跳过："
    assert at.get("code")[0].value == "第 21 行：不是有效的 UTF-8（请将文件另存为 UTF-8 编码）"
    from ui.studio import registry

    registry().stop(at.session_state["studio_run"])


def test_a_refused_zip_and_a_failed_run_are_said_in_chinese(runs_root):
    at = _zh(STUDIO)
    at = _rerun(at.file_uploader(key="studio_import").set_value(("run.zip", b"PK\x03\x04 not", "application/zip")))
    at = _rerun(at.button(key="studio_import_button").click())
    assert not at.exception
    assert [e.value for e in at.error] == ["操作失败：此文件不是训练导出的 zip 文件"]

    from ui.studio import registry  # the page's one registry (st.cache_resource, shared in this process)

    reg = registry()
    run_id = reg.start(RunSettings(data="upload", steps=10), pairs=[])  # nothing to train on: it fails
    wait(reg, run_id)
    at = _zh(STUDIO, studio_run=run_id)
    assert [e.value for e in at.error] == ["训练失败：这次训练没有得到任何句对"]


def test_a_saved_runs_data_and_status_are_said_in_chinese(runs_root):
    folder = runs_root / "20260101-000000-abcdef"
    (folder / runs.CHECKPOINT).mkdir(parents=True)
    (folder / runs.CHECKPOINT / runs.CONFIG).write_text("{}")
    (folder / RUN_FILE).write_text(
        json.dumps(
            {
                "id": folder.name,
                "name": "my bible run",
                "family": "seq2seq",
                "created": 1.0,
                "status": "finished",
                "data": "World English Bible → Louis Segond 1910 verses",
                "steps": 40,
                "seconds": 12.0,
                "bleu": 3.5,
                "settings": {"data": "bible"},
            }
        )
    )
    lines = (json.dumps({"step": i, "loss": 3.0 - i / 20}) + "\n" for i in range(40))
    (folder / runs.LOG_FILE).write_text("".join(lines))
    alpha = np.array([[0.9, 0.1], [0.2, 0.8]], dtype=np.float32)
    (folder / runs.SNAPSHOT_FILE).write_text(
        "".join(
            Snapshot(step, ["a", "b"], ["x", "y"], alpha, bleu, aer, [(0, 0), (1, 1)]).to_json() + "\n"
            for step, bleu, aer in ((0, 0.0, 0.6), (40, 3.5, 0.2))
        )
    )
    at = _zh(STUDIO)
    assert not at.exception
    assert "完成：12 秒内训练了 40 步" in at.success[0].value
    row = next(c.value for c in at.caption if "BLEU 3\\.5" in c.value)  # md_escape-d
    assert row.startswith(STRINGS["studio.status.finished"][1]) and STRINGS["studio.data.bible"][1] in row
    # the curves, the probe's map with its gold links and the AER curve draw only 中文 words
    figures = [c.figure for c in charts(at)]
    words = [w for spec in figures for w in _figure_words(spec)]
    assert len(figures) == 3 and STRINGS["fig.s2s.gold"][1] in words and STRINGS["studio.fig.aer"][1] in words
    assert [w for w in words if english_words(w) and not CJK.search(w)] == [], words


def test_a_bad_deck_file_is_refused_in_chinese():
    at = _zh(PRESENT)
    at.query_params["deck"] = "upload"
    at.run()
    bad = json.dumps(
        {"format": FORMAT, "version": VERSION, "slides": [{"page": "2_Seq2seq_attention", "params": {"s2s_step": 3}}]}
    )
    at.file_uploader(key="present_upload").set_value(("deck.json", bad.encode(), "application/json")).run()
    assert not at.exception
    (warning,) = at.warning
    assert warning.value == "此文件不能用作幻灯片组：第 1 张幻灯片的参数“s2s\\_step”必须是文本，而不是 int。"
