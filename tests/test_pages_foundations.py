"""AppTest for "Attention from scratch" and "Positional encoding": every tab runs, the controls
change the results, and bad input in the Q/K/V sandbox gives an error message, never an exception."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT

SCRATCH = str(ROOT / "pages" / "1_Attention_from_scratch.py")
POSITIONAL = str(ROOT / "pages" / "3_Positional_encoding.py")


def _open(path: str, tab: str | None = None) -> AppTest:
    at = AppTest.from_file(path, default_timeout=APPTEST_TIMEOUT)
    if tab is not None:
        at.session_state["topic"] = tab
    at.run()
    assert not at.exception, at.exception
    return at


def _markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


# ------------------------------------------------------------------------ Attention from scratch


def test_kernel_regression_tab_reacts_to_its_controls():
    at = _open(SCRATCH)
    assert at.title[0].value == "Attention from scratch"
    before = [m.value for m in at.metric]
    at.slider(key="kr_h").set_value(0.3).run()
    assert not at.exception
    after = [m.value for m in at.metric]
    assert before[1] != after[1] and before[0] == after[0]  # only the Gaussian error moved
    at.button(key="kr_resample").click().run()
    assert not at.exception and at.session_state["kr_seed"] == 1
    assert [m.value for m in at.metric][0] != after[0]
    at.radio(key="kr_method").set_value("parametric").run()
    at.slider(key="kr_steps").set_value(0).run()
    assert not at.exception
    learned = [c.value for c in at.caption if "steps of gradient descent" in c.value]
    assert learned and "after 0 steps of gradient descent" in learned[0]  # the fit's own line, under its figures


@pytest.mark.slow
def test_score_functions_tab():
    at = _open(SCRATCH, "Score functions")
    table = at.dataframe[0].value
    assert list(table.index) == ["dot", "scaled dot", "general", "additive", "cosine"]
    at.number_input(key="sf_k3_x").set_value(4.0).run()
    assert not at.exception
    assert at.dataframe[0].value.loc["dot", "e(k4)"] == pytest.approx(4.0 * 1.0 + 1.0 * 0.5)
    at.slider(key="sf_n").set_value(2).run()
    assert not at.exception and "e(k3)" not in at.dataframe[0].value.columns
    at.select_slider(key="sf_d").set_value(1024).run()
    assert not at.exception and "At $d$ = 1024" in _markdown(at)


@pytest.mark.slow
def test_soft_hard_local_tab():
    at = _open(SCRATCH, "Soft, hard, local")
    at.selectbox(key="shl_focus").set_value(2).run()
    at.slider(key="shl_D").set_value(1).run()
    at.slider(key="shl_center").set_value(0.0).run()
    assert not at.exception
    assert "Only 2 of 13 words are scored" in _markdown(at)


@pytest.mark.slow
def test_sandbox_runs_and_rejects_bad_input_with_messages():
    at = _open(SCRATCH, "Q/K/V sandbox")
    assert not at.error
    bad_inputs = {
        "1 0 1 0\n0 two 0 1": "'two' is not a number",
        "1 1e9": "out of range",
        "nan 1": "not a finite number",
        "\n".join(["1 2 3 4"] * 7): "at most 6 are allowed",
        "1 2 3 4 5": "at most 4 columns",
        "1 2\n3": "every row needs the same count",
        "1 2 3": "Q has 3 columns but K has 4",
        "": "Q is empty",
    }
    for text, message in bad_inputs.items():
        at.text_area(key="sb_q").input(text).run()
        assert not at.exception, text
        errors = " ".join(e.value for e in at.error).replace("\\", "")
        assert message in errors, (text, errors)
    at.text_area(key="sb_q").input("1 0 1 0").run()
    assert not at.error
    at.radio(key="sb_mask").set_value("padding").run()
    at.number_input(key="sb_pad").set_value(4).run()  # would hide all 4 keys
    assert not at.exception and "at least one key has to stay visible" in at.error[0].value.replace("\\", "")
    at.number_input(key="sb_pad").set_value(1).run()
    at.text_area(key="sb_v").input("1\n2\n3").run()
    assert "K has 4 rows but V has 3" in at.error[0].value.replace("\\", "")


def test_why_attention_tab_explains_without_results():
    at = _open(SCRATCH, "Why attention")
    assert "fixed size" in _markdown(at)
    shown = [i.value for i in at.info] + [str(c) for c in charts(at)]
    assert shown  # either the chart or the note on how to get it


@pytest.mark.slow
def test_why_attention_tab_draws_the_shipped_results(monkeypatch):
    pytest.importorskip("viz_core.seq2seq")
    evaluate = pytest.importorskip("models.checkpoints")
    fake = {
        "models": [
            {
                "label": label,
                "kind": kind,
                "bleu_by_length": [
                    {"min_len": 1, "max_len": 10, "bleu": b1, "n": 50},
                    {"min_len": 11, "max_len": 20, "bleu": b2, "n": 40},
                ],
            }
            for label, kind, b1, b2 in (("no attention", "none", 30.0, 12.0), ("Bahdanau", "bahdanau", 35.0, 33.0))
        ]
    }
    monkeypatch.setattr(evaluate, "load_results", lambda: fake)
    at = _open(SCRATCH, "Why attention")
    assert not at.info
    assert len(charts(at)) == 1


def test_complexity_tab_times_only_on_request():
    at = _open(SCRATCH, "Attention vs RNN vs CNN")
    assert at.table and "Press **Measure**" in at.info[0].value
    at.selectbox(key="cx_d").set_value(16).run()
    at.select_slider(key="cx_max").set_value(64).run()
    at.selectbox(key="cx_repeats").set_value(1).run()
    at.button(key="cx_run").click().run()
    assert not at.exception
    assert at.session_state["cx_params"][0] == (16, 32, 64)
    assert "time ∝ $n^p$" in _markdown(at)


# --------------------------------------------------------------------------- Positional encoding


def test_sinusoid_tab():
    at = _open(POSITIONAL)
    assert at.title[0].value == "Positional encoding"
    at.select_slider(key="pe_d").set_value(16).run()
    at.slider(key="pe_len").set_value(50).run()
    assert not at.exception
    assert "from $2\\pi" in _markdown(at) and "(dimensions 14, 15)" in _markdown(at)
    at.multiselect(key="pe_dims_16").set_value([0, 15]).run()
    assert not at.exception


def test_rotation_tab_shows_tiny_errors():
    at = _open(POSITIONAL, "Similarity and rotation")
    at.slider(key="rot_k").set_value(17).run()
    assert not at.exception
    metrics = {m.label: float(m.value) for m in at.metric}
    assert metrics["Max error, k = 17, all pos"] < 1e-12
    assert max(metrics.values()) < 1e-4


def _captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


@pytest.mark.slow
def test_similarity_tab_draws_tf_en_fr_position_only_score():
    at = _open(POSITIONAL, "Similarity and rotation")
    assert "What attention scores: the position-only score of tf-en-fr" in _markdown(at)
    assert "not attention scores" in _markdown(at)
    assert "Encoder layer 0, head 1 of tf-en-fr" in _captions(at)
    assert "not an attention weight" in _captions(at)
    assert "depends on $i - j$ only. The position-only part of the attention score does not" in _markdown(at)
    assert "Transformer-XL" in _markdown(at) and "R_{i-j}" in _markdown(at)
    assert not at.warning
    at.radio(key="rot_tf_layer").set_value(1).run()
    at.slider(key="rot_tf_head").set_value(4).run()
    assert not at.exception
    assert "Encoder layer 1, head 4 of tf-en-fr" in _captions(at)
    assert "layer 1's weights" in _markdown(at)


@pytest.fixture()
def without_tf_en_fr(tmp_path, monkeypatch):
    """A checkpoints folder without tf-en-fr (and one where its weights are corrupt)."""
    import shutil

    import streamlit as st

    from models import checkpoints as checkpoint

    monkeypatch.setattr(checkpoint, "CHECKPOINT_DIR", tmp_path)
    st.cache_data.clear()
    st.cache_resource.clear()
    yield tmp_path, lambda: shutil.copytree(ROOT / "checkpoints" / "tf-en-fr", tmp_path / "tf-en-fr")
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.mark.slow
def test_similarity_tab_without_tf_en_fr_shows_a_message(without_tf_en_fr):
    folder, copy_model = without_tf_en_fr
    at = _open(POSITIONAL, "Similarity and rotation")
    assert not at.error
    assert "Cannot load model “tf-en-fr”" in at.warning[0].value
    assert "Max error, k = 5, all pos" in [m.label for m in at.metric]  # the rest still works
    copy_model()
    (folder / "tf-en-fr" / "model.safetensors").write_bytes(b"\x00 not a safetensors file")
    at = _open(POSITIONAL, "Similarity and rotation")
    assert "Cannot load model “tf-en-fr”" in at.warning[0].value
    assert "model.safetensors" in at.warning[0].value
    assert len(at.metric) == 3


def test_embedding_tab():
    at = _open(POSITIONAL, "Adding to embeddings")
    scaled_norm = at.metric[0].value
    at.toggle(key="emb_scaled").set_value(False).run()
    assert not at.exception
    assert float(at.metric[0].value) < float(scaled_norm)
    at.radio(key="emb_init").set_value("1 (nn.Embedding default)").run()
    assert not at.exception


def test_schemes_tab():
    at = _open(POSITIONAL, "Learned, relative, RoPE, ALiBi")
    at.slider(key="sch_train").set_value(64).run()
    at.slider(key="sch_eval").set_value(32).run()  # shorter than training: clamped, no error
    at.slider(key="sch_head").set_value(8).run()
    assert not at.exception
    assert "head 8" in _markdown(at)
    assert "$-m\\,(i-j)$ on keys $j \\le i$" in _markdown(at)
    assert "|i-j|" not in _markdown(at) and "|i − j|" not in _markdown(at)
    assert "not attention scores" in _captions(at)
    assert at.table
    assert "causal" in at.table[0].value.loc["ALiBi", "Where position enters"]
    assert "cosine similarity between rows i and j of bert-small's learned position table" in _captions(at)


def test_padding_tab():
    at = _open(POSITIONAL, "Padding")
    at.slider(key="pad_len1").set_value(10).run()
    assert not at.exception
    assert "padded slots too" in at.info[0].value and "padding mask" in at.info[0].value


def test_embedding_tab_says_how_our_models_differ():
    at = _open(POSITIONAL, "Adding to embeddings")
    note = at.info[0].value
    assert "How our models differ from the paper" in note
    assert "`tie_embeddings: false`" in note and "Glorot" in note and "tf-lm ties" in note
