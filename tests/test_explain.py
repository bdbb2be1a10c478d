"""Click-to-explain: the derivation of a drawn attention weight reproduces it (to 1e-5) for every
model family — RNN (Bahdanau, Luong dot/general/concat, local-m, local-p, hard, beam), Transformer
(encoder, masked decoder, cross), decoder-only LM, small BERT, real MiniLM — and its terms give its
score; the clickable layer maps clicks to cells; the pages show the derivation of a clicked cell."""
from __future__ import annotations

import math

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from models.checkpoints import load_bert, load_seq2seq, load_transformer
from models.inference.bert import run_bert
from models.inference.explain import (
    explain_bert_cell, explain_head_cell, explain_hf_cell, explain_hf_heads, explain_seq2seq_cell,
)
from models.inference.transformer import generate
from models.inference.translate import translate, translate_transformer
from models.nn.rnn_seq2seq import AttentionMode
from tests.conftest import APPTEST_TIMEOUT, ROOT
from viz_core.attention_grid import head_figure
from viz_core.explain import LAYER_NAME, add_cell_layer, cell_of_point
from viz_core.export import figure_rows
from viz_core.seq2seq import attention_heatmap
from viz_core.transformer import attention_matrix_figure, causal_mask

TOL = 1e-5
SENTENCE = "the red car is not small ."


def _score_from_terms(e) -> float:
    """The score recomputed from the record's named vectors by the family's formula."""
    v = list(e.terms.values())
    if e.family in ("bahdanau", "luong-concat"):  # vᵀ tanh(a + b): the third term is tanh(a + b)
        np.testing.assert_allclose(v[2], np.tanh(v[0] + v[1]), atol=1e-5)
        return float(v[3] @ v[2])
    return float(v[0] @ v[1])  # s·h, s·(W h), q·k


def _check_row(e, drawn_row: np.ndarray) -> None:
    """The record against the drawn row: its weight, its own softmax, its terms, the model's row."""
    k = e.key_index
    assert abs(e.weight - drawn_row[k]) <= TOL
    assert e.error <= TOL
    np.testing.assert_allclose(e.weights, drawn_row, atol=TOL)
    assert _score_from_terms(e) == pytest.approx(e.score, abs=1e-4)
    finite = np.isfinite(e.masked)
    np.testing.assert_array_equal(finite, e.allowed)
    np.testing.assert_allclose(e.masked[finite], (e.scores / e.scale)[finite], rtol=1e-6, atol=1e-6)
    expected = np.exp(e.masked[finite] - e.masked[finite].max())
    np.testing.assert_allclose(e.softmax[finite], expected / expected.sum(), atol=1e-6)
    assert np.all(e.softmax[~finite] == 0)


