"""The Real model explorer on the real decoder (issue 11): the LLM seen as the explorer's model
(models.inference.hf_adapter.llm_view), click-to-explain of a Llama head with grouped-query
attention and RoPE (models.inference.explain.explain_llama_heads), and page 8 choosing the
decoder, on the tiny random Llama of tests/test_llm.py (3 layers, 6 query heads sharing 2
key/value heads); the real SmolLM2 is never needed."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from models.inference import llm as L
from models.inference.explain import explain_llama_heads
from models.inference.hf_adapter import llm_view, run_hf
from models.nn.positional import apply_rope
from tests.charts import charts, typed_array
from tests.conftest import APPTEST_TIMEOUT, ROOT
from tests.test_llm import VOCAB, page_model, tiny  # noqa: F401  (the tiny random GQA Llama, as fixtures)

TEXT = " ".join(VOCAB[i] for i in (7, 3, 19, 42, 5, 11, 23, 8, 61, 2))


def test_the_view_shares_the_loaded_model(tiny: L.LLM) -> None:  # noqa: F811
    view = llm_view(tiny)
    assert view.model is tiny.model and view.tokenizer is tiny.tokenizer  # no second copy
    assert (view.causal, view.has_mlm_head, view.n_layers, view.n_heads, view.n_kv_heads) == (True, False, 3, 6, 2)


def test_attention_is_the_models_own_and_causal(tiny: L.LLM) -> None:  # noqa: F811
    trace = run_hf(llm_view(tiny), TEXT)
    assert trace.tokens == TEXT.split() and trace.ids.tolist() == [VOCAB.index(w) for w in TEXT.split()]
    np.testing.assert_array_equal(trace.attention, L.attention_of(tiny, trace.ids.tolist()))
    n = len(trace.tokens)
    assert trace.attention.shape == (tiny.n_layers, tiny.n_heads, n, n)
    np.testing.assert_allclose(trace.attention.sum(-1), 1.0, atol=1e-5)
    above = np.triu_indices(n, 1)
    assert np.all(trace.attention[..., above[0], above[1]] == 0.0)  # exactly 0: no later token
    below = np.tril_indices(n)
    assert np.all(trace.attention[..., below[0], below[1]] > 0)  # every earlier token is seen
    assert not trace.segment_ids.any() and trace.top_ids is None  # one segment, no masked-LM head
    with pytest.raises(ValueError):
        run_hf(llm_view(tiny), TEXT, "w3 w4")  # a decoder reads one text


def test_a_long_text_is_cut_to_the_limit(tiny: L.LLM) -> None:  # noqa: F811
    trace = run_hf(llm_view(tiny), " ".join([TEXT] * 3), max_tokens=16)
    assert len(trace.tokens) == 16 and trace.truncated == 14 and trace.n_tokens_in == 30


CELLS = [(0, 0, 5, 2), (0, 4, 9, 9), (1, 2, 7, 0), (1, 3, 7, 6), (2, 5, 3, 1), (2, 1, 8, 4)]


@pytest.mark.parametrize("layer, head, query, key", CELLS)
def test_a_llama_cell_is_derived_from_the_models_modules(
    tiny: L.LLM,  # noqa: F811
    layer: int,
    head: int,
    query: int,  # noqa: F811
    key: int,
) -> None:
    view = llm_view(tiny)
    trace = run_hf(view, TEXT)
    cell = explain_llama_heads(view, trace.ids.tolist(), layer, [head], query, key)[0]
    assert abs(cell.weight - trace.attention[layer, head, query, key]) <= 1e-5
    np.testing.assert_allclose(cell.weights, trace.attention[layer, head, query], atol=1e-5)  # the whole row
    assert cell.scale == pytest.approx(np.sqrt(tiny.head_dim))
    assert cell.allowed.tolist() == [k <= query for k in range(len(trace.ids))] and cell.masked[
        query + 1 :
    ].tolist() == [-np.inf] * (len(trace.ids) - query - 1)
    q, k = cell.terms["R_q W_q h_q"], cell.terms["R_k W_k h_k"]
    assert cell.score == pytest.approx(float(q @ k), rel=1e-5, abs=1e-6)


def test_the_score_uses_the_rotated_vectors(tiny: L.LLM) -> None:  # noqa: F811
    """R_p is RoPE's rotation to position p (checked with the lab's own apply_rope in Llama's pair
    order); without it the score, and the weight, would differ."""
    view = llm_view(tiny)
    ids = run_hf(view, TEXT).ids.tolist()
    order = L.rope_pair_order(tiny.head_dim)
    back = np.argsort(order)
    for query, key in ((6, 2), (9, 0)):
        cell = explain_llama_heads(view, ids, 1, [4], query, key)[0]
        for plain, rotated, position in (("W_q h_q", "R_q W_q h_q", query), ("W_k h_k", "R_k W_k h_k", key)):
            x = torch.as_tensor(cell.terms[plain], dtype=torch.float64)[order]
            turned = apply_rope(x[None], torch.tensor([float(position)]), tiny.rope_theta)[0][back]
            np.testing.assert_allclose(cell.terms[rotated], turned.numpy(), atol=1e-5)
        unrotated = float(cell.terms["W_q h_q"] @ cell.terms["W_k h_k"])
        assert abs(unrotated - cell.score) > 1e-3  # the rotation changes the score


def test_each_query_head_reads_its_key_value_group(tiny: L.LLM) -> None:  # noqa: F811
    """Heads 0–2 share key/value head 0, heads 3–5 key/value head 1: the same k within a group,
    another k across groups, and every head's weight equals the drawn one."""
    view = llm_view(tiny)
    trace = run_hf(view, TEXT)
    cells = explain_llama_heads(view, trace.ids.tolist(), 2, range(6), 8, 3)
    keys = [c.terms["R_k W_k h_k"] for c in cells]
    for head, group in enumerate(L.gqa_groups(6, 2)):
        np.testing.assert_array_equal(keys[head], keys[3 * group])
        assert abs(cells[head].weight - trace.attention[2, head, 8, 3]) <= 1e-5
    assert not np.allclose(keys[0], keys[3])
    assert len({round(float(c.terms["R_q W_q h_q"][0]), 6) for c in cells}) == 6  # one query per head


