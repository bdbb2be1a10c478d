"""Click-to-explain: the derivation of a drawn attention weight reproduces it (to 1e-5) for every
model family — RNN (Bahdanau, Luong dot/general/concat, local-m, local-p, hard, beam), Transformer
(encoder, masked decoder, cross), decoder-only LM, small BERT, real MiniLM — and its terms give its
score; the clickable layer maps clicks to cells, and on a binned heatmap to blocks whose drawn value
is bin_attention's over the model's weights; the pages show the derivation of a clicked cell."""

from __future__ import annotations

import math

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from models.checkpoints import load_bert, load_seq2seq, load_transformer
from models.inference.bert import run_bert
from models.inference.explain import (
    explain_bert_cell,
    explain_head_cell,
    explain_hf_cell,
    explain_hf_heads,
    explain_seq2seq_cell,
)
from models.inference.transformer import generate
from models.inference.translate import translate, translate_transformer
from models.nn.rnn_seq2seq import AttentionMode
from tests.conftest import APPTEST_TIMEOUT, ROOT
from viz_core.attention_grid import bin_attention, head_figure
from viz_core.bert import explorer_head_figures
from viz_core.explain import (
    LAYER_NAME,
    add_cell_layer,
    binning_of,
    block_cells,
    block_value,
    cell_of_point,
    drawn_values,
)
from viz_core.export import figure_rows
from viz_core.seq2seq import attention_heatmap
from viz_core.transformer import attention_matrix_figure, causal_mask

TOL = 1e-5
SENTENCE = "the red car is not small ."
LONG_TEXT = " ".join(["The trophy would not fit in the brown suitcase because it was too big."] * 40)  # > 512 tokens


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


@pytest.mark.parametrize(
    "name, family",
    [
        ("s2s-bahdanau", "bahdanau"),
        ("s2s-luong-dot", "luong-dot"),
        ("s2s-luong-general", "luong-general"),
        ("s2s-luong-concat", "luong-concat"),
        ("s2s-luong-local-m", "luong-general"),
        ("s2s-luong-local-p", "luong-general"),
    ],
)
@pytest.mark.slow
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
    drawn = {
        "encoder": trace.encoder_attention,
        "decoder": trace.decoder_self_attention,
        "cross": trace.cross_attention,
    }[kind]
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
    enc = loaded.tokenizer.encode_pair("the man went to the store .", "he bought milk .", max_len=loaded.config.max_len)
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


@pytest.mark.slow
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


@pytest.fixture(scope="module")
def minilm_512(minilm):
    from models.inference.hf_adapter import run_hf

    m, _ = minilm
    return m, run_hf(m, LONG_TEXT, max_tokens=512)


@pytest.mark.slow
def test_real_encoder_binned_block_and_its_cells_at_512_tokens(minilm_512):
    """The explorer's own figures at 512 tokens (4 × 4 weights per drawn cell): a click on drawn
    cell (37, 40) is the block of queries 148–151 and keys 160–163, drawn as the mean over its
    queries of their weight to its keys; its largest cell's derivation reproduces the model's weight,
    for one head and for the average over heads."""
    m, trace = minilm_512
    ids, segs = trace.ids.tolist(), trace.segment_ids.tolist()
    layer, head = 2, 7
    assert trace.attention.shape[-1] == 512
    one, avg = explorer_head_figures(trace.attention[layer], head, trace.tokens)
    for fig, matrix, heads in (
        (one.figure, trace.attention[layer, head], [head]),
        (avg.figure, trace.attention[layer].mean(0), list(range(m.n_heads))),
    ):
        index = add_cell_layer(fig)
        bins = binning_of(fig)
        assert (bins.row_factor, bins.col_factor, bins.how) == (4, 4, "mean")
        cell = cell_of_point([{"curve_number": index, "point_index": 37 * 128 + 40}], index, 128)
        rows, cols = bins.block(*cell)
        assert cell == (37, 40) and rows == range(148, 152) and cols == range(160, 164)
        drawn = drawn_values(fig)[cell]
        block = matrix[148:152, 160:164].astype(np.float64)
        assert drawn == pytest.approx(block.sum(axis=1).mean(), abs=TOL)
        assert drawn == pytest.approx(bin_attention(matrix, 4, 4, "mean")[cell], abs=1e-7)
        q, k, top = block_cells(matrix, rows, cols)[0]
        assert top == block.max() and q in rows and k in cols
        cells = explain_hf_heads(m, ids, segs, layer, heads, q, k)
        assert float(np.mean([e.weight for e in cells])) == pytest.approx(matrix[q, k], abs=TOL)
        for e in cells:
            _check_row(e, trace.attention[layer, e.head, q])


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