# ----------------------------------------------------------------------------------------------
# RNN seq2seq
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, family", [
    ("s2s-bahdanau", "bahdanau"), ("s2s-luong-dot", "luong-dot"), ("s2s-luong-general", "luong-general"),
    ("s2s-luong-concat", "luong-concat"), ("s2s-luong-local-m", "luong-general"),
    ("s2s-luong-local-p", "luong-general"),
])
def test_rnn_cells_reproduce_the_drawn_weights(name, family):
    loaded = load_seq2seq(name)
    trace = translate(loaded, SENTENCE)
    hyp = trace.best
    for t in (0, len(hyp.tokens) // 2, len(hyp.tokens) - 1):
        for i in range(len(trace.src_tokens)):
            e = explain_seq2seq_cell(loaded, SENTENCE, hyp.tokens, t, i)
            assert e.family == family and e.scale == 1.0 and (e.query_index, e.key_index) == (t, i)
            _check_row(e, hyp.attention[t])
    if loaded.model.cfg.alignment != "global":  # the local window masks keys: their weight is exactly 0
        assert e.position is not None and not e.allowed.all()
        assert np.all(hyp.attention[t][~e.allowed] == 0)
    if loaded.model.cfg.alignment == "local-p":
        assert e.after_softmax == "local-p Gaussian"
        np.testing.assert_allclose(e.weights, e.softmax * e.factor, atol=1e-7)


def test_rnn_beam_hypotheses_and_hard_attention():
    loaded = load_seq2seq("s2s-luong-general")
    beam = translate(loaded, SENTENCE, beam=3)
    for h in beam.hypotheses[:2]:
        t = len(h.tokens) - 2
        for i in range(len(beam.src_tokens)):
            _check_row(explain_seq2seq_cell(loaded, SENTENCE, h.tokens, t, i), h.attention[t])
    hard = translate(loaded, SENTENCE, mode=AttentionMode("hard"))
    e = explain_seq2seq_cell(loaded, SENTENCE, hard.best.tokens, 1, 2, AttentionMode("hard"))
    assert e.after_softmax == "hard one-hot"
    np.testing.assert_array_equal(e.weights, hard.best.attention[1])
    assert e.weights.sum() == 1 and e.weights[int(e.softmax.argmax())] == 1


def test_rnn_bad_cells_are_refused():
    with pytest.raises(ValueError, match="without attention"):
        explain_seq2seq_cell(load_seq2seq("s2s-none"), SENTENCE, ["la", "</s>"], 0, 0)
    loaded = load_seq2seq("s2s-bahdanau")
    hyp = translate(loaded, SENTENCE).best
    with pytest.raises(ValueError, match="out of range"):
        explain_seq2seq_cell(loaded, SENTENCE, hyp.tokens, 0, 99)
    with pytest.raises(ValueError, match="out of range"):
        explain_seq2seq_cell(loaded, SENTENCE, hyp.tokens, len(hyp.tokens), 0)


# ----------------------------------------------------------------------------------------------
# Transformer, decoder-only LM
# ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tf_trace():
    loaded = load_transformer("tf-en-fr")
    return loaded, translate_transformer(loaded, SENTENCE)


@pytest.mark.parametrize("kind", ["encoder", "decoder", "cross"])
def test_transformer_cells_reproduce_the_drawn_weights(tf_trace, kind):
    loaded, trace = tf_trace
    drawn = {"encoder": trace.encoder_attention, "decoder": trace.decoder_self_attention,
             "cross": trace.cross_attention}[kind]
    layer, head = trace.n_layers - 1, trace.n_heads - 1
    q = min(2, drawn.shape[2] - 1)
    for k in range(drawn.shape[3]):
        e = explain_head_cell(loaded.model, kind, layer, head, q, k, trace.src_ids, trace.decoder_input_ids)
        assert (e.layer, e.head, e.family) == (layer, head, "transformer")
        assert e.scale == pytest.approx(math.sqrt(loaded.config.d_model // loaded.config.n_heads))
        _check_row(e, drawn[layer, head, q])


def test_masked_decoder_cell_is_minus_infinity_and_zero(tf_trace):
    loaded, trace = tf_trace
    e = explain_head_cell(loaded.model, "decoder", 0, 0, 1, 3, trace.src_ids, trace.decoder_input_ids)
    assert not e.allowed[3] and np.isneginf(e.masked[3])
    assert e.weight == 0 == trace.decoder_self_attention[0, 0, 1, 3]
    np.testing.assert_array_equal(e.allowed, causal_mask(len(trace.decoder_input_ids))[1])
    _check_row(e, trace.decoder_self_attention[0, 0, 1])


def test_language_model_cells():
    loaded = load_transformer("tf-lm")
    result = generate(loaded.model, [loaded.config.bos_id, 5, 6, 7], max_new=4, seed=0)
    ids = result.prompt_ids + result.generated_ids
    for k in range(len(ids)):
        e = explain_head_cell(loaded.model, "lm", 1, 1, 4, k, None, ids)
        _check_row(e, result.attention[1, 1, 4])
    assert not e.allowed[-1] and e.weight == 0  # a later key: masked


# ----------------------------------------------------------------------------------------------
# Small BERT and a real encoder
# ----------------------------------------------------------------------------------------------

def test_bert_cells_reproduce_the_drawn_weights():
    loaded = load_bert("bert-small")
    enc = loaded.tokenizer.encode_pair("the man went to the store .", "he bought milk .",
                                       max_len=loaded.config.max_len)
    trace = run_bert(loaded.model, enc.ids, enc.segment_ids)
    for k in range(len(enc.ids)):
        e = explain_bert_cell(loaded.model, enc.ids, enc.segment_ids, 2, 3, 4, k)
        assert e.family == "bert"
        _check_row(e, trace.attention[2, 3, 4])


@pytest.fixture(scope="module")
def minilm():
    from models.inference.hf_adapter import load_hf_model, run_hf

    m = load_hf_model()
    return m, run_hf(m, "The animal didn't cross the street because it was too tired.", "It was late.")


def test_real_encoder_cells_reproduce_the_drawn_weights(minilm):
    m, trace = minilm
    ids, segs = trace.ids.tolist(), trace.segment_ids.tolist()
    cells = explain_hf_heads(m, ids, segs, 3, list(range(m.n_heads)), 5, 2)
    for e in cells:
        assert e.family == "hf" and e.scale == pytest.approx(math.sqrt(m.hidden // m.n_heads))
        _check_row(e, trace.attention[3, e.head, 5])
    one = explain_hf_cell(m, ids, segs, 3, 7, 5, 2)
    assert one.weight == cells[7].weight
    assert float(np.mean([e.weight for e in cells])) == pytest.approx(trace.attention[3, :, 5, 2].mean(), abs=TOL)


# ----------------------------------------------------------------------------------------------
# The clickable layer
# ----------------------------------------------------------------------------------------------

def test_cell_layer_covers_every_cell_and_maps_clicks_back():
    w = np.random.default_rng(0).dirichlet(np.ones(5), size=3)
    fig = attention_heatmap(w, list("abcde"), ["x", "y", "z"], gold=[(1, 1)])
    layer = add_cell_layer(fig)
    tr = fig.data[layer]
    assert tr.name == LAYER_NAME and len(tr.x) == 15 and tr.marker.opacity == 0
    assert (tr.x[7], tr.y[7]) == (2, 1)  # row-major: point 7 is row 1, column 2
    assert "α = " in tr.text[7] and f"{w[1, 2]:.4f}" in tr.text[7]  # the heatmap's hover moved onto the layer
    assert fig.data[0].hoverinfo == "skip"
    assert cell_of_point([{"curve_number": layer, "point_index": 7}], layer, 5) == (1, 2)
    assert cell_of_point([{"curve_number": 1, "point_index": 7}], layer, 5) is None  # the gold squares
    assert all(row[2] != "scatter" or row[1] != LAYER_NAME for row in figure_rows(fig))  # not in the CSV


def test_cell_layer_takes_over_templates_and_mask_text_and_skips_binned_heatmaps():
    w = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]
    fig = attention_matrix_figure(w, list("abcd"), list("abcd"), blocked=~causal_mask(4))
    layer = add_cell_layer(fig)
    tr = fig.data[layer]
    assert "masked" in tr.text[1] and "weight" in tr.text[4]  # (0, 1) is masked, (1, 0) is not
    small = head_figure(np.eye(6), [str(i) for i in range(6)]).figure
    layer = add_cell_layer(small)
    tr = small.data[layer]
    assert "%{marker.color:.4f}" in tr.hovertemplate and len(tr.customdata) == 36
    assert add_cell_layer(head_figure(np.eye(300), [str(i) for i in range(300)]).figure) is None


# ----------------------------------------------------------------------------------------------
# Pages (AppTest: the click is simulated by the cell the chart's callback stores)
# ----------------------------------------------------------------------------------------------

def _derivation(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown if "Why" in m.value and "Query" in m.value)


def test_seq2seq_page_explains_the_clicked_cell():
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception and _derivation(at) == ""
    at.session_state["heatmap_cell"] = (1, 2)
    at.run()
    assert not at.exception, at.exception
    title = _derivation(at)
    assert "row 1" in title and "column 2" in title
    steps = at.table[0].value
    assert "④ softmax over the row" in steps.iloc[:, 0].tolist()
    values = steps.iloc[:, 2].tolist()
    assert values[-2].replace("\\", "") == values[-1].replace("\\", "")  # drawn = the model's own weight
    at.text_input(key="s2s_text").set_value("the small house is red .").run()  # another input: click forgotten
    assert not at.exception and _derivation(at) == ""


def test_generation_page_explains_a_masked_cell():
    at = AppTest.from_file(str(ROOT / "pages" / "6_Generation.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.session_state["gen_matrix_cell"] = (1, 3)  # above the diagonal: the look-ahead mask
    at.run()
    assert not at.exception, at.exception
    assert "row 1" in _derivation(at) and "column 3" in _derivation(at)
    how = " ".join(at.table[0].value.iloc[:, 1].tolist()).replace("\\", "")
    assert "(−∞): the mask blocks this key" in how


def test_transformer_page_explains_the_average_over_heads():
    at = AppTest.from_file(str(ROOT / "pages" / "4_Transformer_translation.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.selectbox(key="tf_head").set_value(-1).run()  # average over heads
    at.session_state["tf_head_fig_cell"] = (0, 1)
    at.run()
    assert not at.exception, at.exception
    assert "average over heads" in _derivation(at)
    heads = at.table[0].value
    assert len(heads) == 5  # four heads and their mean
    weights = [float(v.replace("\\", "")) for v in heads.iloc[:4, -1]]
    assert float(heads.iloc[4, -1].replace("\\", "")) == pytest.approx(np.mean(weights), abs=1e-4)


def test_bert_page_explains_a_layer_and_head_cell():
    at = AppTest.from_file(str(ROOT / "pages" / "7_BERT_masking.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["topic"] = "Attention"  # the page's attention tab
    at.run()
    at.session_state["bert_from_cell"] = (5, 2)  # row 5 = layer 2, head 2 (4 heads per layer)
    at.run()
    assert not at.exception, at.exception
    title = _derivation(at)
    assert "layer 2, head 2" in title and "column 2" in title
    values = at.table[0].value.iloc[:, 2].tolist()
    assert values[-2] == values[-1]


def test_real_model_page_explains_a_cell():
    at = AppTest.from_file(str(ROOT / "pages" / "8_Real_model_explorer.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.session_state["real_head_fig_cell"] = (3, 1)
    at.run()
    assert not at.exception, at.exception
    assert "row 3" in _derivation(at) and "column 1" in _derivation(at)
    how = " ".join(at.table[0].value.iloc[:, 1].tolist()).replace("\\", "")
    assert "÷ √d_k = ÷ 5.657" in how  # MiniLM: d_k = 384 / 12 = 32


def test_inside_one_head_page_explains_a_cell_of_the_whole_head():
    at = AppTest.from_file(str(ROOT / "pages" / "5_Inside_one_head.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert _derivation(at) == ""
    at.toggle(key="head_whole").set_value(True).run()
    at.session_state["head_matrix_cell"] = (2, 4)
    at.run()
    assert not at.exception, at.exception
    title = _derivation(at)
    assert "row 2" in title and "column 4" in title and "layer 1, head 1" in title
    values = at.table[0].value.iloc[:, 2].tolist()
    assert values[-2] == values[-1]