def test_bad_cells_are_refused(tiny: L.LLM) -> None:  # noqa: F811
    view = llm_view(tiny)
    for layer, head, query, key in ((3, 0, 1, 0), (0, 6, 1, 0), (0, 0, 10, 0), (0, 0, 1, 10)):
        with pytest.raises(ValueError):
            explain_llama_heads(view, list(range(2, 12)), layer, [head], query, key)


# ---------------------------------------------------------------------------- page 8 on the decoder

REAL_PAGE = str(ROOT / "pages" / "8_Real_model_explorer.py")


@pytest.fixture
def decoder_model(page_model: L.LLM) -> L.LLM:  # noqa: F811
    """Page 9's model replaced by the tiny random Llama (tests.test_llm.page_model); page 8's
    caches emptied before and after, so no other test sees its runs."""
    from ui import bert, cells

    caches = (bert.real_trace, bert.real_grid, cells.real_cells)
    for cached in caches:
        cached.clear()
    yield page_model
    for cached in caches:
        cached.clear()


def _page(source: str | None, lang: str = "en", **params: str) -> AppTest:
    at = AppTest.from_file(REAL_PAGE, default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = lang
    if source is not None:
        at.query_params["real_source"] = source
    at.query_params.update(params)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _string(key: str, lang: str = "en") -> str:
    from ui.strings import STRINGS

    return STRINGS[key][1 if lang == "zh" else 0]


def test_page_8_explores_the_decoder(decoder_model: L.LLM) -> None:
    from ui.bert import DECODER_KEY, real_trace

    at = _page(_string("real_model.decoder_choice"), real_text=TEXT, real_layer="layer 2", real_head="head 5")
    assert at.radio(key="real_source").value == "decoder"
    assert at.query_params.get("real_source") == "decoder"  # the choice stays in the URL, as its value
    assert not at.info and not at.warning, ([i.value for i in at.info], [w.value for w in at.warning])
    assert any("3 layers × 6 query heads sharing 2 key/value heads" in c.value for c in at.caption)
    assert at.text_input(key="real_text_b").disabled
    assert len(charts(at)) == 4  # the grid, the head, the head average, the lines view
    markdown = " ".join(m.value for m in at.markdown)
    assert "All 18 heads: 3 layers × 6 heads over 10 tokens" in markdown and "Layer 2, head 5" in markdown
    assert at.get("latex") and "R_q W_q h_q" in at.get("latex")[0].proto.body
    assert any("key/value head 2" in c.value for c in at.caption)  # head 5 of 6 reads K/V head 2 of 2
    trace = real_trace(DECODER_KEY, TEXT, "", 512)
    at.session_state["real_head_fig_cell"] = (7, 3)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    title = " ".join(m.value for m in at.markdown if "Why" in m.value).replace("\\", "")
    assert f"Why {trace.attention[1, 4, 7, 3]:.4f}?" in title and "row 7" in title and "column 3" in title
    values = [float(v.replace("\\", "")) for v in at.table[0].value.iloc[:, -1]]
    assert values[-2] == values[-1] == pytest.approx(trace.attention[1, 4, 7, 3], abs=1e-4)
    how = " ".join(at.table[0].value.iloc[:, 1].tolist()).replace("\\", "")
    assert "R_q W_q h_q" in how and f"÷ √d_k = ÷ {np.sqrt(decoder_model.head_dim):.3f}" in how
    at.session_state["real_head_fig_cell"] = (2, 6)  # above the diagonal: a weight of exactly 0, masked
    at.run()
    assert not at.exception and any("−∞" in v for v in at.table[0].value.iloc[:, 2])


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.slow
def test_not_converted_gives_page_9s_message(tmp_path, monkeypatch, lang: str) -> None:
    from ui import llm as page_llm

    monkeypatch.setenv("ATTN_LAB_CACHE", str(tmp_path))  # an empty cache: not converted
    page_llm.shared_llm.clear()
    at = _page(_string("real_model.decoder_choice", lang), lang)
    said = _string("llm_explorer.not_converted", lang).format(command=L.PREPARE_COMMAND)
    assert [w.value for w in at.warning] == [said]
    # (a page run on its own has no app to link to: the hint names page 9; the browser test clicks the link)
    assert any(m.value == _string("real_model.decoder_convert_text", lang) for m in at.markdown)
    assert not charts(at)


@pytest.mark.slow
def test_missing_package_gives_page_9s_message(monkeypatch) -> None:
    def missing(*args, **kwargs):
        raise L.LLMError("the model package is not installed", "llm.no_package", command="pip install x")

    monkeypatch.setattr(L, "gguf_path", missing)
    at = _page(_string("real_model.decoder_choice"))
    prefix = _string("llm_explorer.no_package").split("{error}")[0]
    assert len(at.warning) == 1 and at.warning[0].value.startswith(prefix)
    assert any(m.value == _string("real_model.decoder_convert_text") for m in at.markdown)


@pytest.mark.slow
def test_a_bad_model_in_the_link_falls_back_with_a_notice(decoder_model: L.LLM) -> None:
    at = _page("<b>GPT-9</b>", real_text=TEXT)
    assert at.radio(key="real_source").value == "installed"
    notices = [i.value for i in at.info if "GPT" in i.value]  # (escaped: user text is never markdown)
    assert len(notices) == 1 and "<b>" not in notices[0]


def test_a_deep_models_mosaic_has_the_heads_as_rows_and_a_click_still_picks_its_head() -> None:
    """SmolLM2's 30 layers × 9 heads are drawn as 9 rows × 30 columns (ui.bert.heads_as_rows); a
    clicked thumbnail's customdata is then [head, layer], and the callback reads it so."""
    from ui.bert import heads_as_rows

    assert heads_as_rows(30, 9) and not heads_as_rows(6, 12) and not heads_as_rows(3, 6)

    def script() -> None:
        import streamlit as st

        from ui.grid import on_grid_select

        st.session_state["g"] = {"selection": {"points": [{"customdata": [2, 27]}]}}  # row 2 (H3), column 27 (L28)
        on_grid_select("g", "rows", heads_as_rows=True)
        on_grid_select("g", "plain")

    at = AppTest.from_function(script, default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception
    assert (at.session_state["rows_layer"], at.session_state["rows_head"]) == (27, 2)
    assert (at.session_state["plain_layer"], at.session_state["plain_head"]) == (2, 27)


def test_the_deep_decoders_mosaic_is_drawn_heads_as_rows(page_model: L.LLM, monkeypatch) -> None:  # noqa: F811
    """A decoder with over twice as many layers as heads (5 layers × 2 heads here): the page's
    mosaic has a row per head and a column per layer, thumbnail (h, l) drawing layer l's head h."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from tests.test_llm import _tokenizer
    from ui import bert
    from viz_core.attention_grid import grid_payload
    from ui import llm as page_llm

    torch.manual_seed(1)
    config = LlamaConfig(
        vocab_size=len(VOCAB),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=5,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=256,
        attn_implementation="eager",
    )
    deep = L.LLM.wrap(LlamaForCausalLM(config), _tokenizer(), "deep")
    monkeypatch.setattr(L, "load_llm", lambda *args, **kwargs: deep)
    for cached in (page_llm.shared_llm, bert.real_trace, bert.real_grid):
        cached.clear()
    try:
        trace = bert.real_trace(bert.DECODER_KEY, TEXT, "", 512)
        payload = bert.real_grid(bert.DECODER_KEY, TEXT, "", 512, "head")
        assert (payload.n_layers, payload.n_heads) == (2, 5)  # rows: heads; columns: layers
        assert payload.layer_labels == ["H1", "H2"] and payload.head_labels == [f"L{i}" for i in range(1, 6)]
        plain = grid_payload(trace.attention, trace.tokens, max_thumb=96, min_thumb=64, scale="head")

        def thumb(grid, row: int, col: int) -> np.ndarray:
            y, x = grid.cell_origin(row, col)
            return grid._indices[y : y + grid.cell_h, x : x + grid.cell_w]

        thumbs = {(layer, head): thumb(plain, layer, head) for layer in range(5) for head in range(2)}
        assert len({t.tobytes() for t in thumbs.values()}) > 5  # the heads look different
        for (layer, head), drawn in thumbs.items():
            np.testing.assert_array_equal(thumb(payload, head, layer), drawn)
    finally:
        for cached in (page_llm.shared_llm, bert.real_trace, bert.real_grid):
            cached.clear()


@pytest.mark.slow
def test_the_deck_slide_of_a_decoder_view(decoder_model: L.LLM) -> None:  # noqa: F811
    """A page-8 view of the decoder added to the deck draws the decoder's head on its slide."""

    def script() -> None:
        from tests.test_real_decoder import TEXT
        from ui.slides import prepare

        view = prepare(
            "8_Real_model_explorer",
            {
                "real_source": "SmolLM2-135M (decoder)",
                "real_text": TEXT,
                "real_layer": "layer 3",
                "real_head": "head 6",
            },
        )
        assert not view.notes, view.notes
        view.draw(0)

    at = AppTest.from_function(script, default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("SmolLM2" in m.value and "10" in m.value for m in at.markdown)  # its label, 10 tokens
    assert charts(at)


def test_the_deck_slide_says_the_decoder_is_not_converted(tmp_path, monkeypatch) -> None:
    from ui import llm as page_llm
    from ui.slides import SlideProblem, prepare

    monkeypatch.setenv("ATTN_LAB_CACHE", str(tmp_path))
    page_llm.shared_llm.clear()
    with pytest.raises(SlideProblem) as err:
        prepare("8_Real_model_explorer", {"real_source": "SmolLM2-135M (decoder)"})
    assert str(err.value) == _string("llm_explorer.not_converted").format(command=L.PREPARE_COMMAND)


# ---------------------------------------------------------------------------- page 9's generation step


def test_another_model_type_is_refused(tiny: L.LLM, monkeypatch) -> None:  # noqa: F811
    """Gemma 3 has a Llama's modules and more (query/key norms, local layers with their own RoPE): a
    derivation that only read the modules it shares would not be its attention. Refused by model type."""
    view = llm_view(tiny)
    ids = run_hf(view, TEXT).ids.tolist()
    assert explain_llama_heads(view, ids, 0, [0], 3, 1)  # a Llama: derived
    monkeypatch.setattr(tiny.model.config, "model_type", "gemma3_text")
    with pytest.raises(ValueError, match="Llama-type"):
        explain_llama_heads(llm_view(tiny), ids, 0, [0], 3, 1)


def _llm_page(**params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "9_LLM_explorer.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(llm_max_new="3", **params)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _cell_table(at: AppTest) -> list[str]:
    """The last column of the derivation's table (each head's weight and their mean, or one head's steps)."""
    return [str(v).replace("\\", "") for v in at.table[0].value.iloc[:, -1]]


def _step_chart(at: AppTest) -> dict:
    return next(c.figure for c in charts(at) if c.key == "step_attention")


@pytest.mark.slow
def test_the_generation_step_explains_a_layer_and_a_head_cell(page_model: L.LLM) -> None:  # noqa: F811
    """Page 9's step figure, rows as layers: a click derives the cell for each of the layer's 6 heads from
    the model's modules, on the ids the step's query read (the KV cache's weights, recomputed in one full
    pass), and their mean is the drawn weight; rows as the heads of layer 2: one head's derivation."""
    from tests.charts import clicked

    at = _llm_page()
    at.button(key="llm_next").click().run()  # step 2
    assert any(t["type"] in ("scatter", "scattergl") for t in _step_chart(at)["data"])  # the click layer
    drawn = np.asarray(typed_array(_step_chart(at)["data"][0]["z"]), dtype=float)  # layers × tokens so far
    title = clicked(at, "step_attention", (1, 2))  # no "does not reproduce the drawn weight" warning
    assert "layer 2, average over heads" in title and "column 2" in title, title
    # the forward pass went through the server's heavy queue, as the generation did (ui.llm.heavy_once)
    assert {name for name, _ in at.session_state["_llm_done"]} == {"generation", "llm_cells"}
    weights = [float(w) for w in _cell_table(at)]
    assert len(weights) == 6 + 1  # each head, then the mean
    assert weights[-1] == pytest.approx(np.mean(weights[:-1]), abs=1e-4)
    assert weights[-1] == pytest.approx(drawn[1, 2], abs=1e-4) and drawn.shape[0] == page_model.n_layers
    at.session_state["llm_rows"] = "heads"
    at.session_state["llm_layer"] = 2
    at.run()
    title = clicked(at, "step_attention", (4, 0))
    assert "layer 2, head 5" in title and "column 0" in title, title


@pytest.mark.slow
def test_another_models_step_says_it_is_not_derived(page_model: L.LLM, monkeypatch) -> None:  # noqa: F811
    """A model that is not a Llama (Gemma 3): the step figure is drawn without the click layer, and says why."""
    monkeypatch.setattr(page_model.model.config, "model_type", "gemma3_text")
    at = _llm_page()
    assert any("does not derive" in c.value for c in at.caption), [c.value for c in at.caption]
    assert [t["type"] for t in _step_chart(at)["data"]] == ["heatmap"]
