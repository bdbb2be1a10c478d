"""The derivations behind click-to-explain, one cached function per model family (each re-runs the model that
drew a heatmap, loaded by its page's module), and one call per page figure that wires a page's heatmap to
them (ui.explain draws the chart and the derivation).

The page modules (ui.seq2seq, ui.transformer, ui.bert) import nothing from here: their sections take the
explainers as a parameter, and the pages pass these (``*_exposure_cells``, :func:`finetuned_cells`), so that
no page module and this one import each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import streamlit as st

from models.inference.traces import CellExplanation
from ui.explain import Explainer, each_head, explained_chart
from ui.export import PLOT
from ui.grid import AVERAGE
from ui.i18n import tr
from ui.plot import chart

if TYPE_CHECKING:
    from models.training.seq2seq import ExposureTrace


# --------------------------------------------------------------------------------------
# Cached derivations, one per model family
# --------------------------------------------------------------------------------------


def _loaded(result):
    """A ``load_model``-style result (model or one-line message) as the model, or ValueError."""
    if isinstance(result, str):
        raise ValueError(result)
    return result


@st.cache_data(max_entries=256, show_spinner=False)
def seq2seq_cell(
    name: str, text: str, output_tokens: tuple[str, ...], step: int, key: int, mode: str
) -> CellExplanation:
    """α[step, key] of an RNN checkpoint's decoding of ``text`` that emitted ``output_tokens``."""
    from models.inference.explain import explain_seq2seq_cell
    from models.nn.rnn_seq2seq import AttentionMode
    from ui.seq2seq import load_model

    return explain_seq2seq_cell(_loaded(load_model(name)), text, output_tokens, step, key, AttentionMode(mode))


@st.cache_data(max_entries=256, show_spinner=False)
def head_cell(
    name: str,
    site: str,
    layer: int,
    head: int,
    query: int,
    key: int,
    src_ids: tuple[int, ...] | None,
    tgt_ids: tuple[int, ...],
) -> CellExplanation:
    """α[query, key] of one head of a Transformer checkpoint (site encoder/decoder/cross/lm)."""
    from models.inference.explain import explain_head_cell
    from ui.transformer import load_model

    return explain_head_cell(_loaded(load_model(name)).model, site, layer, head, query, key, src_ids, tgt_ids)


@st.cache_data(max_entries=256, show_spinner=False)
def bert_cell(
    name: str, ids: tuple[int, ...], segment_ids: tuple[int, ...], layer: int, head: int, query: int, key: int
) -> CellExplanation:
    """α[query, key] of one head of the small BERT on these pieces."""
    from models.inference.explain import explain_bert_cell
    from ui.bert import load_small_bert

    return explain_bert_cell(_loaded(load_small_bert(name)).model, ids, segment_ids, layer, head, query, key)


@st.cache_data(max_entries=256, show_spinner=False)
def finetuned_cell(
    name: str,
    tuned: bool,
    ids: tuple[int, ...],
    segment_ids: tuple[int, ...],
    layer: int,
    head: int,
    query: int,
    key: int,
) -> CellExplanation:
    """α[query, key] of one head of a fine-tuned checkpoint's encoder (``tuned``) or of its pre-trained
    base, on these pieces (the BERT page's fine-tuning tab: ui.bert.finetuned_models)."""
    from models.inference.explain import explain_bert_cell
    from ui.bert import finetuned_models

    loaded, base, _ = finetuned_models(name)
    return explain_bert_cell(loaded.model if tuned else base, ids, segment_ids, layer, head, query, key)


@st.cache_data(max_entries=64, show_spinner=False)
def real_cells(
    path: str,
    ids: tuple[int, ...],
    segment_ids: tuple[int, ...],
    layer: int,
    heads: tuple[int, ...],
    query: int,
    key: int,
) -> list[CellExplanation]:
    """α[query, key] of ``heads`` of one layer of a real encoder (``path``: a ui.bert.RealModel's
    key, '' = the installed MiniLM-L6) or of the real decoder (ui.bert.DECODER_KEY) on these ids,
    from one forward pass."""
    from models.inference.explain import explain_hf_heads, explain_llama_heads
    from ui.bert import DECODER_KEY, load_decoder, load_real_model

    if path == DECODER_KEY:
        return explain_llama_heads(_loaded(load_decoder()).model, ids, layer, heads, query, key)
    return explain_hf_heads(_loaded(load_real_model(path)).model, ids, segment_ids, layer, heads, query, key)