def test_cell_layer_takes_over_templates_and_mask_text():
    w = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]
    fig = attention_matrix_figure(w, list("abcd"), list("abcd"), blocked=~causal_mask(4))
    layer = add_cell_layer(fig)
    tr = fig.data[layer]
    assert "masked" in tr.text[1] and "weight" in tr.text[4]  # (0, 1) is masked, (1, 0) is not
    small = head_figure(np.eye(6), [str(i) for i in range(6)]).figure
    layer = add_cell_layer(small)
    tr = small.data[layer]
    assert "%{marker.color:.4f}" in tr.hovertemplate and len(tr.customdata) == 36
    assert binning_of(small) is None
    w = np.random.default_rng(1).dirichlet(np.ones(300), size=300)
    big = head_figure(w, [str(i) for i in range(300)]).figure  # binned: no token customdata
    layer = add_cell_layer(big)
    tr = big.data[layer]
    assert tr.type == "scattergl" and "%{customdata" in tr.hovertemplate and "%{z" not in tr.hovertemplate
    assert np.allclose(tr.customdata, np.asarray(big.data[0].z).ravel(), atol=1e-6)  # the drawn values
    assert tr.marker.color is None  # one colour: 10,000 points are not coloured one by one


def test_each_panel_of_a_side_by_side_figure_gets_its_own_layer_and_outline():
    """The exposure figure's two heatmaps (subplots x/y and x2/y2): one click layer each, on its own axes,
    clicks mapped back per layer, and a clicked cell framed on its own panel."""
    from viz_core.explain import outline_cell, panel_axes, panel_count
    from viz_core.finetune import exposure_figure

    rng = np.random.default_rng(2)
    forced, free = rng.dirichlet(np.ones(4), size=3), rng.dirichlet(np.ones(4), size=5)
    fig = exposure_figure(list("abcd"), list("xyz"), list("uvwxy"), forced, free, 1, ["gold", "own"], "t", "p")
    assert panel_count(fig) == 2 and panel_axes(fig, 1) == ("x2", "y2")
    first, second = add_cell_layer(fig, 0), add_cell_layer(fig, 1)
    assert (fig.data[first].xaxis, fig.data[second].xaxis) == ("x", "x2")
    assert len(fig.data[first].x) == 12 and len(fig.data[second].x) == 20
    assert np.allclose(fig.data[second].marker.color, free.ravel(), atol=1e-6)  # the free run's weights
    points = [{"curve_number": second, "point_index": 9}]
    assert cell_of_point(points, first, 4) is None and cell_of_point(points, second, 4) == (2, 1)
    assert drawn_values(fig, 1).shape == (5, 4) and add_cell_layer(fig, 2) is None
    shapes = len(fig.layout.shapes)
    outline_cell(fig, 2, 1, panel=1)
    assert {(s.xref, s.yref) for s in fig.layout.shapes[shapes:]} == {("x2", "y2")}


@pytest.mark.parametrize("how", ["mean", "max"])
def test_binned_clicks_map_to_blocks_and_their_drawn_values(how):
    """301 tokens, 3 per drawn cell: 101 × 101 cells, the last block one query or key wide."""
    n = 301
    w = np.random.default_rng(1).dirichlet(np.ones(n), size=n).astype(np.float32)
    fig = head_figure(w, [f"t{i}" for i in range(n)], how=how).figure
    layer = add_cell_layer(fig)
    bins, drawn = binning_of(fig), drawn_values(fig)
    assert (bins.row_factor, bins.col_factor, bins.how, bins.shape) == (3, 3, how, (n, n))
    assert drawn.shape == (101, 101)
    assert len(fig.data[layer].x) == 101 * 101
    expected = bin_attention(w, 3, 3, how)
    for row, col in ((0, 0), (40, 77), (100, 3), (100, 100)):
        index = row * 101 + col
        assert cell_of_point([{"curve_number": layer, "point_index": index}], layer, 101) == (row, col)
        rows, cols = bins.block(row, col)
        assert rows == range(3 * row, min(3 * row + 3, n)) and cols == range(3 * col, min(3 * col + 3, n))
        # the click point sits at the block's centre in token positions (the last block: token 300)
        assert fig.data[layer].x[index] == (cols.start + cols.stop - 1) / 2
        assert fig.data[layer].y[index] == (rows.start + rows.stop - 1) / 2
        block = w[rows.start : rows.stop, cols.start : cols.stop].astype(np.float64)
        by_formula = block.sum(axis=1).mean() if how == "mean" else block.max()
        assert drawn[row, col] == pytest.approx(expected[row, col], abs=1e-7)
        assert block_value(w, rows, cols, how) == pytest.approx(by_formula, abs=1e-7)
        assert block_value(w, rows, cols, how) == pytest.approx(drawn[row, col], abs=TOL)
        cells = block_cells(w, rows, cols)
        assert len(cells) == block.size and [c[2] for c in cells] == sorted(block.ravel().tolist(), reverse=True)
        q, k, top = cells[0]
        assert w[q, k] == top == block.max()


