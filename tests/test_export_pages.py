"""AppTest: every decoding and attention page offers its downloads (CSV per figure, trace JSON and
NPZ, handout HTML) next to its main figure; the files are made on click (deferred)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import APPTEST_TIMEOUT, ROOT

# page file → (export name, the CSV captions expected at the first paint)
PAGES = {
    "2_Seq2seq_attention.py": ("seq2seq", 3),
    "4_Transformer_translation.py": ("transformer", 3),
    "5_Inside_one_head.py": ("one-head", 1),
    "6_Generation.py": ("generation", 3),
    "7_BERT_masking.py": ("bert-masking", 0),
    "8_Real_model_explorer.py": ("real-model", 2),
}


@pytest.mark.parametrize("page", list(PAGES))
def test_page_shows_the_download_buttons(page: str) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    name, n_csv = PAGES[page]
    buttons = {b.key: b for b in at.get("download_button")}
    prefix = f"export_{name}_"
    for suffix in ("json", "npz", "html"):
        assert prefix + suffix in buttons, sorted(buttons)
    csv_keys = [k for k in buttons if k.startswith(prefix + "csv")]
    assert len(csv_keys) >= n_csv
    assert all(buttons[k].proto.label.endswith("(CSV)") for k in csv_keys)
    assert buttons[prefix + "html"].proto.label.startswith("Handout")
    # built on click, not on every run
    assert all(b.proto.HasField("deferred_file_id") for k, b in buttons.items() if k.startswith(prefix))
    assert not buttons[prefix + "json"].proto.disabled


def test_seq2seq_export_follows_the_step() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.button(key="s2s_next").click().run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Step 2 top-k (CSV)" in labels, labels