@st.cache_data(max_entries=64, show_spinner=False)
def llm_cells(
    model: str, ids: tuple[int, ...], layer: int, heads: tuple[int, ...], query: int, key: int
) -> list[CellExplanation]:
    """α[query, key] of ``heads`` of one layer of the Real LLM page's model ``model`` (a ui.llm model
    name) on these ids, from one full forward pass (the page generated them with its KV cache)."""
    from models.inference.explain import explain_llama_heads
    from models.inference.hf_adapter import llm_view
    from ui.llm import shared_llm

    return explain_llama_heads(llm_view(shared_llm(model)), ids, layer, heads, query, key)


# --------------------------------------------------------------------------------------
# One call per page figure
# --------------------------------------------------------------------------------------


def seq2seq_chart(fig, key: str, trace, hyp, text: str, drawn: np.ndarray | None = None) -> None:
    """An RNN attention heatmap of hypothesis ``hyp`` of Seq2seqDecodeTrace ``trace`` (decoded from ``text``);
    ``drawn``: the weights as the figure shows them, when some are hidden (NaN, the quiz's unguessed steps)."""
    tokens = tuple(hyp.tokens)
    explained_chart(
        fig,
        key,
        hyp.attention if drawn is None else drawn,
        lambda q, k: seq2seq_cell(trace.model, text, tokens, q, k, trace.mode),
        query_tokens=tokens,
        key_tokens=trace.src_tokens,
        context=(trace.model, text, trace.mode, tokens),
    )


def head_chart(
    fig,
    key: str,
    matrix: np.ndarray,
    name: str,
    site: str,
    layer: int,
    head: int,
    n_heads: int,
    *,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    src_ids: Sequence[int] | None,
    tgt_ids: Sequence[int],
) -> None:
    """One head's heatmap (or the average over heads, ``head`` = ui.grid.AVERAGE) of a Transformer
    checkpoint ``name``: attention ``site`` (encoder/decoder/cross/lm) on these ids."""
    src, tgt = (tuple(src_ids) if src_ids is not None else None), tuple(tgt_ids)

    def one(h: int, q: int, k: int) -> CellExplanation:
        return head_cell(name, site, layer, h, q, k, src, tgt)

    explain = each_head(one, n_heads) if head == AVERAGE else (lambda q, k: one(head, q, k))
    explained_chart(
        fig,
        key,
        matrix,
        explain,
        query_tokens=query_tokens,
        key_tokens=key_tokens,
        context=(name, site, layer, head, src, tgt),
    )


def bert_heads_chart(
    fig,
    key: str,
    attention: np.ndarray,
    name: str,
    ids: Sequence[int],
    segment_ids: Sequence[int],
    tokens: Sequence[str],
    focus: int,
    direction: str,
) -> None:
    """viz_core.bert.special_attention_figure of the small BERT ``name`` (rows: every layer and
    head; columns: tokens): ``direction`` "from" explains α[focus, column], "to" α[column, focus]."""
    n_layers, n_heads, n, _ = attention.shape
    drawn = (attention[:, :, focus, :] if direction == "from" else attention[:, :, :, focus]).reshape(-1, n)
    ids_t, seg_t = tuple(int(i) for i in ids), tuple(int(s) for s in segment_ids)

    def explain(row: int, col: int) -> CellExplanation:
        layer, head = divmod(row, n_heads)
        query, key_index = (focus, col) if direction == "from" else (col, focus)
        return bert_cell(name, ids_t, seg_t, layer, head, query, key_index)

    explained_chart(
        fig, key, drawn, explain, query_tokens=tokens, key_tokens=tokens, context=(name, ids_t, seg_t, focus, direction)
    )


def real_head_chart(
    fig,
    key: str,
    matrix: np.ndarray,
    path: str,
    ids: Sequence[int],
    segment_ids: Sequence[int],
    tokens: Sequence[str],
    layer: int,
    head: int | None,
    n_heads: int,
) -> None:
    """One head (or, with ``head`` None, the layer's average over heads) of a real encoder
    (``path`` '' = the installed MiniLM-L6) or of the real decoder (ui.bert.DECODER_KEY: a Llama
    head's RoPE and grouped-query derivation) on the trace's ``ids``."""
    ids_t, seg_t = tuple(int(i) for i in ids), tuple(int(s) for s in segment_ids)
    heads = tuple(range(n_heads)) if head is None else (head,)

    def explain(q: int, k: int) -> CellExplanation | list[CellExplanation]:
        cells = real_cells(path, ids_t, seg_t, layer, heads, q, k)
        return cells if head is None else cells[0]

    explained_chart(
        fig, key, matrix, explain, query_tokens=tokens, key_tokens=tokens, context=(path, ids_t, seg_t, layer, head)
    )