# ----------------------------------------------------------------------------------------------
# Pages (AppTest: the click is simulated by the cell the chart's callback stores)
# ----------------------------------------------------------------------------------------------


def _derivation(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown if "Why" in m.value and "Query" in m.value)


@pytest.mark.slow
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


@pytest.mark.slow
def test_generation_page_explains_a_masked_cell():
    at = AppTest.from_file(str(ROOT / "pages" / "6_Generation.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.session_state["gen_matrix_cell"] = (1, 3)  # above the diagonal: the look-ahead mask
    at.run()
    assert not at.exception, at.exception
    assert "row 1" in _derivation(at) and "column 3" in _derivation(at)
    how = " ".join(at.table[0].value.iloc[:, 1].tolist()).replace("\\", "")
    assert "(−∞): the mask blocks this key" in how


@pytest.mark.slow
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


@pytest.mark.slow
def test_bert_page_explains_a_layer_and_head_cell():
    at = AppTest.from_file(str(ROOT / "pages" / "7_BERT_masking.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["topic"] = "Attention"  # the page's attention tab
    at.run()
    at.session_state["bert_from_cell"] = (13, 2)  # row 13 = layer 2, head 2 (minilm-mlm: 12 heads per layer)
    at.run()
    assert not at.exception, at.exception
    title = _derivation(at)
    assert "layer 2, head 2" in title and "column 2" in title
    values = at.table[0].value.iloc[:, 2].tolist()
    assert values[-2] == values[-1]


@pytest.mark.slow
def test_real_model_page_explains_a_cell():
    at = AppTest.from_file(str(ROOT / "pages" / "8_Real_model_explorer.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.session_state["real_head_fig_cell"] = (3, 1)
    at.run()
    assert not at.exception, at.exception
    assert "row 3" in _derivation(at) and "column 1" in _derivation(at)
    how = " ".join(at.table[0].value.iloc[:, 1].tolist()).replace("\\", "")
    assert "÷ √d_k = ÷ 5.657" in how  # MiniLM: d_k = 384 / 12 = 32


def _values(at: AppTest, table: int = 0) -> list[float]:
    return [float(v.replace("\\", "")) for v in at.table[table].value.iloc[:, -1]]


@pytest.mark.slow
def test_real_model_page_explains_a_binned_block_at_512_tokens(minilm_512):
    """Page 8 at 512 tokens draws binned heads; a click on a drawn cell names its block, checks its
    value, offers its cells (the largest first) and explains the picked one with the model's numbers."""
    _, trace = minilm_512
    at = AppTest.from_file(str(ROOT / "pages" / "8_Real_model_explorer.py"), default_timeout=APPTEST_TIMEOUT)
    at.session_state["real_text"] = LONG_TEXT
    at.run()
    assert not at.exception, at.exception
    layer, head = at.session_state["real_layer"], at.session_state["real_head"]
    matrix = trace.attention[layer, head]
    at.session_state["real_head_fig_cell"] = (37, 40)
    at.run()
    assert not at.exception, at.exception
    assert any("Block: queries 148–151 → keys 160–163" in m.value for m in at.markdown)
    drawn = matrix[148:152, 160:164].astype(np.float64).sum(axis=1).mean()
    assert any(f"= {drawn:.4f} from the model's weights" in c.value for c in at.caption)
    pick = at.selectbox(key="real_head_fig_pick")
    assert len(pick.options) == 16 and pick.value == tuple(
        int(i) for i in np.unravel_index(matrix[148:152, 160:164].argmax(), (4, 4)) + np.array([148, 160])
    )
    for q, k in (pick.value, (150, 161)):
        at.selectbox(key="real_head_fig_pick").set_value((q, k)).run()
        assert not at.exception, at.exception
        title = _derivation(at).replace("\\", "")
        assert f"Why {matrix[q, k]:.4f}?" in title and f"row {q}" in title and f"column {k}" in title
        values = _values(at)
        assert values[-2] == values[-1] == pytest.approx(matrix[q, k], abs=1e-4)  # the model's, re-run
    at.session_state["real_avg_fig_cell"] = (37, 40)
    at.run()
    assert not at.exception, at.exception
    assert "average over heads" in _derivation(at)
    mean = trace.attention[layer].mean(0)
    q, k = at.selectbox(key="real_avg_fig_pick").value
    assert mean[q, k] == mean[148:152, 160:164].max()
    assert _values(at, 1)[-1] == pytest.approx(mean[q, k], abs=1e-4)  # the heads' mean (table 0: one head's steps)
    at.selectbox(key="real_layer").set_value((layer + 1) % 6).run()  # another layer: both clicks forgotten
    assert not at.exception and _derivation(at) == ""
    assert not any("Block:" in m.value for m in at.markdown)


@pytest.mark.slow
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