# --------------------------------------------------------------------------------------
# Explainers the page modules' sections take from their pages
# --------------------------------------------------------------------------------------


def seq2seq_exposure_cells(name: str, trace: ExposureTrace) -> tuple[Explainer, Explainer]:
    """The exposure figure's two explainers for RNN ``name``: the decoder replayed on the reference (the
    forced run reads it at every step) and on its own words (the free run)."""
    from models.nn.rnn_seq2seq import SOFT

    text = " ".join(trace.source)

    def run(tokens: Sequence[str]) -> Explainer:
        fed = tuple(tokens)
        return lambda q, k: seq2seq_cell(name, text, fed, q, k, SOFT.weighting)

    return run([*trace.gold, "</s>"]), run(trace.free_tokens)


def transformer_exposure_cells(name: str, trace: ExposureTrace) -> tuple[Explainer, Explainer]:
    """The exposure figure's two explainers for Transformer ``name``: the mean over the last decoder layer's
    heads of cross-attention (as drawn), the decoder reading <s> and the reference (forced run) or its own
    outputs (free run)."""
    from ui.transformer import load_model

    c = _loaded(load_model(name)).encoder_decoder.config
    src = tuple(trace.src_ids)

    def run(read: Sequence[int]) -> Explainer:
        tgt = (c.bos_id, *read)
        last = c.num_decoder_layers - 1
        return each_head(lambda h, q, k: head_cell(name, "cross", last, h, q, k, src, tgt), c.n_heads)

    return run(trace.gold_ids), run(trace.free_ids)


def finetuned_cells(
    name: str, tuned: bool, ids: Sequence[int], segment_ids: Sequence[int], layer: int, head: int
) -> Explainer:
    """The explainer of one head's map on the BERT page's fine-tuning tab: the fine-tuned encoder's
    (``tuned``) or its pre-trained base's."""
    ids_t, seg_t = tuple(int(i) for i in ids), tuple(int(s) for s in segment_ids)
    return lambda q, k: finetuned_cell(name, tuned, ids_t, seg_t, layer, head, q, k)


def llm_step_chart(fig, key: str, trace, step: int, model: str, rows: str, layer: int, *, where=None) -> None:
    """The Real LLM page's generation step ``step`` of LLMTrace ``trace`` (ui.llm.step_figure ``fig``): every
    row is the query that produced the step's token, over the tokens before it; row r is layer r, the mean
    over its heads, when ``rows`` is "layers", else head r of ``layer`` (0-based). A click derives that cell
    for each head of the layer (or the one head) from the model's own modules, on a Llama; another model's
    figure says that it is not derived."""
    from ui.llm import explainable, heavy_once, shared_llm, step_ids, step_rows, visible

    if not explainable(shared_llm(model)):
        chart(fig, key=key, config=PLOT, where=where)
        (where or st).caption(tr("llm_explorer.explain_llama_only", model=tr(f"llm_explorer.model.{model}")))
        return
    shown = trace.steps[step]
    matrix = step_rows(trace, step, rows, layer + 1)[0]
    ids = tuple(int(i) for i in step_ids(trace, step))
    query, n_heads = len(ids) - 1, shown.attention.shape[1]

    def explain(row: int, col: int) -> CellExplanation | list[CellExplanation]:
        at, heads = (row, tuple(range(n_heads))) if rows == "layers" else (layer, (row,))
        # a forward pass of the model: in the server's heavy queue the first time, as the generation was
        cells = heavy_once(llm_cells, model, ids, at, heads, query, col, what=tr("llm_explorer.tab.generation"))
        return cells if rows == "layers" else cells[0]

    tokens = visible(trace.tokens[: shown.position])
    explained_chart(
        fig,
        key,
        matrix,
        explain,
        query_tokens=tokens,
        key_tokens=tokens,
        context=(model, ids, rows, layer),
        where=where,
    )
